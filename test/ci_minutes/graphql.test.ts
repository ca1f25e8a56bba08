/**
 * Compute minutes: instance runners' cost factors (set by administrators through runnerUpdate), what a finished job
 * on an instance runner adds to its project's and root namespace's monthly usage (duration × the factor of the
 * project's visibility), once per job, and Query.ciMinutesUsage reading it back to the namespace's Owners only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellRunner } from '../../src/runner/runner.js';
import { CiMinutesService } from '../../src/modules/ci_minutes/service.js';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createUser, type TestUser } from '../support/factories.js';
import { commit, createRunner, eventually, pushPipeline, settledJobs } from '../runners/support.js';
import { createProject } from '../support/factories.js';

const statements: string[] = [];
let counting = false;
const t = suiteServer({}, { onQuery: (sql) => counting && statements.push(sql) });
let runner: ShellRunner | undefined;
let runnerId: number;
let owner: TestUser;
let developer: TestUser;

const NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";
const PRIVATE_FACTOR = 120;
const PUBLIC_FACTOR = 60;

const UPDATE = `mutation($input: RunnerUpdateInput!) {
  runnerUpdate(input: $input) { runner { id privateProjectsMinutesCostFactor publicProjectsMinutesCostFactor } errors }
}`;

const USAGE = `query($namespaceId: NamespaceID, $date: Date) {
  ciMinutesUsage(namespaceId: $namespaceId, date: $date) {
    nodes { month monthIso8601 minutes sharedRunnersDuration projects { count nodes { minutes sharedRunnersDuration name project { id } } } }
  }
}`;

beforeAll(async () => {
  const created = await createRunner(t, { runner_type: 'instance_type', description: 'minutes' });
  runnerId = created.id;
  const set = await t.graphql(UPDATE, { input: { id: `gid://gitlab/Ci::Runner/${runnerId}`, privateProjectsMinutesCostFactor: PRIVATE_FACTOR, publicProjectsMinutesCostFactor: PUBLIC_FACTOR } });
  expect(set.body.data?.runnerUpdate).toEqual({
    runner: { id: `gid://gitlab/Ci::Runner/${runnerId}`, privateProjectsMinutesCostFactor: PRIVATE_FACTOR, publicProjectsMinutesCostFactor: PUBLIC_FACTOR },
    errors: [],
  });
  runner = new ShellRunner({ url: t.url, token: created.token, cloneUrl: t.url, concurrency: 2, checkIntervalMs: 100, updateIntervalMs: 200 });
  runner.start();
  owner = await createUser(t);
  developer = await createUser(t);
});
afterAll(() => runner?.stop());

/** The job's cost as GitLab reckons it: its duration in minutes × the factor, to hundredths. */
function cost(job: { started_at: string; finished_at: string }, factor: number): { amount: number; seconds: number } {
  const seconds = (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;
  return { amount: Math.round((seconds / 60) * factor * 100) / 100, seconds: Math.round(seconds) };
}

describe('cost factors', () => {
  it('are shown with the runner and changed by administrators only, never negative', async () => {
    const read = await t.graphql(`{ runner(id: "gid://gitlab/Ci::Runner/${runnerId}") { privateProjectsMinutesCostFactor publicProjectsMinutesCostFactor } }`);
    expect(read.body.data.runner).toEqual({ privateProjectsMinutesCostFactor: PRIVATE_FACTOR, publicProjectsMinutesCostFactor: PUBLIC_FACTOR });

    const negative = await t.graphql(UPDATE, { input: { id: `gid://gitlab/Ci::Runner/${runnerId}`, publicProjectsMinutesCostFactor: -1 } });
    expect(negative.body.data.runnerUpdate).toEqual({ runner: null, errors: ['Public projects minutes cost factor needs to be non-negative'] });

    // A group's Owner updates the group's runner, but not what its minutes cost.
    const group = await createGroup(t, owner.token);
    const groupRunner = await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'group_type', group_id: group.id } });
    expect(groupRunner.status).toBe(201);
    const own = await t.graphql(UPDATE, { input: { id: `gid://gitlab/Ci::Runner/${groupRunner.body.id}`, description: 'mine' } }, owner.token);
    expect(own.body.data.runnerUpdate.errors).toEqual([]);
    const refused = await t.graphql(UPDATE, { input: { id: `gid://gitlab/Ci::Runner/${groupRunner.body.id}`, privateProjectsMinutesCostFactor: 0 } }, owner.token);
    expect(refused.body.data?.runnerUpdate ?? null).toBeNull();
    expect(refused.body.errors?.[0]?.message).toBe(NOT_AVAILABLE);
    const rest = await t.api('PUT', `/runners/${groupRunner.body.id}`, { token: owner.token, body: { private_projects_minutes_cost_factor: 0 } });
    expect(rest.status).toBe(403);
    const instance = await t.graphql(UPDATE, { input: { id: `gid://gitlab/Ci::Runner/${runnerId}`, privateProjectsMinutesCostFactor: 0 } }, owner.token);
    expect(instance.body.data?.runnerUpdate ?? null).toBeNull();

    const after = await t.graphql(`{ runner(id: "gid://gitlab/Ci::Runner/${runnerId}") { privateProjectsMinutesCostFactor publicProjectsMinutesCostFactor } }`);
    expect(after.body.data.runner).toEqual({ privateProjectsMinutesCostFactor: PRIVATE_FACTOR, publicProjectsMinutesCostFactor: PUBLIC_FACTOR });
  });
});

