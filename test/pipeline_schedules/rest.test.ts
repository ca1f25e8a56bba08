/** Pipeline schedules over REST: GitLab's shapes, statuses and errors, the permission matrix, runs, and gitbeaker. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

// Runs only in scheduled pipelines, and shows the schedule's variable.
const CI = 'build:\n  script: echo "$NIGHTLY"\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "schedule"\n';
const LIST_KEYS = ['active', 'created_at', 'cron', 'cron_timezone', 'description', 'id', 'next_run_at', 'owner', 'ref', 'updated_at'];
const DETAIL_KEYS = [...LIST_KEYS, 'last_pipeline', 'variables'].sort();

let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
let project: { id: number };

async function projectWithCi(token: string, visibility = 'private') {
  const created = await createProject(t, token, { visibility });
  const commit = await t.api('POST', `/projects/${created.id}/repository/commits`, {
    token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
  });
  expect(commit.status, commit.text).toBe(201);
  // main is protected (Maintainers push): Developers schedule pipelines of a branch of their own.
  expect((await t.api('POST', `/projects/${created.id}/repository/branches`, { token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
  return created;
}

beforeAll(async () => {
  [owner, maintainer, developer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createUser(t)));
  project = await projectWithCi(owner.token);
  for (const [user, level] of [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]] as const) await addMember(t, owner.token, 'projects', project.id, user.id, level);
});

const path = (suffix = '') => `/projects/${project.id}/pipeline_schedules${suffix}`;

async function createSchedule(token: string, body: Record<string, unknown> = {}) {
  const res = await t.api('POST', path(), { token, body: { description: 'nightly', ref: 'feature', cron: '0 1 * * *', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The id of the next pipeline of the project the server announces (its creation is the first event). */
function nextPipeline(projectId: number): Promise<number> {
  return new Promise((resolve) => {
    const stop = t.server.app.bus.subscribe('ci.pipeline.updated', (message) => {
      const m = message as { pipelineId: number; projectId: number };
      if (m.projectId !== projectId) return;
      stop();
      resolve(m.pipelineId);
    });
  });
}

