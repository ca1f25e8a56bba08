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
  testCases: StoredTestCase[];
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

/** Reports of the pipeline's latest jobs, by job: each job's suites merge into one named after the job. */
export function buildTestReport(reports: readonly { jobId: number; jobName: string; report: unknown }[]): TestReport {
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
        suite.testCases.push(testCase);
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
