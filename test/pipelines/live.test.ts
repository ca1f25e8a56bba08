/**
 * Live updates over graphql-ws, driven by a runner speaking the runner protocol: a job's log as it grows
 * (jobTraceUpdated: in order, once, masked, cut into bounded updates, then complete), who may subscribe, subscribers
 * whose access is removed, and transitions made on one replica heard on another (PostgreSQL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestServer, suiteServer, type TestServer } from '../support/server.js';
import { addMember, createUser, createProject, unique, type TestUser } from '../support/factories.js';
import { commit, createRunner, eventually, pushPipeline, requestJob, runnerCall, RUNNER_INFO } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 0 });

const ONE_JOB = 'build:\n  script: echo build\n';
const TRACE_QUERY = 'subscription($id: ID!) { jobTraceUpdated(jobId: $id) { job { id status } offset content size complete } }';
const MAX_UPDATE_BYTES = 64 * 1024;

interface TraceUpdate {
  job: { id: string; status: string };
  offset: number;
  content: string;
  size: number;
  complete: boolean;
}

/** One graphql-ws subscription's messages, with promises for what a test waits on. */
class Subscription<T> {
  readonly values: T[] = [];
  readonly errors: unknown[] = [];
  private waiters: (() => void)[] = [];
  readonly done: Promise<void>;
  private dispose: () => void = () => {};

  constructor(client: Client, query: string, variables: Record<string, unknown>, field: string) {
    this.done = new Promise((resolve) => {
      this.dispose = client.subscribe<Record<string, T>>(
        { query, variables },
        {
          next: (msg) => {
            if (msg.errors) this.errors.push(...msg.errors);
            const value = msg.data?.[field];
            if (value) this.values.push(value);
            for (const wake of this.waiters.splice(0)) wake();
          },
          error: (err) => {
            this.errors.push(...(Array.isArray(err) ? err : [err]));
            resolve();
          },
          complete: () => resolve(),
        },
      );
    });
  }

  /** Resolves once `test` holds of the values heard so far, or rejects after `ms`. */
  until(test: (values: T[]) => boolean, ms = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not heard in time: ${JSON.stringify(this.values).slice(0, 500)}`)), ms);
      const check = () => {
        if (test(this.values)) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      check();
    });
  }

  close(): void {
    this.dispose();
  }
}

const clients: Client[] = [];
function wsClient(server: TestServer, token: string): Client {
  const client = createClient({ url: `${server.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { 'PRIVATE-TOKEN': token }, retryAttempts: 0, lazy: true });
  clients.push(client);
  return client;
}
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
});

/** Appends raw bytes to a job's log as a runner does. */
async function patch(server: TestServer, job: { id: number; token: string }, offset: number, bytes: Buffer | string): Promise<number> {
  const body = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  const res = await fetch(`${server.url}/api/v4/jobs/${job.id}/trace`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'text/plain', 'JOB-TOKEN': job.token, 'Content-Range': `${offset}-${offset + body.length - 1}` },
    body,
  });
  expect(res.status, await res.text()).toBe(202);
  return offset + body.length;
}

/** A project (private unless said otherwise) whose push pipeline has one job, claimed by a project runner. */
async function runningJob(server: TestServer, config = ONE_JOB, visibility = 'private') {
  const project = await createProject(server, server.rootToken, { visibility });
  const sha = await commit(server, project.id, { '.gitlab-ci.yml': config });
  const pipeline = await pushPipeline(server, project.id, sha);
  const runner = await createRunner(server, { project_id: project.id });
  const job: { id: number; token: string } = await requestJob(server, runner.token);
  return { project, pipeline, job };
}

/**
 * graphql-ws does not acknowledge a subscription: appends lines until the subscriber hears one, so that it listens
 * for what follows. The log's size in runner bytes afterwards.
 */
async function untilHeard(server: TestServer, job: { id: number; token: string }, sub: Subscription<TraceUpdate>): Promise<number> {
  let size = 0;
  for (let i = 0; sub.values.length === 0; i++) {
    if (i > 80) throw new Error('the subscriber never heard the log');
    size = await patch(server, job, size, `warm-up ${i}\n`);
    await sub.until((v) => v.length > 0, 100).catch(() => undefined);
  }
  // Every warm-up line sent is heard before what follows (a slow machine may deliver the last ones late).
  await sub.until((v) => v.at(-1)!.size === size);
  return size;
}