/** Makes the recurring job that runs due schedules due now, and wakes the job queue. */
async function tickScheduler() {
  await t.server.database.prisma.$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = 'recurring:pipeline_schedules.due' AND "status" = 'queued'`;
  t.server.app.jobs.wake();
}

/** Waits until every queued run of this schedule has finished (a run that creates nothing announces nothing). */
async function runsSettled(scheduleId: number, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await t.server.database.prisma.$queryRaw<{ status: string }[]>`SELECT "status" FROM "jobs" WHERE "uniqueKey" LIKE ${`pipeline_schedules.run:${scheduleId}:%`}`;
    if (rows.length >= count && rows.every((r) => r.status === 'done' || r.status === 'failed')) return;
    if (Date.now() > deadline) throw new Error(`runs of schedule ${scheduleId} did not finish`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('creating', () => {
  it('answers the details with GitLab keys, the ref in full, and the next run in the schedule zone', async () => {
    const res = await t.api('POST', path(), { token: developer.token, body: { description: 'nightly', ref: 'feature', cron: '0 1 * * *', cron_timezone: 'Pacific Time (US & Canada)' } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(DETAIL_KEYS);
    expect(res.body).toMatchObject({ description: 'nightly', ref: 'refs/heads/feature', cron: '0 1 * * *', cron_timezone: 'Pacific Time (US & Canada)', active: true, last_pipeline: null, variables: [] });
    expect(Object.keys(res.body.owner).sort()).toEqual(['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url'].filter((k) => k in res.body.owner).sort());
    expect(res.body.owner.username).toBe(developer.username);
    const next = new Date(res.body.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect([8, 9]).toContain(next.getUTCHours());
    expect(next.getUTCMinutes()).toBe(0);
    expect(res.body.next_run_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('expands a tag, keeps a full ref, and takes active=false', async () => {
    await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1', ref: 'main' } });
    expect((await createSchedule(maintainer.token, { ref: 'v1' })).ref).toBe('refs/tags/v1');
    const full = await createSchedule(maintainer.token, { ref: 'refs/heads/main', active: false, cron_timezone: 'Europe/Berlin' });
    expect(full).toMatchObject({ ref: 'refs/heads/main', active: false, cron_timezone: 'Europe/Berlin' });
  });

  it('refuses bad input with GitLab words', async () => {
    const post = (body: unknown, token = maintainer.token) => t.api('POST', path(), { token, body });
    expect(await post({})).toMatchObject({ status: 400, body: { error: 'description is missing, ref is missing, cron is missing' } });
    expect(await post({ description: 'x', ref: 'main', cron: 'every day' })).toMatchObject({ status: 400, body: { message: { cron: ['is invalid syntax'] } } });
    expect(await post({ description: 'x', ref: 'main', cron: '61 * * * *' })).toMatchObject({ status: 400, body: { message: { cron: ['is invalid syntax'] } } });
    expect(await post({ description: 'x', ref: 'main', cron: '0 0 31 2 *' })).toMatchObject({ status: 400, body: { message: { cron: ['is invalid syntax'] } } });
    expect(await post({ description: 'x', ref: 'main', cron: '* * * * *', cron_timezone: 'Mars/Olympus' })).toMatchObject({ status: 400, body: { message: { cron_timezone: ['is invalid syntax'] } } });
    expect(await post({ description: 'x', ref: 'nope', cron: '* * * * *' })).toMatchObject({ status: 400, body: { message: { ref: ['is ambiguous'] } } });
    expect(await post({ description: 'x', ref: '', cron: '* * * * *' })).toMatchObject({ status: 400, body: { error: 'ref is empty' } });
    expect(await post({ description: '  ', ref: 'main', cron: '* * * * *' })).toMatchObject({ status: 400, body: { message: { description: ["can't be blank"] } } });
    expect(await post({ description: 'x'.repeat(100_000), ref: 'main', cron: '* * * * *' })).toMatchObject({ status: 400, body: { message: { description: ['is too long (maximum is 255 characters)'] } } });
    expect(await post({ description: 'x', ref: `a${'b'.repeat(5000)}`, cron: '* * * * *' })).toMatchObject({ status: 400, body: { message: { ref: ['is ambiguous'] } } });
    expect(await post({ description: 'x', ref: 'main', cron: `${'1,'.repeat(5000)}1 * * * *` })).toMatchObject({ status: 400, body: { message: { cron: ['is invalid syntax'] } } });
    expect(await post({ description: 'x', ref: 'main', cron: '* * * * *', active: 'maybe' })).toMatchObject({ status: 400, body: { error: 'active is invalid' } });
    expect((await post({ description: 'x', ref: 'main', cron: ['*'] })).status).toBe(400);
    const nul = await fetch(`${t.url}/api/v4${path()}`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': maintainer.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ description: 'a\u0000b', ref: 'main', cron: '* * * * *' }),
    });
    expect(nul.status).toBe(400);
    expect((await t.api('GET', path(), { token: owner.token })).body.some((s: { description: string }) => s.description.includes('\u0000'))).toBe(false);
  });

  it('refuses a ambiguous short ref naming both a branch and a tag', async () => {
    await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'both', ref: 'main' } });
    await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'both', ref: 'main' } });
    expect(await t.api('POST', path(), { token: maintainer.token, body: { description: 'x', ref: 'both', cron: '* * * * *' } })).toMatchObject({ status: 400, body: { message: { ref: ['is ambiguous'] } } });
    expect((await createSchedule(maintainer.token, { ref: 'refs/tags/both' })).ref).toBe('refs/tags/both');
  });

  it('refuses a protected branch to a Developer who may not push to it', async () => {
    expect(await t.api('POST', path(), { token: developer.token, body: { description: 'x', ref: 'main', cron: '* * * * *' } })).toMatchObject({
      status: 400,
      body: { message: { base: ['The current user is not authorized to create the pipeline schedule'] } },
    });
  });
});

describe('reading', () => {
  it('lists newest first with pagination headers and the list entity, filtered by scope', async () => {
    const p = await projectWithCi(owner.token);
    const list = (query: string) => t.api('GET', `/projects/${p.id}/pipeline_schedules${query}`, { token: owner.token });
    const a = await t.api('POST', `/projects/${p.id}/pipeline_schedules`, { token: owner.token, body: { description: 'a', ref: 'main', cron: '* * * * *' } });
    const b = await t.api('POST', `/projects/${p.id}/pipeline_schedules`, { token: owner.token, body: { description: 'b', ref: 'main', cron: '* * * * *', active: false } });
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body.map((s: { id: number }) => s.id)).toEqual([b.body.id, a.body.id]);
    expect(Object.keys(all.body[0]).sort()).toEqual(LIST_KEYS);
    expect(all.headers.get('x-total')).toBe('2');
    expect((await list('?scope=active')).body.map((s: { id: number }) => s.id)).toEqual([a.body.id]);
    expect((await list('?scope=inactive')).body.map((s: { id: number }) => s.id)).toEqual([b.body.id]);
    expect(await list('?scope=paused')).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    const page = await list('?per_page=1&page=2');
    expect(page.body.map((s: { id: number }) => s.id)).toEqual([a.body.id]);
    expect(page.headers.get('x-total-pages')).toBe('2');
    expect(page.headers.get('x-prev-page')).toBe('1');
  });

  it('shows one schedule; 404 Pipeline Schedule Not Found for unknown ones and those of another project', async () => {
    const schedule = await createSchedule(maintainer.token);
    const got = await t.api('GET', path(`/${schedule.id}`), { token: maintainer.token });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(DETAIL_KEYS);
    expect(await t.api('GET', path('/999999'), { token: maintainer.token })).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Not Found' } });
    const other = await projectWithCi(maintainer.token);
    expect(await t.api('GET', `/projects/${other.id}/pipeline_schedules/${schedule.id}`, { token: maintainer.token })).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Not Found' } });
    expect((await t.api('GET', path('/abc'), { token: maintainer.token })).status).toBe(400);
  });
});

describe('who may do what', () => {
  it('needs a signed-in user who may read pipelines (a Guest too: public pipelines) to read; variables only for those who administer', async () => {
    const schedule = await createSchedule(developer.token);
    await t.api('POST', path(`/${schedule.id}/variables`), { token: developer.token, body: { key: 'SECRET', value: 's3cr3t' } });
    // `before { authenticate! }`: anonymous callers get 401 before any project is looked up, private or public.
    expect(await t.api('GET', path(), { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await t.api('GET', path(), { token: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // GitLab's ProjectPolicy: `public_builds & guest_access` enables read_pipeline_schedule (public pipelines are the default).
    expect((await t.api('GET', path(), { token: guest.token })).body.map((s: { id: number }) => s.id)).toContain(schedule.id);
    const asGuest = await t.api('GET', path(`/${schedule.id}`), { token: guest.token });
    expect(asGuest.status).toBe(200);
    expect('variables' in asGuest.body).toBe(false);
    expect(await t.api('GET', path(`/${schedule.id}/variables/SECRET`), { token: guest.token })).toMatchObject({ status: 403 });
    expect((await t.api('GET', path(), { token: reporter.token })).status).toBe(200);
    const asReporter = await t.api('GET', path(`/${schedule.id}`), { token: reporter.token });
    expect(asReporter.status).toBe(200);
    expect('variables' in asReporter.body).toBe(false);
    expect((await t.api('GET', path(`/${schedule.id}`), { token: developer.token })).body.variables).toEqual([{ variable_type: 'env_var', key: 'SECRET', value: 's3cr3t', raw: false }]);
    expect((await t.api('GET', path(`/${schedule.id}`), { token: maintainer.token })).body.variables).toHaveLength(1);
    expect(await t.api('GET', path(`/${schedule.id}/variables/SECRET`), { token: reporter.token })).toMatchObject({ status: 403 });
  });

  it('answers 401 to anonymous callers on a public project, whose schedules members still read', async () => {
    const open = await projectWithCi(owner.token, 'public');
    const created = await t.api('POST', `/projects/${open.id}/pipeline_schedules`, { token: owner.token, body: { description: 'x', ref: 'main', cron: '* * * * *' } });
    expect(await t.api('GET', `/projects/${open.id}/pipeline_schedules`, { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await t.api('GET', `/projects/${open.id}/pipeline_schedules/${created.body.id}`, { token: null })).status).toBe(401);
    expect((await t.api('POST', `/projects/${open.id}/pipeline_schedules/${created.body.id}/play`, { token: null })).status).toBe(401);
    const seen = await t.api('GET', `/projects/${open.id}/pipeline_schedules/${created.body.id}`, { token: stranger.token });
    expect(seen.status).toBe(200);
    expect('variables' in seen.body).toBe(false);
  });

  it('lets only the owner change a schedule; Maintainers take it over first', async () => {
    const schedule = await createSchedule(developer.token);
    const put = (token: string, body: unknown) => t.api('PUT', path(`/${schedule.id}`), { token, body });
    expect(await put(maintainer.token, { description: 'mine' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await put(owner.token, { description: 'mine' })).toMatchObject({ status: 403 });
    expect((await put(reporter.token, { description: 'mine' })).status).toBe(403);
    expect((await put(guest.token, { description: 'mine' })).status).toBe(403);
    expect((await put(stranger.token, { description: 'mine' })).status).toBe(404);
    expect((await t.api('POST', path(`/${schedule.id}/take_ownership`), { token: reporter.token })).status).toBe(403);
    const taken = await t.api('POST', path(`/${schedule.id}/take_ownership`), { token: maintainer.token });
    expect(taken.status).toBe(201);
    expect(Object.keys(taken.body).sort()).toEqual(DETAIL_KEYS);
    expect(taken.body.owner.username).toBe(maintainer.username);
    expect(await put(maintainer.token, { description: 'mine' })).toMatchObject({ status: 200, body: { description: 'mine' } });
    expect((await put(developer.token, { description: 'back' })).status).toBe(403);
    expect((await t.api('POST', path(`/${schedule.id}/take_ownership`), { token: developer.token })).status).toBe(403);
  });

  it('deletes for the owner and Maintainers, answering the deleted schedule; its pipelines stay', async () => {
    const schedule = await createSchedule(developer.token);
    const pipeline = nextPipeline(project.id);
    expect((await t.api('POST', path(`/${schedule.id}/play`), { token: developer.token })).status).toBe(201);
    const pipelineId = await pipeline;
    const other = await createSchedule(maintainer.token);
    expect((await t.api('DELETE', path(`/${other.id}`), { token: developer.token })).status).toBe(403);
    const deleted = await t.api('DELETE', path(`/${schedule.id}`), { token: developer.token });
    expect(deleted.status).toBe(200);
    expect(Object.keys(deleted.body).sort()).toEqual(LIST_KEYS);
    expect(deleted.body.id).toBe(schedule.id);
    expect((await t.api('GET', path(`/${schedule.id}`), { token: developer.token })).status).toBe(404);
    expect((await t.api('DELETE', path(`/${schedule.id}`), { token: developer.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`, { token: developer.token })).body.source).toBe('schedule');
    expect((await t.api('DELETE', path(`/${other.id}`), { token: maintainer.token })).status).toBe(200);
  });
});