describe('usage', () => {
  it("adds each finished job's minutes at its project's cost factor to the project and its root namespace, once", async () => {
    const group = await createGroup(t, owner.token, { visibility: 'public' });
    const sub = await createGroup(t, owner.token, { parentId: group.id, visibility: 'public' });
    await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
    const privateProject = await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'private' });
    const publicProject = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
    const config = 'work:\n  script:\n    - sleep 1\n';
    const finished: Record<string, { id: number; started_at: string; finished_at: string }> = {};
    for (const project of [privateProject, publicProject]) {
      const sha = await commit(t, project.id, { '.gitlab-ci.yml': config }, 'main', owner.token);
      const pipeline = await pushPipeline(t, project.id, sha, owner.token);
      const [job] = await settledJobs(t, project.id, pipeline.id);
      expect(job.status).toBe('success');
      finished[project.id] = (await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body;
    }
    const ofPrivate = cost(finished[privateProject.id], PRIVATE_FACTOR);
    const ofPublic = cost(finished[publicProject.id], PUBLIC_FACTOR);
    const namespaceId = `gid://gitlab/Group/${group.id}`;
    const usage = await eventually(async () => {
      const res = await t.graphql(USAGE, { namespaceId }, owner.token);
      expect(res.body.errors).toBeUndefined();
      const [month] = res.body.data?.ciMinutesUsage.nodes ?? [];
      return month?.projects.count === 2 && month;
    });
    const first = new Date(Date.parse(finished[publicProject.id].finished_at));
    const monthIso = `${first.getUTCFullYear()}-${String(first.getUTCMonth() + 1).padStart(2, '0')}-01`;
    expect(usage).toMatchObject({
      month: first.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' }),
      monthIso8601: monthIso,
      minutes: Math.trunc(Math.round((ofPrivate.amount + ofPublic.amount) * 100) / 100),
      sharedRunnersDuration: ofPrivate.seconds + ofPublic.seconds,
    });
    expect(usage.projects.nodes).toEqual(
      expect.arrayContaining([
        { minutes: Math.trunc(ofPrivate.amount), sharedRunnersDuration: ofPrivate.seconds, name: privateProject.name, project: { id: `gid://gitlab/Project/${privateProject.id}` } },
        { minutes: Math.trunc(ofPublic.amount), sharedRunnersDuration: ofPublic.seconds, name: publicProject.name, project: { id: `gid://gitlab/Project/${publicProject.id}` } },
      ]),
    );
    // The private project's minute costs twice the public one's.
    expect(ofPrivate.amount).toBeGreaterThan(ofPublic.amount);

    // Tracking a job again (a retried background job) adds nothing.
    await CiMinutesService.track(t.server.app.db, finished[privateProject.id].id);
    const again = await t.graphql(USAGE, { namespaceId, date: monthIso }, owner.token);
    expect(again.body.data.ciMinutesUsage.nodes).toEqual([usage]);

    // A month without usage is empty.
    const other = await t.graphql(USAGE, { namespaceId, date: '2001-01-01' }, owner.token);
    expect(other.body.data.ciMinutesUsage.nodes).toEqual([]);
  });

  it('is shown to the root namespace’s Owners and administrators only: empty for others, subgroups and anonymous callers', async () => {
    const group = await createGroup(t, owner.token, { visibility: 'public' });
    const sub = await createGroup(t, owner.token, { parentId: group.id, visibility: 'public' });
    await addMember(t, owner.token, 'groups', group.id, developer.id, 30);
    const project = await createProject(t, owner.token, { namespaceId: sub.id, visibility: 'public' });
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'work:\n  script:\n    - sleep 1\n' }, 'main', owner.token);
    await settledJobs(t, project.id, (await pushPipeline(t, project.id, sha, owner.token)).id);
    const namespaceId = `gid://gitlab/Group/${group.id}`;
    await eventually(async () => (await t.graphql(USAGE, { namespaceId }, owner.token)).body.data?.ciMinutesUsage.nodes.length === 1);

    const admin = await t.graphql(USAGE, { namespaceId });
    expect(admin.body.data.ciMinutesUsage.nodes).toHaveLength(1);
    for (const [token, id] of [[developer.token, namespaceId], [owner.token, `gid://gitlab/Group/${sub.id}`], [null, namespaceId]] as const) {
      const res = await t.graphql(USAGE, { namespaceId: id }, token);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.ciMinutesUsage.nodes).toEqual([]);
    }
    // Without a namespace: the caller's personal one (a user's own projects' usage).
    const mine = await t.graphql(USAGE, {}, owner.token);
    expect(mine.body.data.ciMinutesUsage.nodes).toEqual([]);
    const bad = await t.graphql(USAGE, { namespaceId: 'gid://gitlab/Project/1' }, owner.token);
    expect(bad.body.errors?.[0]?.message).toContain('does not represent an instance of Namespace');
  });

  it("counts a personal project's jobs to its owner's namespace", async () => {
    const user = await createUser(t);
    const project = await createProject(t, user.token, { visibility: 'private' });
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'work:\n  script:\n    - sleep 1\n' }, 'main', user.token);
    const [job] = await settledJobs(t, project.id, (await pushPipeline(t, project.id, sha, user.token)).id);
    const detail = (await t.api('GET', `/projects/${project.id}/jobs/${job.id}`)).body;
    const expected = cost(detail, PRIVATE_FACTOR);
    const usage = await eventually(async () => (await t.graphql(USAGE, {}, user.token)).body.data?.ciMinutesUsage.nodes[0]);
    expect(usage).toMatchObject({ minutes: Math.trunc(expected.amount), sharedRunnersDuration: expected.seconds });
    const byId = await t.graphql(USAGE, { namespaceId: `gid://gitlab/Namespaces::UserNamespace/${project.namespace.id}` }, user.token);
    expect(byId.body.data.ciMinutesUsage.nodes).toEqual([usage]);
    expect((await t.graphql(USAGE, {}, null)).body.data.ciMinutesUsage.nodes).toEqual([]);
  });
});

