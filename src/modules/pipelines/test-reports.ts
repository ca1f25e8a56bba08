/**
 * A pipeline's test report (GitLab's Gitlab::Ci::Reports::TestReport, TestReportEntity and TestReportSummaryEntity):
 * the JUnit reports its latest jobs uploaded (parsed at upload into CiJobArtifact.report), one suite per job name,
 * counted as GitLab counts them. No reports gives zero counts.
 */

export type TestCaseStatus = 'success' | 'failed' | 'skipped' | 'error';

export interface StoredTestCase {
  status: TestCaseStatus;
  name: string;
  classname: string;
  execution_time: number;
  system_output: string | null;
  stack_trace: string | null;
  file?: string | null;
}

/** A test case as a report shows it: where its job keeps an attachment, and its recent failures when looked up. */
export interface ReportTestCase extends StoredTestCase {
  /** GitLab's TestCase#attachment_url: a failed case's `[[ATTACHMENT|path]]` among the job's artifacts. */
  attachmentUrl: string | null;
  /** GitLab's recent failures of the same test on the default branch (TestSuite resolver only). */
  recentFailures?: { count: number; baseBranch: string } | null;
}

/** GitLab's Junit parser's ATTACHMENT_TAG_REGEX, matched in a failed case's system-out. */
const ATTACHMENT_TAG = /\[\[ATTACHMENT\|(.+?)\]\]/i;

/** What the artifacts upload stores for a `junit` report. */
export interface StoredJunitReport {
  suites: { name: string; error: string | null; cases: StoredTestCase[] }[];
}

export interface TestSuite {
  name: string;
  totalTime: number;
  totalCount: number;
  successCount: number;
  failedCount: number;
  skippedCount: number;
  errorCount: number;
  suiteError: string | null;
  buildIds: number[];
  testCases: ReportTestCase[];
}

export interface TestReport {
  totalTime: number;
  totalCount: number;
  successCount: number;
  failedCount: number;
  skippedCount: number;
  errorCount: number;
  testSuites: TestSuite[];
}

/** GitLab rounds times to two decimals when it shows them. */
const round = (seconds: number) => Math.round(seconds * 100) / 100;

/**
 * GitLab's file_project_job_artifacts_path of a failed (or erred) case's attachment: the parser reads it from the
 * case's system-out, which the stored output of such a case carries.
 */
function attachmentUrl(testCase: StoredTestCase, projectPath: string, jobId: number): string | null {
  if (testCase.status !== 'failed' && testCase.status !== 'error') return null;
  const path = ATTACHMENT_TAG.exec(testCase.system_output ?? '')?.[1];
  return path ? `/${projectPath}/-/jobs/${jobId}/artifacts/file/${path}` : null;
}

/** Reports of the pipeline's latest jobs, by job: each job's suites merge into one named after the job. */
export function buildTestReport(reports: readonly { jobId: number; jobName: string; report: unknown }[], projectPath: string): TestReport {
  const suites = new Map<string, TestSuite>();
  for (const { jobId, jobName, report } of reports) {
    const stored = report as StoredJunitReport | null;
    const suite = suites.get(jobName) ?? {
      name: jobName,
      totalTime: 0,
      totalCount: 0,
      successCount: 0,
      failedCount: 0,
      skippedCount: 0,
      errorCount: 0,
      suiteError: null,
      buildIds: [],
      testCases: [],
    };
    suites.set(jobName, suite);
    if (!suite.buildIds.includes(jobId)) suite.buildIds.push(jobId);
    for (const part of stored?.suites ?? []) {
      if (part.error) suite.suiteError ??= part.error;
      for (const testCase of part.cases ?? []) {
        suite.testCases.push({ ...testCase, attachmentUrl: attachmentUrl(testCase, projectPath, jobId) });
        suite.totalCount += 1;
        suite.totalTime += Number(testCase.execution_time) || 0;
        if (testCase.status === 'success') suite.successCount += 1;
        else if (testCase.status === 'failed') suite.failedCount += 1;
        else if (testCase.status === 'skipped') suite.skippedCount += 1;
        else if (testCase.status === 'error') suite.errorCount += 1;
      }
    }
  }
  const testSuites = [...suites.values()].map((s) => ({ ...s, totalTime: round(s.totalTime), testCases: s.suiteError ? [] : s.testCases }));
  const sum = (key: 'totalCount' | 'successCount' | 'failedCount' | 'skippedCount' | 'errorCount') => testSuites.reduce((n, s) => n + s[key], 0);
  return {
    totalTime: round(testSuites.reduce((n, s) => n + s.totalTime, 0)),
    totalCount: sum('totalCount'),
    successCount: sum('successCount'),
    failedCount: sum('failedCount'),
    skippedCount: sum('skippedCount'),
    errorCount: sum('errorCount'),
    testSuites,
  };
}