/** The updates tile the log from the first one's offset: each starts where the previous one ended. */
function expectTiled(updates: TraceUpdate[]): void {
  for (let i = 1; i < updates.length; i++) expect(updates[i].offset, `update ${i}`).toBe(updates[i - 1].size);
  for (const u of updates) expect(u.size - u.offset).toBe(Buffer.byteLength(u.content));
}

/** Removes a project membership through the members API, as a Maintainer would. */
async function removeMember(server: TestServer, projectId: number, userId: number): Promise<void> {
  const res = await server.api('DELETE', `/projects/${projectId}/members/${userId}`);
  expect(res.status).toBe(204);
}

const trace = async (server: TestServer, projectId: number, jobId: number) => (await server.api('GET', `/projects/${projectId}/jobs/${jobId}/trace`)).text;

describe('jobTraceUpdated', () => {
  it('streams every append in order, once, masked and in bounded updates, then completes with the final status', async () => {
    const { project, job } = await runningJob(t);
    const sub = new Subscription<TraceUpdate>(wsClient(t, t.rootToken), TRACE_QUERY, { id: `gid://gitlab/Ci::Build/${job.id}` }, 'jobTraceUpdated');
    let size = await untilHeard(t, job, sub);
    const heardFrom = sub.values.length;

    // A masked value (the job's token), a character split between two patches, a patch larger than one update.
    size = await patch(t, job, size, `token ${job.token} end\n`);
    const e = Buffer.from('é\n');
    size = await patch(t, job, size, Buffer.concat([Buffer.from('caf'), e.subarray(0, 1)]));
    size = await patch(t, job, size, e.subarray(1));
    const big = `${'ü'.repeat(50_000)}\n${'x'.repeat(60_000)}\n`;
    size = await patch(t, job, size, big);
    expect((await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' })).status).toBe(200);
    await sub.done;

    expect(sub.errors).toEqual([]);
    const updates = sub.values;
    expectTiled(updates);
    const last = updates[updates.length - 1];
    expect(last).toEqual({ job: { id: `gid://gitlab/Ci::Build/${job.id}`, status: 'SUCCESS' }, offset: last.size, content: '', size: last.size, complete: true });
    expect(updates.slice(0, -1).every((u) => !u.complete && u.job.status === 'RUNNING')).toBe(true);
    expect(updates.every((u) => Buffer.byteLength(u.content) <= MAX_UPDATE_BYTES)).toBe(true);
    const stored = await trace(t, project.id, job.id);
    expect(Buffer.byteLength(stored)).toBe(last.size);
    const heard = updates.map((u) => u.content).join('');
    expect(Buffer.from(stored).subarray(updates[0].offset).toString()).toBe(heard);
    const after = updates.slice(heardFrom).map((u) => u.content).join('');
    expect(after).toBe(`token [MASKED] end\ncafé\n${big}`);
    expect(heard).not.toContain(job.token);
    expect(updates.filter((u) => u.content.includes('ü')).length).toBeGreaterThan(1);
  });

  it('answers a finished job at once with its last update and ends', async () => {
    const { project, job } = await runningJob(t);
    const size = await patch(t, job, 0, 'all done\n');
    await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'failed', failure_reason: 'script_failure' });
    const sub = new Subscription<TraceUpdate>(wsClient(t, t.rootToken), TRACE_QUERY, { id: String(job.id) }, 'jobTraceUpdated');
    await sub.done;
    expect(sub.values).toEqual([{ job: { id: `gid://gitlab/Ci::Build/${job.id}`, status: 'FAILED' }, offset: size, content: '', size, complete: true }]);
    expect(await trace(t, project.id, job.id)).toBe('all done\n');
  });

  it('completes when the job is canceled through the API', async () => {
    const { project, job } = await runningJob(t);
    const sub = new Subscription<TraceUpdate>(wsClient(t, t.rootToken), TRACE_QUERY, { id: String(job.id) }, 'jobTraceUpdated');
    await untilHeard(t, job, sub);
    expect((await t.api('POST', `/projects/${project.id}/jobs/${job.id}/cancel`)).status).toBe(201);
    await sub.done;
    expect(sub.values.at(-1)).toMatchObject({ job: { status: 'CANCELED' }, content: '', complete: true });
  });

  describe('who may subscribe', () => {
    let outsider: TestUser;
    let guest: TestUser;
    let developer: TestUser;
    beforeAll(async () => {
      [outsider, guest, developer] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
    });

    const firstError = async (token: string, jobId: number | string) => {
      const sub = new Subscription<TraceUpdate>(wsClient(t, token), TRACE_QUERY, { id: String(jobId) }, 'jobTraceUpdated');
      await sub.done;
      return sub.errors[0] as { message: string; extensions?: { code?: string } } | undefined;
    };

    it('hides a private project\'s job from non-members and refuses bad IDs', async () => {
      const { job } = await runningJob(t);
      expect((await firstError(outsider.token, job.id))?.extensions?.code).toBe('NOT_FOUND');
      expect((await firstError(t.rootToken, 2_147_483_647))?.extensions?.code).toBe('NOT_FOUND');
      expect((await firstError(t.rootToken, 'gid://gitlab/Ci::Pipeline/1'))?.extensions?.code).toBe('BAD_USER_INPUT');
      expect((await firstError(t.rootToken, 'x\u0000y'))?.extensions?.code).toBe('BAD_USER_INPUT');
      const anonymous = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
      clients.push(anonymous);
      const sub = new Subscription<TraceUpdate>(anonymous, TRACE_QUERY, { id: String(job.id) }, 'jobTraceUpdated');
      await sub.done;
      expect(sub.values).toEqual([]);
      expect(sub.errors.length).toBe(1);
    });

    it('shows a debug-mode job\'s log to Developers, not to Guests (read_build_trace)', async () => {
      const { project, job } = await runningJob(t, 'variables:\n  CI_DEBUG_TRACE: "true"\nbuild:\n  script: echo build\n');
      await addMember(t, t.rootToken, 'projects', project.id, guest.id, 10);
      await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
      expect(await firstError(guest.token, job.id)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
      const sub = new Subscription<TraceUpdate>(wsClient(t, developer.token), TRACE_QUERY, { id: String(job.id) }, 'jobTraceUpdated');
      await untilHeard(t, job, sub);
      expect(sub.errors).toEqual([]);
      sub.close();
    });

    it('stops a subscriber whose membership is removed, while others go on hearing', async () => {
      const { project, job } = await runningJob(t);
      const member = await createUser(t);
      await addMember(t, t.rootToken, 'projects', project.id, member.id, 30);
      const removed = new Subscription<TraceUpdate>(wsClient(t, member.token), TRACE_QUERY, { id: String(job.id) }, 'jobTraceUpdated');
      const root = new Subscription<TraceUpdate>(wsClient(t, t.rootToken), TRACE_QUERY, { id: String(job.id) }, 'jobTraceUpdated');
      const size = await untilHeard(t, job, removed);
      await root.until((v) => v.length > 0);
      await removeMember(t, project.id, member.id);
      await patch(t, job, size, 'after removal\n');
      await root.until((v) => v.some((u) => u.content === 'after removal\n'));
      await removed.done;
      expect(removed.values.some((u) => u.content.includes('after removal'))).toBe(false);

    });
  });
});

/**
 * Until every subscription listens: cancel and retry (each a transition all hear, by `token`: root unless said), then
 * wait until each heard the pipeline pending again.
 */
async function untilAllHear(projectId: number, pipelineId: number, subs: Subscription<{ status: string }>[], token?: string) {
  const last = subs[subs.length - 1];
  for (let i = 0; subs.some((sub) => sub.values.length === 0); i++) {
    if (i > 40) throw new Error('the subscribers never heard the pipeline');
    await t.api('POST', `/projects/${projectId}/pipelines/${pipelineId}/cancel`, { token });
    await t.api('POST', `/projects/${projectId}/pipelines/${pipelineId}/retry`, { token });
    await last.until((v) => v.length > 0, 200).catch(() => undefined);
  }
  await eventually(async () => subs.every((sub) => sub.values.at(-1)?.status === 'PENDING'));
}

describe('pipeline statuses while access changes', () => {
  it('ends a pipeline subscription when the subscriber loses access, and keeps delivering to others', async () => {
    const { project, pipeline } = await runningJob(t, 'stages: [a, b]\na:\n  stage: a\n  script: echo\nb:\n  stage: b\n  script: echo\n');
    const member = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, member.id, 30);
    const query = 'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { id status } }';
    const removed = new Subscription<{ status: string }>(wsClient(t, member.token), query, { id: String(pipeline.id) }, 'ciPipelineStatusUpdated');
    const root = new Subscription<{ status: string }>(wsClient(t, t.rootToken), query, { id: String(pipeline.id) }, 'ciPipelineStatusUpdated');
    await untilAllHear(project.id, pipeline.id, [removed, root]);
    const heard = removed.values.length;
    await removeMember(t, project.id, member.id);
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`)).status).toBe(200);
    await root.until((v) => v.at(-1)?.status === 'CANCELED');
    await removed.done;
    expect(removed.values.length).toBe(heard);
  });
});

describe('pipeline statuses while the project changes', () => {
  it('ends a non-member\'s subscription to a public project\'s pipeline when the project turns private', async () => {
    const { project, pipeline } = await runningJob(t, 'stages: [a, b]\na:\n  stage: a\n  script: echo\nb:\n  stage: b\n  script: echo\n', 'public');
    const outsider = await createUser(t);
    const query = 'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { id status } }';
    const shut = new Subscription<{ status: string }>(wsClient(t, outsider.token), query, { id: String(pipeline.id) }, 'ciPipelineStatusUpdated');
    const root = new Subscription<{ status: string }>(wsClient(t, t.rootToken), query, { id: String(pipeline.id) }, 'ciPipelineStatusUpdated');
    await untilAllHear(project.id, pipeline.id, [shut, root]);
    const heard = shut.values.length;
    expect((await t.api('PUT', `/projects/${project.id}`, { body: { visibility: 'private' } })).status).toBe(200);
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`)).status).toBe(200);
    await root.until((v) => v.at(-1)?.status === 'CANCELED');
    await shut.done;
    expect(shut.values.length).toBe(heard);
  });
});