describe('query budget', () => {
  /** Statements one read of the namespace's usage runs. */
  async function statementsToRead(namespaceId: string, token: string): Promise<number> {
    statements.length = 0;
    counting = true;
    const res = await t.graphql(USAGE, { namespaceId }, token);
    counting = false;
    expect(res.body.errors).toBeUndefined();
    return statements.length;
  }

  it('reads as many statements for one month of one project as for three months of three', async () => {
    const db = t.server.app.db;
    const user = await createUser(t);
    const group = await createGroup(t, user.token);
    const projects = [];
    for (let i = 0; i < 3; i++) projects.push(await createProject(t, user.token, { namespaceId: group.id }));
    const months = ['2024-01-01', '2024-02-01', '2024-03-01'].map((d) => new Date(d));
    const record = async (month: Date, projectIds: number[]) => {
      await db.ciNamespaceMonthlyUsage.create({ data: { namespaceId: group.id, date: month, amountUsed: 10, sharedRunnersDuration: 60 } });
      for (const projectId of projectIds) await db.ciProjectMonthlyUsage.create({ data: { projectId, date: month, amountUsed: 5, sharedRunnersDuration: 30 } });
    };
    const namespaceId = `gid://gitlab/Group/${group.id}`;
    await record(months[0], [projects[0].id]);
    await statementsToRead(namespaceId, user.token);
    const one = await statementsToRead(namespaceId, user.token);
    await db.ciProjectMonthlyUsage.createMany({ data: projects.slice(1).map((p) => ({ projectId: p.id, date: months[0], amountUsed: 1, sharedRunnersDuration: 1 })) });
    for (const month of months.slice(1)) await record(month, projects.map((p) => p.id));
    const many = await statementsToRead(namespaceId, user.token);
    expect(many).toBe(one);
    const res = await t.graphql(USAGE, { namespaceId }, user.token);
    expect(res.body.data.ciMinutesUsage.nodes.map((n: { monthIso8601: string; projects: { count: number } }) => [n.monthIso8601, n.projects.count])).toEqual([
      ['2024-03-01', 3],
      ['2024-02-01', 3],
      ['2024-01-01', 3],
    ]);
  });
});
