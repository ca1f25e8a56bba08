/**
 * What GitLab's incidents add to an issue (IssuableSeverity, IncidentManagement::IssuableEscalationStatus) and EE's
 * health status: their values and the words system notes use for them.
 */

/**
 * GitLab's work item base types the Issues API and GraphQL's IssueType name. Requirements and test cases are licensed:
 * no issue is made one here (Issues::BuildService and BaseService#filter_params without the licence).
 */
export type IssueType = 'issue' | 'incident' | 'requirement' | 'test_case';
/** IssuableSeverity's values, least critical first. */
export type Severity = 'unknown' | 'low' | 'medium' | 'high' | 'critical';
/** IssuableEscalationStatus's values, in GitLab's order. */
export type EscalationStatus = 'triggered' | 'acknowledged' | 'resolved' | 'ignored';
/** EE's health statuses. */
export type HealthStatus = 'on_track' | 'needs_attention' | 'at_risk';

/** IssuableSeverity::SEVERITY_LABELS: how system notes name a severity. */
export const SEVERITY_LABELS: Record<Severity, string> = {
  unknown: 'Unknown',
  low: 'Low - S4',
  medium: 'Medium - S3',
  high: 'High - S2',
  critical: 'Critical - S1',
};

/** Issue#severity: an incident's, `unknown` until set; every other issue's is `unknown`. */
export function severityOf(issue: { issueType: string; severity: string | null }): Severity {
  return issue.issueType === 'incident' ? ((issue.severity as Severity | null) ?? 'unknown') : 'unknown';
}
