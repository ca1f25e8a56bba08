/**
 * GitLab's Milestone fields releases, subgroupMilestone and report, and Iteration.report: TimeboxReportService's
 * burnup series and stats, replayed from the issues' milestone (iteration), state and weight events, scoped by
 * `fullPath`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const DAY = 86_400_000;
const utcToday = () => new Date(new Date().toISOString().slice(0, 10));
const day = (offset: number) => new Date(utcToday().getTime() + offset * DAY).toISOString().slice(0, 10);
/** Noon of a day, for backdating events. */
const gid = (id: number) => `gid://gitlab/Milestone/${id}`;
const noon = (offset: number) => new Date(utcToday().getTime() + offset * DAY + DAY / 2);

let owner: TestUser;
let outsider: TestUser;
let group: { id: number; full_path: string };
let subgroup: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
let other: { id: number; path_with_namespace: string };

const gql = async (query: string, variables: Record<string, unknown>, token: string | null = owner.token) => {
  const res = await t.graphql(query, variables, token);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
};

beforeAll(async () => {
  [owner, outsider] = await Promise.all([createUser(t), createUser(t)]);
  group = await createGroup(t, owner.token, { visibility: 'public' });
  subgroup = await createGroup(t, owner.token, { parentId: group.id, visibility: 'public' });
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'public' });
  other = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
});

/** Sets the time of the issue's events of each table, as if they happened then. */
async function backdate(issueId: number, table: 'milestone' | 'iteration' | 'state' | 'weight', at: Date, action?: string) {
  const db = t.server.database.prisma;
  if (table === 'milestone') await db.resourceMilestoneEvent.updateMany({ where: { resourceType: 'Issue', resourceId: issueId, ...(action ? { action } : {}) }, data: { createdAt: at } });
  if (table === 'iteration') await db.resourceIterationEvent.updateMany({ where: { issueId, ...(action ? { action } : {}) }, data: { createdAt: at } });
  if (table === 'state') await db.resourceStateEvent.updateMany({ where: { resourceType: 'Issue', resourceId: issueId }, data: { createdAt: at } });
  if (table === 'weight') await db.resourceWeightEvent.updateMany({ where: { issueId }, data: { createdAt: at } });
}