describe('changing', () => {
  it('reschedules on every change and switches on and off', async () => {
    const schedule = await createSchedule(developer.token, { cron: '0 1 * * *' });
    const updated = await t.api('PUT', path(`/${schedule.id}`), { token: developer.token, body: { cron: '30 4 * * *', cron_timezone: 'Asia/Tokyo', active: false } });
    expect(updated.status).toBe(200);
    expect(Object.keys(updated.body).sort()).toEqual(DETAIL_KEYS);
    expect(updated.body).toMatchObject({ cron: '30 4 * * *', cron_timezone: 'Asia/Tokyo', active: false, description: 'nightly', ref: 'refs/heads/feature' });
    // 04:30 in Tokyo is 19:30 UTC.
    expect(new Date(updated.body.next_run_at).getUTCHours()).toBe(19);
    expect(new Date(updated.body.next_run_at).getUTCMinutes()).toBe(30);
    expect(await t.api('PUT', path(`/${schedule.id}`), { token: developer.token, body: { cron: 'bad' } })).toMatchObject({ status: 400, body: { message: { cron: ['is invalid syntax'] } } });
    expect(await t.api('PUT', path(`/${schedule.id}`), { token: developer.token, body: { ref: 'nowhere' } })).toMatchObject({ status: 400, body: { message: { ref: ['is ambiguous'] } } });
    expect(await t.api('PUT', path(`/${schedule.id}`), { token: developer.token, body: { ref: 'main' } })).toMatchObject({ status: 400, body: { message: { base: ['The current user is not authorized to create the pipeline schedule'] } } });
    expect((await t.api('GET', path(`/${schedule.id}`), { token: developer.token })).body).toMatchObject({ cron: '30 4 * * *', ref: 'refs/heads/feature' });
  });
});

