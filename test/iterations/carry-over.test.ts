/**
 * An issue's iteration across moves and clones (kept when the target project's group has the iteration, as GitLab
 * does), and the roll-over of closed iterations' open issues to the cadence's next open iteration
 * (Iterations::RollOverIssuesService, run by the iterations' recurring job) where the cadence rolls over.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';
import { DUE_CADENCES_JOB } from '../../src/modules/iterations/jobs.js';

const t = suiteServer();
const DAY = 86_400_000;
const utcToday = () => new Date(new Date().toISOString().slice(0, 10));
const day = (offset: number) => new Date(utcToday().getTime() + offset * DAY).toISOString().slice(0, 10);

let owner: TestUser;
let group: { id: number; full_path: string };

const gql = async (query: string, variables: Record<string, unknown>) => {
  const res = await t.graphql(query, variables, owner.token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
};
const CADENCE = `mutation($input: IterationCadenceCreateInput!) { iterationCadenceCreate(input: $input) { errors iterationCadence { id } } }`;
const ITERATION = `mutation($input: iterationCreateInput!) { iterationCreate(input: $input) { errors iteration { id } } }`;
const numeric = (gid: string) => Number(gid.split('/').pop());

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token);
});

describe('moving and cloning an issue', () => {
  let iteration: string;
  let source: { id: number; path_with_namespace: string };
  let sibling: { id: number };
  let elsewhere: { id: number };

  beforeAll(async () => {
    const subgroup = await createGroup(t, owner.token, { parentId: group.id });
    const cadence = await gql(CADENCE, { input: { groupPath: group.full_path, title: 'Manual', automatic: false, active: true } });
    const made = await gql(ITERATION, { input: { groupPath: group.full_path, iterationsCadenceId: cadence.iterationCadenceCreate.iterationCadence.id, startDate: day(-1), dueDate: day(5) } });
    iteration = made.iterationCreate.iteration.id;
    source = await createProject(t, owner.token, { namespaceId: group.id });
    sibling = await createProject(t, owner.token, { namespaceId: subgroup.id });
    elsewhere = await createProject(t, owner.token, { namespaceId: (await createGroup(t, owner.token)).id });
  });

  const issueInIteration = async (title: string) => {
    const issue = await apiOk(t, owner.token, 'POST', `/projects/${source.id}/issues`, { title });
    await gql(`mutation($p: ID!, $iid: String!, $it: IterationID) { issueSetIteration(input: { projectPath: $p, iid: $iid, iterationId: $it }) { errors } }`, {
      p: source.path_with_namespace,
      iid: String(issue.iid),
      it: iteration,
    });
    return issue;
  };

  it('keeps the iteration when the target project is in the iteration’s group or below it', async () => {
    const moved = await apiOk(t, owner.token, 'POST', `/projects/${source.id}/issues/${(await issueInIteration('move me')).iid}/move`, { to_project_id: sibling.id });
    expect(moved.iteration).toMatchObject({ id: numeric(iteration) });
    const cloned = await apiOk(t, owner.token, 'POST', `/projects/${source.id}/issues/${(await issueInIteration('clone me')).iid}/clone`, { to_project_id: sibling.id });
    expect(cloned.iteration).toMatchObject({ id: numeric(iteration) });
    // Its iteration event, so the iteration's report counts it.
    const events = await t.server.database.prisma.resourceIterationEvent.findMany({ where: { issueId: { in: [moved.id, cloned.id] } } });
    expect(events.map((e) => [e.issueId, e.iterationId, e.action]).sort()).toEqual([[moved.id, numeric(iteration), 'add'], [cloned.id, numeric(iteration), 'add']].sort());
  });

  it('drops the iteration when the target project’s groups do not have it', async () => {
    const moved = await apiOk(t, owner.token, 'POST', `/projects/${source.id}/issues/${(await issueInIteration('far')).iid}/move`, { to_project_id: elsewhere.id });
    expect(moved.iteration).toBeNull();
    const cloned = await apiOk(t, owner.token, 'POST', `/projects/${source.id}/issues/${(await issueInIteration('far clone')).iid}/clone`, { to_project_id: elsewhere.id });
    expect(cloned.iteration).toBeNull();
  });
});

describe('rolling over a closed iteration’s open issues', () => {
  it('moves them to the cadence’s next open iteration when the cadence rolls over, and leaves other cadences alone', async () => {
    const project = await createProject(t, owner.token, { namespaceId: group.id });
    const db = t.server.database.prisma;
    /** An automatic cadence starting today, scheduled by its job, with two iterations before today added as fixtures. */
    const automatic = async (title: string, rollOver: boolean) => {
      const made = await gql(CADENCE, { input: { groupPath: group.full_path, title, automatic: true, active: true, rollOver, startDate: day(0), durationInWeeks: 1, iterationsInAdvance: 1 } });
      expect(made.iterationCadenceCreate.errors).toEqual([]);
      const cadenceId = numeric(made.iterationCadenceCreate.iterationCadence.id);
      await eventually(async () => (await db.iteration.count({ where: { iterationsCadenceId: cadenceId } })) >= 2);
      for (const [start, due] of [[-14, -8], [-7, -1]]) {
        const { _max } = await db.iteration.aggregate({ where: { groupId: group.id }, _max: { iid: true } });
        await db.iteration.create({ data: { iid: (_max.iid ?? 0) + 1, groupId: group.id, iterationsCadenceId: cadenceId, startDate: new Date(day(start)), dueDate: new Date(day(due)) } });
      }
      return db.iteration.findMany({ where: { iterationsCadenceId: cadenceId }, orderBy: { startDate: 'asc' } });
    };
    const rolling = await automatic('Rolling', true);
    const staying = await automatic('Staying', false);
    const issue = async (title: string, sprintId: number, close = false) => {
      const made = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title });
      if (close) await apiOk(t, owner.token, 'PUT', `/projects/${project.id}/issues/${made.iid}`, { state_event: 'close' });
      // Put in an iteration that has since closed.
      await db.issue.update({ where: { id: made.id }, data: { sprintId } });
      return made.id as number;
    };
    const [first, second, current] = rolling;
    const open = await issue('open', second.id);
    const older = await issue('older', first.id);
    const done = await issue('done', second.id, true);
    const kept = await issue('kept', staying[1].id);

    await db.$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = ${`recurring:${DUE_CADENCES_JOB}`} AND "status" = 'queued'`;
    t.server.app.jobs.wake();
    await t.server.app.jobs.drain();
    const rows = await eventually(async () => {
      const found = await db.issue.findMany({ where: { id: { in: [open, older, done, kept] } }, select: { id: true, sprintId: true } });
      return found.find((r) => r.id === open)?.sprintId === current.id && found;
    });
    const sprintOf = (id: number) => rows.find((r) => r.id === id)?.sprintId;
    expect(current.startDate.toISOString().slice(0, 10)).toBe(day(0));
    expect([sprintOf(open), sprintOf(older), sprintOf(done), sprintOf(kept)]).toEqual([current.id, current.id, second.id, staying[1].id]);

    const events = await db.resourceIterationEvent.findMany({ where: { issueId: open }, orderBy: { id: 'asc' }, include: { user: { select: { username: true, userType: true } } } });
    expect(events.map((e) => [e.iterationId, e.action, e.user.userType])).toEqual([
      [second.id, 'remove', 'automation_bot'],
      [current.id, 'add', 'automation_bot'],
    ]);
  });
});
