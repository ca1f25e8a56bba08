/**
 * The CI/CD issue's "done when", walked as a newcomer does: a repository with a `.gitlab-ci.yml` (stages, `needs`, a
 * passing, a failing, an allowed-to-fail, a manual and a JUnit-reporting job) pushed with git over HTTP, the pipeline
 * watched over graphql-ws while the built-in shell runner runs it, the manual job played, and the logs and the test
 * report read through @gitbeaker/rest.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { createProject } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { eventually, withShellRunner } from './support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
const git = gitSandbox();
withShellRunner(t);

const CONFIG = `
stages: [build, test, deploy]
build:
  stage: build
  script:
    - echo "building $CI_COMMIT_REF_NAME"
unit:
  stage: test
  needs: [build]
  script:
    - echo "unit tests pass"
junit:
  stage: test
  needs: [build]
  script:
    - echo '<testsuites><testsuite name="calc" tests="3"><testcase classname="Calc" name="adds" time="0.5"/><testcase classname="Calc" name="divides" time="0.75"><failure message="boom">expected 2 got 3</failure></testcase><testcase classname="Calc" name="later" time="0.25"><skipped/></testcase></testsuite></testsuites>' > report.xml
  artifacts:
    reports:
      junit: report.xml
lint:
  stage: test
  script:
    - echo "lint fails"
    - exit 1
flaky:
  stage: test
  allow_failure: true
  script:
    - exit 3
deploy:
  stage: deploy
  needs: [unit]
  when: manual
  script:
    - echo "deploying $CI_COMMIT_SHORT_SHA"
`;

/** Whether `seen` is the end of `all`: a subscription hears every change from when it started, in order, once. */
const isSuffix = (seen: string[], all: string[]) => seen.length > 0 && seen.every((status, i) => status === all[all.length - seen.length + i]);

interface TraceUpdate {
  offset: number;
  size: number;
  content: string;
  complete: boolean;
  job: { status: string };
}