describe('variables', () => {
  it('are created, read, changed and deleted (202 with the variable) by the owner, with GitLab key rules', async () => {
    const schedule = await createSchedule(developer.token);
    const vars = (suffix = '') => path(`/${schedule.id}/variables${suffix}`);
    const created = await t.api('POST', vars(), { token: developer.token, body: { key: 'NIGHTLY', value: 'yes', variable_type: 'file' } });
    expect(created).toMatchObject({ status: 201, body: { variable_type: 'file', key: 'NIGHTLY', value: 'yes', raw: false } });
    expect(Object.keys(created.body).sort()).toEqual(['key', 'raw', 'value', 'variable_type']);
    expect(await t.api('POST', vars(), { token: developer.token, body: { key: 'NIGHTLY', value: 'again' } })).toMatchObject({ status: 400, body: { message: { key: ['has already been taken'] } } });
    expect(await t.api('POST', vars(), { token: developer.token, body: { key: 'K'.repeat(256), value: 'v' } })).toMatchObject({ status: 400, body: { message: { key: ['is too long (maximum is 255 characters)'] } } });
    expect((await t.api('POST', vars(), { token: developer.token, body: { key: 'K'.repeat(255), value: 'v' } })).status).toBe(201);
    expect(await t.api('POST', vars(), { token: developer.token, body: { key: 'NO-DASH', value: 'v' } })).toMatchObject({ status: 400, body: { message: { key: ["can contain only letters, digits and '_'."] } } });
    expect(await t.api('POST', vars(), { token: developer.token, body: { key: 'X', value: 'v', variable_type: 'secret' } })).toMatchObject({ status: 400, body: { error: 'variable_type does not have a valid value' } });
    expect(await t.api('POST', vars(), { token: developer.token, body: { key: 'X' } })).toMatchObject({ status: 400, body: { error: 'value is missing' } });
    expect((await t.api('POST', vars(), { token: maintainer.token, body: { key: 'OTHER', value: 'v' } })).status).toBe(403);
    expect(await t.api('GET', vars('/NIGHTLY'), { token: maintainer.token })).toMatchObject({ status: 200, body: { key: 'NIGHTLY', value: 'yes' } });
    expect(await t.api('PUT', vars('/NIGHTLY'), { token: developer.token, body: { value: 'no' } })).toMatchObject({ status: 200, body: { key: 'NIGHTLY', value: 'no', variable_type: 'file' } });
    expect(await t.api('PUT', vars('/MISSING'), { token: developer.token, body: { value: 'no' } })).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Variable Not Found' } });
    expect(await t.api('GET', vars('/MISSING'), { token: developer.token })).toMatchObject({ status: 404, body: { message: '404 Pipeline Schedule Variable Not Found' } });
    expect((await t.api('PUT', vars('/NIGHTLY'), { token: maintainer.token, body: { value: 'x' } })).status).toBe(403);
    expect(await t.api('DELETE', vars('/NIGHTLY'), { token: developer.token })).toMatchObject({ status: 202, body: { key: 'NIGHTLY', value: 'no', variable_type: 'file', raw: false } });
    expect((await t.api('DELETE', vars('/NIGHTLY'), { token: developer.token })).status).toBe(404);
  });

  it('answer a concurrent duplicate with GitLab validation error, never a 500', async () => {
    const schedule = await createSchedule(developer.token);
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => t.api('POST', path(`/${schedule.id}/variables`), { token: developer.token, body: { key: 'RACE', value: 'v' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual({ message: { key: ['has already been taken'] } });
  });
});

describe('running', () => {
  it('play queues the pipeline as the player, source schedule, with the variables, and keeps the next run', async () => {
    const schedule = await createSchedule(developer.token);
    await t.api('POST', path(`/${schedule.id}/variables`), { token: developer.token, body: { key: 'NIGHTLY', value: 'played' } });
    expect((await t.api('POST', path(`/${schedule.id}/play`), { token: guest.token })).status).toBe(403);
    expect((await t.api('POST', path(`/${schedule.id}/play`), { token: reporter.token })).status).toBe(403);
    const pipeline = nextPipeline(project.id);
    const played = await t.api('POST', path(`/${schedule.id}/play`), { token: maintainer.token });
    expect(played).toMatchObject({ status: 201, body: { message: '201 Created' } });
    expect(Object.keys(played.body)).toEqual(['message']);
    const id = await pipeline;
    const got = await t.api('GET', `/projects/${project.id}/pipelines/${id}`, { token: maintainer.token });
    expect(got.body).toMatchObject({ source: 'schedule', ref: 'feature', tag: false, user: { username: maintainer.username } });
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${id}/variables`, { token: maintainer.token })).body).toEqual([{ variable_type: 'env_var', key: 'NIGHTLY', value: 'played' }]);
    const after = await t.api('GET', path(`/${schedule.id}`), { token: developer.token });
    expect(after.body.next_run_at).toBe(schedule.next_run_at);
    expect(after.body.last_pipeline).toMatchObject({ id, source: 'schedule', ref: 'feature', status: 'pending' });
    expect(Object.keys(after.body.last_pipeline).sort()).toEqual(['created_at', 'id', 'iid', 'project_id', 'ref', 'sha', 'source', 'status', 'updated_at', 'web_url']);
    const pipelines = await t.api('GET', path(`/${schedule.id}/pipelines`), { token: reporter.token });
    expect(pipelines.status).toBe(200);
    expect(pipelines.body.map((p: { id: number }) => p.id)).toEqual([id]);
    // Ci::PipelineBasicWithMetadata: the basic keys and the pipeline's name (null without workflow:name).
    expect(Object.keys(pipelines.body[0]).sort()).toEqual(['created_at', 'id', 'iid', 'name', 'project_id', 'ref', 'sha', 'source', 'status', 'updated_at', 'web_url']);
    expect(pipelines.headers.get('x-total')).toBe('1');
    const filtered = (query: string) => t.api('GET', path(`/${schedule.id}/pipelines${query}`), { token: reporter.token });
    expect((await filtered('?status=pending&sort=desc')).body.map((p: { id: number }) => p.id)).toEqual([id]);
    expect((await filtered('?status=success')).body).toEqual([]);
    expect((await filtered('?status=nope')).status).toBe(400);
  });

  it('play refuses a protected ref to a Developer who may not push to it', async () => {
    const schedule = await createSchedule(maintainer.token, { ref: 'main' });
    expect(await t.api('POST', path(`/${schedule.id}/play`), { token: developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('a due schedule creates its pipeline as its owner, once, and moves to its next time', async () => {
    const schedule = await createSchedule(developer.token, { cron: '*/5 * * * *' });
    await t.api('POST', path(`/${schedule.id}/variables`), { token: developer.token, body: { key: 'NIGHTLY', value: 'due' } });
    const inactive = await createSchedule(developer.token, { active: false });
    const past = new Date(Date.now() - 60_000);
    await t.server.database.prisma.pipelineSchedule.updateMany({ where: { id: { in: [schedule.id, inactive.id] } }, data: { nextRunAt: past } });
    const pipeline = nextPipeline(project.id);
    await tickScheduler();
    const id = await pipeline;
    await runsSettled(schedule.id, 1);
    const got = await t.api('GET', `/projects/${project.id}/pipelines/${id}`, { token: developer.token });
    expect(got.body).toMatchObject({ source: 'schedule', ref: 'feature', user: { username: developer.username } });
    const jobs = await t.api('GET', `/projects/${project.id}/pipelines/${id}/jobs`, { token: developer.token });
    expect(jobs.body.map((j: { name: string }) => j.name)).toEqual(['build']);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${id}/variables`, { token: developer.token })).body).toEqual([{ variable_type: 'env_var', key: 'NIGHTLY', value: 'due' }]);
    const after = (await t.api('GET', path(`/${schedule.id}`), { token: developer.token })).body;
    const next = new Date(after.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(next.getUTCMinutes() % 5).toBe(0);
    expect(after.last_pipeline.id).toBe(id);
    // The inactive one neither ran nor moved.
    expect((await t.api('GET', path(`/${inactive.id}/pipelines`), { token: developer.token })).body).toEqual([]);
    expect((await t.api('GET', path(`/${inactive.id}`), { token: developer.token })).body.next_run_at).toBe(past.toISOString());
    // Another tick finds nothing due: still one pipeline.
    await tickScheduler();
    await runsSettled(schedule.id, 1);
    expect((await t.api('GET', path(`/${schedule.id}/pipelines`), { token: developer.token })).body).toHaveLength(1);
  });

  it('due schedules whose owner may no longer run them (ref now protected, owner blocked) create nothing and move on', async () => {
    await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'guarded', ref: 'main' } });
    const guarded = await createSchedule(developer.token, { ref: 'guarded' });
    expect((await t.api('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'guarded', push_access_level: 40, merge_access_level: 40 } })).status).toBe(201);
    const blocked = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, blocked.id, 30);
    const orphan = await createSchedule(blocked.token);
    expect((await t.api('POST', `/users/${blocked.id}/block`, { token: t.rootToken })).status).toBe(201);
    const past = new Date(Date.now() - 60_000);
    await t.server.database.prisma.pipelineSchedule.updateMany({ where: { id: { in: [guarded.id, orphan.id] } }, data: { nextRunAt: past } });
    await tickScheduler();
    await runsSettled(guarded.id, 1);
    await runsSettled(orphan.id, 1);
    for (const schedule of [guarded, orphan]) {
      expect((await t.api('GET', path(`/${schedule.id}/pipelines`), { token: owner.token })).body).toEqual([]);
      expect(new Date((await t.api('GET', path(`/${schedule.id}`), { token: owner.token })).body.next_run_at).getTime()).toBeGreaterThan(Date.now());
    }
  });
});