describe('Milestone', () => {
  it('says whether a group milestone is a subgroup’s', async () => {
    const top = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/milestones`, { title: 'top' });
    const sub = await apiOk(t, owner.token, 'POST', `/groups/${subgroup.id}/milestones`, { title: 'sub' });
    const own = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/milestones`, { title: 'own' });
    const q = `query($g: ID!, $s: ID!, $p: ID!, $top: MilestoneID!, $sub: MilestoneID!, $own: MilestoneID!) {
      group(fullPath: $g) { milestone(id: $top) { subgroupMilestone groupMilestone } }
      sub: group(fullPath: $s) { milestone(id: $sub) { subgroupMilestone groupMilestone } }
      project(fullPath: $p) { milestone(id: $own) { subgroupMilestone projectMilestone } } }`;
    const data = await gql(q, { g: group.full_path, s: subgroup.full_path, p: project.path_with_namespace, top: gid(top.id), sub: gid(sub.id), own: gid(own.id) });
    expect(data).toEqual({
      group: { milestone: { subgroupMilestone: false, groupMilestone: true } },
      sub: { milestone: { subgroupMilestone: true, groupMilestone: true } },
      project: { milestone: { subgroupMilestone: false, projectMilestone: true } },
    });
  });

  it('lists its releases to whoever may read them', async () => {
    const milestone = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/milestones`, { title: 'v1' });
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/files/a.txt`, { branch: 'main', content: 'a', commit_message: 'First' });
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/releases`, { tag_name: 'v1.0', ref: 'main', name: 'One', milestones: ['v1'] });
    await apiOk(t, owner.token, 'POST', `/projects/${project.id}/releases`, { tag_name: 'v0.9', ref: 'main', name: 'Other' });
    const q = `query($p: ID!, $id: MilestoneID!) { project(fullPath: $p) { milestone(id: $id) { releases { count nodes { tagName name } } } } }`;
    const seen = await gql(q, { p: project.path_with_namespace, id: gid(milestone.id) }, outsider.token);
    expect(seen.project.milestone.releases).toEqual({ count: 1, nodes: [{ tagName: 'v1.0', name: 'One' }] });
    // Releases switched off for everyone but members: an outsider sees none.
    await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, { releases_access_level: 'private' });
    expect((await gql(q, { p: project.path_with_namespace, id: gid(milestone.id) }, outsider.token)).project.milestone.releases).toEqual({ count: 0, nodes: [] });
    expect((await gql(q, { p: project.path_with_namespace, id: gid(milestone.id) })).project.milestone.releases.count).toBe(1);
    await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, { releases_access_level: 'enabled' });
  });

  describe('report', () => {
    let milestoneId: number;
    const REPORT = `query($g: ID!, $id: MilestoneID!, $scope: String) { group(fullPath: $g) { milestone(id: $id) { report(fullPath: $scope) {
      burnupTimeSeries { date scopeCount scopeWeight completedCount completedWeight }
      stats { complete { count weight } incomplete { count weight } total { count weight } }
      error { code message } } } } }`;
    const report = async (scope?: string, token?: string | null) => {
      const res = await t.graphql(REPORT, { g: group.full_path, id: gid(milestoneId), scope }, token === undefined ? owner.token : token);
      return res.body;
    };

    beforeAll(async () => {
      const milestone = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/milestones`, { title: 'Sprint', start_date: day(-10), due_date: day(10) });
      milestoneId = milestone.id;
      const issue = async (p: { id: number }, title: string, weight: number) => apiOk(t, owner.token, 'POST', `/projects/${p.id}/issues`, { title, weight, milestone_id: milestone.id });
      const a = await issue(project, 'a', 3);
      await backdate(a.id, 'milestone', noon(-5));
      await backdate(a.id, 'weight', noon(-5));
      const c = await issue(project, 'c', 4);
      await backdate(c.id, 'milestone', noon(-4));
      await backdate(c.id, 'weight', noon(-4));
      const b = await issue(project, 'b', 2);
      await backdate(b.id, 'milestone', noon(-3));
      await backdate(b.id, 'weight', noon(-3));
      await apiOk(t, owner.token, 'PUT', `/projects/${project.id}/issues/${a.iid}`, { state_event: 'close' });
      await backdate(a.id, 'state', noon(-2));
      await apiOk(t, owner.token, 'PUT', `/projects/${project.id}/issues/${c.iid}`, { milestone_id: 0 });
      await backdate(c.id, 'milestone', noon(-1), 'remove');
      // An issue of another project, added today.
      await issue(other, 'd', 1);
    });

    it('replays the issues’ events into the daily burnup totals and the stats', async () => {
      const body = await report();
      expect(body.errors).toBeUndefined();
      expect(body.data.group.milestone.report).toEqual({
        burnupTimeSeries: [
          { date: day(-5), scopeCount: 1, scopeWeight: 3, completedCount: 0, completedWeight: 0 },
          { date: day(-4), scopeCount: 2, scopeWeight: 7, completedCount: 0, completedWeight: 0 },
          { date: day(-3), scopeCount: 3, scopeWeight: 9, completedCount: 0, completedWeight: 0 },
          { date: day(-2), scopeCount: 3, scopeWeight: 9, completedCount: 1, completedWeight: 3 },
          { date: day(-1), scopeCount: 2, scopeWeight: 5, completedCount: 1, completedWeight: 3 },
          { date: day(0), scopeCount: 3, scopeWeight: 6, completedCount: 1, completedWeight: 3 },
        ],
        stats: { complete: { count: 1, weight: 3 }, incomplete: { count: 2, weight: 3 }, total: { count: 3, weight: 6 } },
        error: null,
      });
    });

    it('counts only the issues of the project or group named by fullPath, which the viewer must be able to read', async () => {
      const scoped = await report(project.path_with_namespace);
      expect(scoped.data.group.milestone.report.stats).toEqual({ complete: { count: 1, weight: 3 }, incomplete: { count: 1, weight: 2 }, total: { count: 2, weight: 5 } });
      expect(scoped.data.group.milestone.report.burnupTimeSeries.at(-1).date).toBe(day(-1));
      expect((await report(group.full_path)).data.group.milestone.report.stats.total).toEqual({ count: 3, weight: 6 });
      const hidden = await report(other.path_with_namespace, outsider.token);
      expect(hidden.errors?.[0].message).toBe("The resource that you are attempting to access does not exist or you don't have permission to perform this action");
      expect((await report('no/such/path')).errors?.[0].message).toMatch(/does not exist or you don't have permission/);
    });

    it('answers GitLab’s error for a milestone without dates', async () => {
      const undated = await apiOk(t, owner.token, 'POST', `/groups/${group.id}/milestones`, { title: 'Undated' });
      const body = await t.graphql(REPORT, { g: group.full_path, id: gid(undated.id) }, owner.token);
      expect(body.body.data.group.milestone.report).toEqual({ burnupTimeSeries: null, stats: null, error: { code: 'MISSING_DATES', message: 'Milestone must have a start and due date' } });
    });
  });
});