describe('a newcomer pushing a .gitlab-ci.yml', () => {
  it('watches its pipeline live while the built-in runner runs it, plays the manual job, and reads logs and the test report', async () => {
    const project = await createProject(t, t.rootToken);
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': t.rootToken }, retryAttempts: 0 });
    const heard = { project: [] as string[], pipeline: [] as string[], deploy: [] as string[], trace: [] as TraceUpdate[], errors: [] as unknown[] };
    const watch = <T>(query: string, variables: Record<string, unknown>, next: (data: T) => void) =>
      client.subscribe<T>({ query, variables }, { next: (m) => (m.errors ? heard.errors.push(m.errors) : m.data && next(m.data as T)), error: (e) => heard.errors.push(e), complete: () => {} });
    let pipelineId: number | undefined;
    try {
      // The pipeline's first change names it: its jobs exist, so the rest is watched from there on.
      watch<{ projectPipelinesUpdated: { databaseId: number; status: string } }>(
        'subscription($p: ID!) { projectPipelinesUpdated(projectPath: $p) { databaseId status } }',
        { p: project.path_with_namespace },
        ({ projectPipelinesUpdated: p }) => {
          heard.project.push(p.status);
          if (pipelineId !== undefined) return;
          pipelineId = p.databaseId;
          void api.Jobs.all(project.id, { pipelineId: p.databaseId }).then((jobs) => {
            const deploy = jobs.find((j) => j.name === 'deploy');
            watch<{ ciPipelineStatusUpdated: { status: string } }>('subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { status } }', { id: String(p.databaseId) }, (d) =>
              heard.pipeline.push(d.ciPipelineStatusUpdated.status),
            );
            watch<{ ciJobStatusUpdated: { status: string } }>('subscription($id: ID!) { ciJobStatusUpdated(jobId: $id) { status } }', { id: String(deploy?.id) }, (d) =>
              heard.deploy.push(d.ciJobStatusUpdated.status),
            );
            watch<{ jobTraceUpdated: TraceUpdate }>(
              'subscription($id: ID!) { jobTraceUpdated(jobId: $id) { offset size content complete job { status } } }',
              { id: String(deploy?.id) },
              (d) => heard.trace.push(d.jobTraceUpdated),
            );
          });
        },
      );
      // graphql-ws does not acknowledge a subscription: a change made before one started is not heard, so each is
      // checked as the end of the full story; the push and the first jobs take far longer than a subscription's start.
      const work = git.folder('walk');
      await git.ok(work, ['init', '-q', '-b', 'main']);
      writeFileSync(join(work, '.gitlab-ci.yml'), CONFIG);
      writeFileSync(join(work, 'README.md'), '# walk\n');
      await git.ok(work, ['add', '-A']);
      await git.ok(work, ['commit', '-q', '-m', 'CI walk']);
      await git.ok(work, ['push', '-q', cloneUrl(t.url, project.path_with_namespace, t.rootToken), 'main']);
      const sha = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();

      // The first run ends failed: lint failed; flaky's failure is allowed; deploy waits to be played.
      await eventually(() => heard.project.includes('FAILED'), 120_000);
      expect(isSuffix(heard.project, ['CREATED', 'PENDING', 'RUNNING', 'FAILED']), heard.project.join()).toBe(true);
      const id = pipelineId as number;
      const jobs = Object.fromEntries((await api.Jobs.all(project.id, { pipelineId: id })).map((j) => [j.name, j]));
      expect(Object.fromEntries(Object.entries(jobs).map(([name, j]) => [name, j.status]))).toEqual({
        build: 'success',
        unit: 'success',
        junit: 'success',
        lint: 'failed',
        flaky: 'failed',
        deploy: 'manual',
      });
      expect(jobs.flaky).toMatchObject({ allow_failure: true, failure_reason: 'script_failure' });
      expect(jobs.lint).toMatchObject({ allow_failure: false, failure_reason: 'script_failure' });

      expect((await api.Jobs.play(project.id, jobs.deploy.id)).status).toBe('pending');
      await eventually(() => heard.trace.some((u) => u.complete) && heard.project.length >= 2 && heard.project.at(-1) === 'FAILED' && heard.project.at(-2) === 'RUNNING', 120_000);
      await eventually(() => heard.pipeline.at(-1) === 'FAILED' && heard.deploy.at(-1) === 'SUCCESS');
      expect(heard.errors).toEqual([]);
      expect(heard.project.slice(-2)).toEqual(['RUNNING', 'FAILED']);
      expect(isSuffix(heard.project, ['CREATED', 'PENDING', 'RUNNING', 'FAILED', 'RUNNING', 'FAILED']), heard.project.join()).toBe(true);
      expect(isSuffix(heard.pipeline, ['PENDING', 'RUNNING', 'FAILED', 'RUNNING', 'FAILED']), heard.pipeline.join()).toBe(true);
      expect(heard.pipeline.slice(-3)).toEqual(['FAILED', 'RUNNING', 'FAILED']);
      expect(isSuffix(heard.deploy, ['MANUAL', 'PENDING', 'RUNNING', 'SUCCESS']), heard.deploy.join()).toBe(true);
      expect(heard.deploy.slice(-3)).toEqual(['PENDING', 'RUNNING', 'SUCCESS']);

      // The deploy log as it streamed: updates tile it, the last says complete with the final status.
      const deployLog = await api.Jobs.showLog(project.id, jobs.deploy.id);
      expect(deployLog).toContain(`deploying ${sha.slice(0, 8)}`);
      const [first] = heard.trace;
      heard.trace.forEach((u, i) => i > 0 && expect(u.offset).toBe(heard.trace[i - 1].size));
      expect(heard.trace.map((u) => u.content).join('')).toBe(Buffer.from(deployLog).subarray(first.offset).toString());
      expect(heard.trace.at(-1)).toMatchObject({ complete: true, size: Buffer.byteLength(deployLog), job: { status: 'SUCCESS' } });
      expect(heard.trace.filter((u) => u.complete)).toHaveLength(1);

      expect(await api.Jobs.showLog(project.id, jobs.lint.id)).toContain('ERROR: Job failed: exit code 1');
      expect(await api.Jobs.showLog(project.id, jobs.flaky.id)).toContain('ERROR: Job failed: exit code 3');
      expect(await api.Jobs.showLog(project.id, jobs.build.id)).toContain('building main');

      expect(await api.Pipelines.show(project.id, id)).toMatchObject({ id, sha, ref: 'main', source: 'push', status: 'failed', detailed_status: { group: 'failed' }, yaml_errors: null });
      const cases = [
        { status: 'success', name: 'adds', classname: 'Calc', file: null, execution_time: 0.5, system_output: null, stack_trace: null },
        { status: 'failed', name: 'divides', classname: 'Calc', file: null, execution_time: 0.75, system_output: 'expected 2 got 3', stack_trace: 'expected 2 got 3' },
        { status: 'skipped', name: 'later', classname: 'Calc', file: null, execution_time: 0.25, system_output: null, stack_trace: null },
      ];
      const counts = { total_time: 1.5, total_count: 3, success_count: 1, failed_count: 1, skipped_count: 1, error_count: 0 };
      expect(await api.Pipelines.showTestReport(project.id, id)).toEqual({ ...counts, test_suites: [{ name: 'junit', ...counts, suite_error: null, test_cases: cases }] });
      expect(await api.Pipelines.showTestReportSummary(project.id, id)).toEqual({
        total: { time: 1.5, count: 3, success: 1, failed: 1, skipped: 1, error: 0, suite_error: null },
        test_suites: [{ name: 'junit', ...counts, build_ids: [jobs.junit.id], suite_error: null }],
      });
    } finally {
      await client.dispose();
    }
  }, 240_000);
});