describe('pipeline statuses over a long-lived connection', () => {
  it('shows each event with the rows as they are then, not as the connection first read them', async () => {
    const owner = await createUser(t);
    const project = await createProject(t, owner.token);
    await commit(t, project.id, { '.gitlab-ci.yml': 'stages: [a, b]\na:\n  stage: a\n  script: echo\nb:\n  stage: b\n  script: echo\n' });
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'main' } });
    expect(created.status).toBe(201);
    const query = 'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { id status user { username } } }';
    const sub = new Subscription<{ status: string; user: { username: string } }>(wsClient(t, owner.token), query, { id: String(created.body.id) }, 'ciPipelineStatusUpdated');
    // main is protected: its pipelines are written by members, not by an administrator who is none.
    await untilAllHear(project.id, created.body.id, [sub], owner.token);
    expect(sub.values.at(-1)!.user.username).toBe(owner.username);
    const renamed = unique('renamed');
    expect((await t.api('PUT', `/users/${owner.id}`, { body: { username: renamed } })).status).toBe(200);
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${created.body.id}/cancel`, { token: owner.token })).status).toBe(200);
    await sub.until((v) => v.at(-1)?.status === 'CANCELED');
    expect(sub.values.at(-1)!.user.username).toBe(renamed);
    sub.close();
  });
});

describe('two replicas (PostgreSQL)', () => {
  it('delivers every transition made on replica A, in order and once, to a subscriber on replica B', async (ctx) => {
    if (!t.databaseUrl) return ctx.skip();
    const b = await startTestServer({ ciLongPollingMs: 0 }, { replicaOf: t });
    try {
      const project = await createProject(t, t.rootToken);
      const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'stages: [build, test]\nbuild:\n  stage: build\n  script: echo\ntest:\n  stage: test\n  script: echo\n' });
      const pipeline = await pushPipeline(t, project.id, sha);
      const runner = await createRunner(t, { project_id: project.id });
      const sub = new Subscription<{ status: string }>(
        wsClient(b, b.rootToken),
        'subscription($id: ID!) { ciPipelineStatusUpdated(pipelineId: $id) { id status } }',
        { id: `gid://gitlab/Ci::Pipeline/${pipeline.id}` },
        'ciPipelineStatusUpdated',
      );
      for (let i = 0; sub.values.length === 0; i++) {
        if (i > 40) throw new Error('replica B never heard the pipeline');
        await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`);
        await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/retry`);
        await sub.until((v) => v.length > 0, 200).catch(() => undefined);
      }
      await sub.until((v) => v.at(-1)?.status === 'PENDING');
      const from = sub.values.length;

      const put = (job: { id: number; token: string }, state: string) => runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state, failure_reason: 'script_failure' });
      const build = await requestJob(t, runner.token);
      expect((await put(build, 'success')).status).toBe(200);
      const test = await requestJob(t, runner.token);
      expect((await put(test, 'failed')).status).toBe(200);
      expect((await t.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/retry`)).status).toBe(201);
      const again = await requestJob(t, runner.token);
      expect((await put(again, 'success')).status).toBe(200);
      await sub.until((v) => v.at(-1)?.status === 'SUCCESS');
      // After the retry the finished build and the pending test compose `running` at once (GitLab's composite status).
      expect(sub.values.slice(from).map((v) => v.status)).toEqual(['RUNNING', 'FAILED', 'RUNNING', 'SUCCESS']);
      expect(sub.errors).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
