/** What the runners tests share: projects with a CI configuration and their push pipeline, runners, and a runner's calls written with fetch. */
import { afterAll, beforeAll, expect } from 'vitest';
import { ShellRunner } from '../../src/runner/runner.js';
import type { TestServer } from '../support/server.js';
import { createProject } from '../support/factories.js';
import { eventually } from '../support/wait.js';

/** Waits for what a background job or another request makes (the push pipeline, a job's next status). */
export { eventually };

/** Commits files to a branch through the API; the commit's sha. */
export async function commit(t: TestServer, projectId: number, files: Record<string, string>, branch = 'main', token = t.rootToken): Promise<string> {
  const tree = await t.api('GET', `/projects/${projectId}/repository/tree?ref=${branch}&recursive=true&per_page=100`, { token });
  const existing = new Set(tree.status === 200 ? (tree.body as { path: string }[]).map((e) => e.path) : []);
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: existing.has(file_path) ? 'update' : 'create', file_path, content }));
  const res = await t.api('POST', `/projects/${projectId}/repository/commits`, { token, body: { branch, commit_message: 'CI', actions } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** The push pipeline of a commit, once the push's background job made it. */
export function pushPipeline(t: TestServer, projectId: number, sha: string, token = t.rootToken): Promise<{ id: number; status: string; sha: string; ref: string }> {
  return eventually(async () => (await t.api('GET', `/projects/${projectId}/pipelines?sha=${sha}`, { token })).body[0]);
}

/** A new project whose first commit is `config`, with that commit's push pipeline. */
export async function projectWithConfig(t: TestServer, config: string, options: { visibility?: string; token?: string; files?: Record<string, string> } = {}) {
  const token = options.token ?? t.rootToken;
  const project = await createProject(t, token, { visibility: options.visibility });
  const sha = await commit(t, project.id, { '.gitlab-ci.yml': config, ...options.files }, 'main', token);
  const pipeline = await pushPipeline(t, project.id, sha, token);
  return { project, pipeline, sha };
}

/** A job's status once it changes no more by itself (`manual` waits for someone). */
const SETTLED = ['success', 'failed', 'canceled', 'skipped', 'manual'];

/** The pipeline's jobs once none is waiting or running. */
export function settledJobs(t: TestServer, projectId: number, pipelineId: number, timeoutMs = 60_000): ReturnType<typeof jobsOf> {
  return eventually(async () => {
    const jobs = await jobsOf(t, projectId, pipelineId);
    return jobs.every((j) => SETTLED.includes(j.status)) && jobs;
  }, timeoutMs);
}

/** A job's log as the API gives it. */
export async function jobLog(t: TestServer, projectId: number, jobId: number): Promise<string> {
  return (await t.api('GET', `/projects/${projectId}/jobs/${jobId}/trace`)).text;
}

export async function jobsOf(t: TestServer, projectId: number, pipelineId: number): Promise<{ id: number; name: string; status: string; stage: string; failure_reason?: string; allow_failure: boolean; coverage: number | null }[]> {
  const res = await t.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?include_retried=true&per_page=100`);
  expect(res.status).toBe(200);
  return res.body;
}

/** A runner made through `POST /user/runners` (a project runner of `projectId` unless said otherwise); its id and token. */
export async function createRunner(t: TestServer, body: Record<string, unknown>): Promise<{ id: number; token: string }> {
  const res = await t.api('POST', '/user/runners', { body: { runner_type: 'project_type', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A call of the runner protocol, as GitLab Runner makes it: no user token; JSON bodies sent as JSON, strings as they are. */
export function runnerCall(t: TestServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return t.api(method, path, { token: null, body, headers });
}

export const RUNNER_INFO = { name: 'gitlab-runner', version: '17.5.0', revision: 'abcdef12', platform: 'linux', architecture: 'amd64', executor: 'shell', features: { trace_sections: true } };

/** `POST /jobs/request` until a job comes (the queue may still be settling); the job. */
export async function requestJob(t: TestServer, token: string): Promise<any> {
  return eventually(async () => {
    const res = await runnerCall(t, 'POST', '/jobs/request', { token, info: RUNNER_INFO });
    if (res.status === 201) return res.body;
    expect(res.status, res.text).toBe(204);
    return null;
  });
}

/** The built-in shell runner as an instance runner of the file's server, polling briskly, stopped after the file. */
export function withShellRunner(t: TestServer): void {
  let runner: ShellRunner | undefined;
  beforeAll(async () => {
    const { token } = await createRunner(t, { runner_type: 'instance_type', description: 'built-in shell' });
    runner = new ShellRunner({ url: t.url, token, cloneUrl: t.url, concurrency: 2, checkIntervalMs: 100, updateIntervalMs: 200 });
    runner.start();
  });
  afterAll(() => runner?.stop());
}