describe('Iteration.report', () => {
  it('replays iteration, state and weight events', async () => {
    const cadence = await gql(`mutation($input: IterationCadenceCreateInput!) { iterationCadenceCreate(input: $input) { errors iterationCadence { id } } }`, {
      input: { groupPath: group.full_path, title: 'Report cadence', automatic: false, active: true },
    });
    const made = await gql(`mutation($input: iterationCreateInput!) { iterationCreate(input: $input) { errors iteration { id } } }`, {
      input: { groupPath: group.full_path, iterationsCadenceId: cadence.iterationCadenceCreate.iterationCadence.id, startDate: day(-6), dueDate: day(6) },
    });
    const iterationId = made.iterationCreate.iteration.id;
    const set = `mutation($p: ID!, $iid: String!, $it: IterationID) { issueSetIteration(input: { projectPath: $p, iid: $iid, iterationId: $it }) { errors } }`;
    const x = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: 'x', weight: 5 });
    const y = await apiOk(t, owner.token, 'POST', `/projects/${project.id}/issues`, { title: 'y', weight: 1 });
    await gql(set, { p: project.path_with_namespace, iid: String(x.iid), it: iterationId });
    await gql(set, { p: project.path_with_namespace, iid: String(y.iid), it: iterationId });
    await backdate(x.id, 'iteration', noon(-8));
    await backdate(x.id, 'weight', noon(-9));
    await backdate(y.id, 'iteration', noon(-2));
    await backdate(y.id, 'weight', noon(-2));
    await apiOk(t, owner.token, 'PUT', `/projects/${project.id}/issues/${y.iid}`, { state_event: 'close' });
    await apiOk(t, owner.token, 'PUT', `/projects/${project.id}/issues/${x.iid}`, { weight: 7 });
    const q = `query($g: ID!, $id: ID!) { group(fullPath: $g) { iterations(id: $id) { nodes { report {
      burnupTimeSeries { date scopeCount scopeWeight completedCount completedWeight } stats { complete { count weight } total { count weight } } error { code } } } } } }`;
    const data = await gql(q, { g: group.full_path, id: iterationId }, outsider.token);
    expect(data.group.iterations.nodes[0].report).toEqual({
      burnupTimeSeries: [
        // Added before the iteration started: counted on its first day.
        { date: day(-6), scopeCount: 1, scopeWeight: 5, completedCount: 0, completedWeight: 0 },
        { date: day(-2), scopeCount: 2, scopeWeight: 6, completedCount: 0, completedWeight: 0 },
        { date: day(0), scopeCount: 2, scopeWeight: 8, completedCount: 1, completedWeight: 1 },
      ],
      stats: { complete: { count: 1, weight: 1 }, total: { count: 2, weight: 8 } },
      error: null,
    });
  });
});