describe('gitbeaker', () => {
  it('drives schedules and their variables', async () => {
    const api = new Gitlab({ host: t.url, token: developer.token });
    const created = await api.PipelineSchedules.create(project.id, 'from gitbeaker', 'feature', '0 3 * * 1-5', { cronTimezone: 'Europe/Berlin' });
    expect(created).toMatchObject({ description: 'from gitbeaker', ref: 'refs/heads/feature', cron_timezone: 'Europe/Berlin' });
    expect((await api.PipelineSchedules.all(project.id, { scope: 'active' })).map((s) => s.id)).toContain(created.id);
    expect((await api.PipelineSchedules.show(project.id, created.id)).id).toBe(created.id);
    expect(await api.PipelineSchedules.edit(project.id, created.id, { description: 'edited' })).toMatchObject({ description: 'edited' });
    const variable = await api.PipelineScheduleVariables.create(project.id, created.id, 'GB', 'one');
    expect(variable).toMatchObject({ key: 'GB', value: 'one' });
    expect(await api.PipelineScheduleVariables.edit(project.id, created.id, 'GB', 'two')).toMatchObject({ value: 'two' });
    await api.PipelineScheduleVariables.remove(project.id, created.id, 'GB');
    const pipeline = nextPipeline(project.id);
    await api.PipelineSchedules.run(project.id, created.id);
    await pipeline;
    expect(await api.PipelineSchedules.allTriggeredPipelines(project.id, created.id)).toHaveLength(1);
    await new Gitlab({ host: t.url, token: maintainer.token }).PipelineSchedules.takeOwnership(project.id, created.id);
    await api.PipelineSchedules.remove(project.id, created.id).catch((e: { cause?: { response?: { status: number } } }) => expect(e.cause?.response?.status).toBe(403));
    await new Gitlab({ host: t.url, token: maintainer.token }).PipelineSchedules.remove(project.id, created.id);
    expect((await api.PipelineSchedules.all(project.id)).map((s) => s.id)).not.toContain(created.id);
  });
});
