/**
 * What an incident made from an alert says, as GitLab's AlertManagement::AlertPresenter writes it: the alert's title
 * (`New: Incident <iid>` for an untitled alert, CreateAlertIssueService#update_title_for) and its issue description: a
 * list of the alert's facts, then a Prometheus alert's `gitlab_incident_markdown` after a horizontal rule. Pure.
 */
import { dig, prometheusExtras, type JsonObject } from './payload.js';

/** Gitlab::AlertManagement::Payload::Generic::DEFAULT_TITLE. */
const DEFAULT_ALERT_TITLE = 'New: Alert';
const DEFAULT_INCIDENT_TITLE = 'New: Incident';
const MARKDOWN_LINE_BREAK = '  \n';
const HORIZONTAL_LINE = '\n\n---\n\n';

export function incidentTitle(alertTitle: string, issueIid: number): string {
  return alertTitle === DEFAULT_ALERT_TITLE ? `${DEFAULT_INCIDENT_TITLE} ${issueIid}` : alertTitle;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Ruby's `strftime('%d %B %Y, %-l:%M%p (%Z)')` in UTC (GitLab's default time zone): `05 March 2020, 9:04AM (UTC)`. */
export function startTime(at: Date): string {
  const hours = at.getUTCHours();
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  const day = String(at.getUTCDate()).padStart(2, '0');
  const minutes = String(at.getUTCMinutes()).padStart(2, '0');
  return `${day} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${hour12}:${minutes}${hours < 12 ? 'AM' : 'PM'} (UTC)`;
}

interface AlertFacts {
  startedAt: Date;
  severity: string;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  description: string | null;
  payload: unknown;
}

const listItem = (key: string, value: string) => `**${key}:** ${value}`.trim();

/** AlertPresenter#issue_description (the metrics embed left out: it needs a GitLab-managed Prometheus alert). */
export function issueDescription(alert: AlertFacts, detailsUrl: string): string {
  const prometheus = alert.monitoringTool === 'Prometheus';
  const payload = (alert.payload ?? {}) as JsonObject;
  const fullQuery = prometheus ? prometheusExtras(payload).fullQuery : null;
  const items = [listItem('Start time', startTime(alert.startedAt)), listItem('Severity', alert.severity)];
  if (fullQuery) items.push(listItem('full_query', `\`${fullQuery}\``));
  if (alert.service) items.push(listItem('Service', alert.service));
  if (alert.monitoringTool) items.push(listItem('Monitoring tool', alert.monitoringTool));
  if (alert.hosts.length) items.push(listItem('Hosts', alert.hosts.join(' ')));
  if (alert.description?.trim()) items.push(listItem('Description', alert.description));
  items.push(listItem('GitLab alert', detailsUrl));
  const summary = `${items.join(MARKDOWN_LINE_BREAK)}\n`;
  const markdown = prometheus ? dig(payload, ['annotations', 'gitlab_incident_markdown']) : undefined;
  return typeof markdown === 'string' ? [summary, markdown].join(HORIZONTAL_LINE) : summary;
}
