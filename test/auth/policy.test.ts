import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userPolicy } from '../../src/modules/users/policy.js';
import { issueRowInclude, issueSubjectOf } from '../../src/modules/issues/policy.js';
import { abilities, allowedWhere, can, type Ability, type Actor } from '../../src/auth/policy.js';
import { JOB_TOKEN_SCOPE } from '../../src/auth/scopes.js';
import type { Viewer } from '../../src/auth/viewer.js';
import { serviceHarness, type ServiceHarness } from '../support/context.js';
import { unique } from '../support/factories.js';

// Each rule of the policy is written once and gives both the check for one object and the filter for a list.
// Over a tree of groups and projects of every visibility and viewers of every kind, the two must agree row by row.
let h: ServiceHarness;
const viewers: { label: string; viewer: Viewer | null }[] = [];
const projectIds: number[] = [];
const namespaceIds: number[] = [];
const userIds: number[] = [];
const runnerIds: number[] = [];
const snippetIds: number[] = [];
const issueIds: number[] = [];
const mergeRequestIds: number[] = [];
const epicIds: number[] = [];
/** Projects only the job-token cases add (the stranger's own). */
const jobProjectIds: number[] = [];

beforeAll(async () => {
  h = await serviceHarness();
  const owner = await h.user();
  const groupMember = await h.user();
  const projectMember = await h.user();
  const external = await h.user({ external: true });
  const admin = await h.user({ admin: true });
  const stranger = await h.user();
  // Minimal Access in every top-level group: sees those groups, nothing in them.
  const minimalMember = await h.user();
  // A context is one request: its memberships are read once, so each step gets a fresh one.
  const svc = (u: { viewer: Viewer }) => h.contextFor(u.viewer).services;
  for (const visibility of ['private', 'internal', 'public'] as const) {
    const top = await svc(owner).groups.create({ name: 'top', path: unique('top'), visibility });
    const sub = await svc(owner).groups.create({ name: 'sub', path: unique('sub'), parent: { id: top.id }, visibility: 'private' });
    namespaceIds.push(top.id, sub.id);
    await svc(owner).members.addToGroup(top, { userId: minimalMember.viewer.id, accessLevel: 5 });
    for (const ns of [top, sub]) {
      const p = await svc(owner).projects.create({ name: unique('p'), namespace: { id: ns.id }, visibility: ns.visibility as 'private' });
      projectIds.push(p.id);
      if (visibility === 'internal') await svc(owner).members.addToProject(p, { userId: projectMember.viewer.id, accessLevel: 20 });
    }
    if (visibility === 'private') await svc(owner).members.addToGroup(top, { userId: groupMember.viewer.id, accessLevel: 10 });
    const personal = await svc(owner).projects.create({ name: unique('mine'), visibility });
    projectIds.push(personal.id);
  }
  namespaceIds.push(owner.row.id, stranger.row.id);
  const personalNamespaces = await h.app.db.namespace.findMany({ where: { kind: 'user', ownerId: { in: [owner.row.id, stranger.row.id] } } });
  namespaceIds.push(...personalNamespaces.map((n) => n.id));
  const people = [owner, groupMember, projectMember, external, admin, stranger];
  userIds.push(...people.map((u) => u.row.id));
  await h.app.db.user.update({ where: { id: stranger.row.id }, data: { privateProfile: true } });
  // CI job tokens: a job of the owner's in a project of the private group, and one of the stranger's own project. The
  // projects let them in as GitLab's inbound allowlists say: one names the owner's project, one the private group
  // above it, one turned its inbound scope off, one names the stranger's project; the others let no job in.
  const [privateTop] = namespaceIds;
  const ownersJobProject = await h.app.db.project.findFirstOrThrow({ where: { id: { in: projectIds }, namespaceId: privateTop } });
  const strangersProject = await svc(stranger).projects.create({ name: unique('theirs'), visibility: 'private' });
  jobProjectIds.push(strangersProject.id);
  const [byProject, byGroup, open, byStranger] = projectIds.filter((id) => id !== ownersJobProject.id).slice(-4);
  await h.app.db.ciJobTokenProjectScopeLink.create({ data: { sourceProjectId: byProject, targetProjectId: ownersJobProject.id } });
  await h.app.db.ciJobTokenGroupScopeLink.create({ data: { sourceProjectId: byGroup, targetGroupId: privateTop } });
  await h.app.db.projectCiCdSetting.create({ data: { projectId: open, inboundJobTokenScopeEnabled: false } });
  await h.app.db.ciJobTokenProjectScopeLink.create({ data: { sourceProjectId: byStranger, targetProjectId: strangersProject.id } });
  const jobOf = (user: { viewer: Viewer }, project: { id: number }, ns: number[]): Viewer => ({
    ...user.viewer,
    scopes: [JOB_TOKEN_SCOPE],
    job: { id: project.id, projectId: project.id, pipelineId: project.id, namespaceIds: ns },
  });
  // Runners of every type, and a token of each person.
  const runners = [
    await svc(admin).runners.create({ runnerType: 'instance_type' }),
    await svc(owner).runners.create({ runnerType: 'group_type', groupId: privateTop }),
    await svc(owner).runners.create({ runnerType: 'project_type', projectId: ownersJobProject.id }),
  ];
  runnerIds.push(...runners.map((r) => r.id));
  for (const person of people) {
    await h.app.db.personalAccessToken.create({ data: { userId: person.row.id, name: 'policy', scopes: ['api'], digest: unique('digest') } });
  }
  // Snippets: personal ones of the owner and the stranger, and project snippets of every visibility in each project,
  // one by the project member; the snippets feature private in one project and disabled in another.
  const snippetRows = [];
  for (const visibility of ['private', 'internal', 'public']) {
    for (const author of [owner, stranger]) snippetRows.push({ type: 'PersonalSnippet', title: 's', visibility, authorId: author.row.id, projectId: null });
    for (const projectId of projectIds) snippetRows.push({ type: 'ProjectSnippet', title: 's', visibility, authorId: (visibility === 'internal' ? projectMember : owner).row.id, projectId });
  }
  for (const row of snippetRows) snippetIds.push((await h.app.db.snippet.create({ data: row })).id);
  const [featurePrivate, featureDisabled] = projectIds.slice(-2);
  await h.app.db.projectFeature.update({ where: { projectId: featurePrivate }, data: { snippetsAccessLevel: 'private', issuesAccessLevel: 'private', mergeRequestsAccessLevel: 'private' } });
  await h.app.db.projectFeature.update({ where: { projectId: featureDisabled }, data: { snippetsAccessLevel: 'disabled', issuesAccessLevel: 'disabled', mergeRequestsAccessLevel: 'disabled' } });
  // Issues: in each project a public one and a confidential one by the stranger, a confidential one by the owner
  // assigned to the project member, a hidden one (its author banned) and one whose author was deleted.
  const banned = await h.user();
  await h.app.db.user.update({ where: { id: banned.row.id }, data: { state: 'banned' } });
  for (const [i, projectId] of projectIds.entries()) {
    const rows = [
      { confidential: false, authorId: stranger.row.id },
      { confidential: true, authorId: stranger.row.id },
      { confidential: true, authorId: owner.row.id, assignees: { create: [{ userId: projectMember.row.id }] } },
      { confidential: false, authorId: banned.row.id, assignees: { create: [{ userId: projectMember.row.id }] } },
      { confidential: false, authorId: null },
    ];
    for (const [j, row] of rows.entries()) issueIds.push((await h.app.db.issue.create({ data: { ...row, projectId, iid: i * 10 + j + 1, title: 'i' } })).id);
  }
  // Merge requests: in each project one by the stranger, and one by the owner assigned to the project member.
  for (const [i, projectId] of projectIds.entries()) {
    const rows = [{ authorId: stranger.row.id }, { authorId: owner.row.id, assignees: { create: [{ userId: projectMember.row.id }] } }];
    for (const [j, row] of rows.entries()) {
      const data = { ...row, projectId, sourceProjectId: projectId, sourceBranch: `b${j}`, targetBranch: 'main', iid: i * 10 + j + 1, title: 'm' };
      mergeRequestIds.push((await h.app.db.mergeRequest.create({ data })).id);
    }
  }
  // Epics: in each group (top and sub of every visibility) one open to the group's readers and one confidential.
  for (const [i, groupId] of namespaceIds.slice(0, 6).entries()) {
    for (const [j, confidential] of [false, true].entries()) {
      epicIds.push((await h.app.db.epic.create({ data: { groupId, iid: j + 1, title: `e${i}`, confidential, authorId: owner.row.id } })).id);
    }
  }
  const strangerNs = await h.app.db.project.findUniqueOrThrow({ where: { id: strangersProject.id }, include: { namespace: true } });
  viewers.push(
    { label: 'anonymous', viewer: null },
    ...people.map((u, i) => ({ label: ['owner', 'group member', 'project member', 'external', 'admin', 'stranger'][i], viewer: u.viewer })),
    { label: 'minimal access member', viewer: minimalMember.viewer },
    { label: "the owner's CI job token", viewer: jobOf(owner, ownersJobProject, [privateTop]) },
    { label: "the stranger's CI job token", viewer: jobOf(stranger, strangersProject, strangerNs.namespace.traversalIds) },
  );
});
afterAll(() => h?.close());

async function actorOf(viewer: Viewer | null, ability?: Ability): Promise<Actor> {
  return (viewer ? h.contextFor(viewer) : h.anonymous()).access.actor(ability);
}

describe('the policy', () => {
  /** The subjects of each model a list filter may be of, loaded as services load them. */
  const models = {
    project: {
      rows: () => h.app.db.project.findMany({ where: { id: { in: [...projectIds, ...jobProjectIds] } }, include: { namespace: true, features: true } }),
      list: (where: object) => h.app.db.project.findMany({ where: { AND: [{ id: { in: [...projectIds, ...jobProjectIds] } }, where] }, select: { id: true } }),
    },
    namespace: {
      rows: () => h.app.db.namespace.findMany({ where: { id: { in: namespaceIds } } }),
      list: (where: object) => h.app.db.namespace.findMany({ where: { AND: [{ id: { in: namespaceIds } }, where] }, select: { id: true } }),
    },
    user: {
      rows: () => h.app.db.user.findMany({ where: { id: { in: userIds } } }),
      list: (where: object) => h.app.db.user.findMany({ where: { AND: [{ id: { in: userIds } }, where] }, select: { id: true } }),
    },
    runner: {
      async rows() {
        const runners = await h.app.db.runner.findMany({ where: { id: { in: runnerIds } }, include: { namespace: true, projects: { include: { project: { include: { namespace: true, features: true } } } } } });
        return runners.map((r) => ({ id: r.id, runnerType: r.runnerType, locked: r.locked, group: r.namespace, projects: r.projects.map((rp) => rp.project) }));
      },
      list: (where: object) => h.app.db.runner.findMany({ where: { AND: [{ id: { in: runnerIds } }, where] }, select: { id: true } }),
    },
    snippet: {
      async rows() {
        const snippets = await h.app.db.snippet.findMany({ where: { id: { in: snippetIds } }, include: { project: { include: { namespace: true, features: true } } } });
        return snippets.map((s) => ({ id: s.id, authorId: s.authorId, visibility: s.visibility, inProject: s.project }));
      },
      list: (where: object) => h.app.db.snippet.findMany({ where: { AND: [{ id: { in: snippetIds } }, where] }, select: { id: true } }),
    },
    issue: {
      async rows() {
        const issues = await h.app.db.issue.findMany({ where: { id: { in: issueIds } }, include: { ...issueRowInclude, project: { include: { namespace: true, features: true } } } });
        return issues.map((i) => ({ id: i.id, ...issueSubjectOf(i.project, i) }));
      },
      list: (where: object) => h.app.db.issue.findMany({ where: { AND: [{ id: { in: issueIds } }, where] }, select: { id: true } }),
    },
    mergeRequest: {
      async rows() {
        const mrs = await h.app.db.mergeRequest.findMany({ where: { id: { in: mergeRequestIds } }, include: { assignees: true, project: { include: { namespace: true, features: true } } } });
        return mrs.map((m) => ({ id: m.id, inProject: m.project, authorId: m.authorId, assigneeIds: m.assignees.map((a) => a.userId) }));
      },
      list: (where: object) => h.app.db.mergeRequest.findMany({ where: { AND: [{ id: { in: mergeRequestIds } }, where] }, select: { id: true } }),
    },
    epic: {
      async rows() {
        const epics = await h.app.db.epic.findMany({ where: { id: { in: epicIds } }, include: { group: true } });
        return epics.map((e) => ({ id: e.id, inGroup: e.group, confidential: e.confidential }));
      },
      list: (where: object) => h.app.db.epic.findMany({ where: { AND: [{ id: { in: epicIds } }, where] }, select: { id: true } }),
    },
    token: {
      rows: () => h.app.db.personalAccessToken.findMany({ where: { userId: { in: userIds } } }),
      list: (where: object) => h.app.db.personalAccessToken.findMany({ where: { AND: [{ userId: { in: userIds } }, where] }, select: { id: true } }),
    },
  };
  const NONE = JSON.stringify({ id: { in: [] } });

  /** The model whose list filter an ability gives (every viewer's filter is one of its rows), or null for an ability never used as a filter. */
  async function modelOf(ability: Ability): Promise<keyof typeof models | null> {
    const all = await Promise.all(viewers.map(async ({ viewer }) => JSON.stringify(allowedWhere(await actorOf(viewer, ability), ability as 'read_project'))));
    const wheres = [...new Set(all)].filter((w) => w !== NONE && w !== '{}').map((w) => JSON.parse(w) as object);
    if (wheres.length === 0) return null;
    const fits: (keyof typeof models)[] = [];
    for (const model of Object.keys(models) as (keyof typeof models)[]) {
      const valid = await Promise.all(wheres.map((w) => models[model].list(w).then(() => true, () => false)));
      if (valid.every(Boolean)) fits.push(model);
    }
    if (fits.length === 1) return fits[0];
    // `{ id: … }` (UserPolicy's `self`) fits every model: UserPolicy's abilities (read_group_count too) are of users.
    if (fits.includes('user') && ability in userPolicy) return 'user';
    // A filter by the project alone fits every model of a project: merge requests' abilities name them.
    if (fits.includes('mergeRequest') && /merge_request/.test(ability)) return 'mergeRequest';
    // A timelog's filter is its project's, as an issue's (`inProject`): checked against issues, which have both.
    if (fits.includes('issue') && /timelog/.test(ability)) return 'issue';
    throw new Error(`${ability}: its filters fit ${fits.length ? fits.join(', ') : 'no model'} of the models the test knows`);
  }

  it('filters every list exactly as it checks each item, for every ability and every kind of viewer, CI job tokens included', async () => {
    const tested: string[] = [];
    for (const ability of abilities()) {
      const model = await modelOf(ability);
      if (!model) continue;
      tested.push(ability);
      const rows = await models[model].rows();
      for (const { label, viewer } of viewers) {
        // A new request for each question, as a list and a lookup are different requests.
        const context = () => (viewer ? h.contextFor(viewer) : h.anonymous()).access;
        const listed = (await models[model].list((await context().where(ability as 'read_project')) as object)).map((r) => r.id).sort();
        const lookup = context();
        const checked: number[] = [];
        for (const row of rows) if (await lookup.check(ability as 'read_project', row as never)) checked.push(row.id);
        expect([label, ability, listed]).toEqual([label, ability, checked.sort()]);
      }
    }
    // Every list filter of the projects, groups and users the services use is among them.
    expect(tested).toEqual(expect.arrayContaining(['read_project', 'read_pipeline', 'read_build', 'download_code', 'create_pipeline', 'read_group', 'read_namespace', 'read_user_profile', 'read_runner', 'read_token', 'read_snippet', 'update_snippet']));
  }, 180_000);

  it('gives GitLab’s answers: members read private projects, externals do not read internal ones, admins read all', async () => {
    const rows = await h.app.db.project.findMany({ where: { id: { in: projectIds } }, include: { namespace: true } });
    const readable = async (label: string) => {
      const actor = await actorOf(viewers.find((v) => v.label === label)?.viewer ?? null);
      return rows.filter((p) => can(actor, 'read_project', p)).map((p) => p.visibility);
    };
    expect((await readable('anonymous')).every((v) => v === 'public')).toBe(true);
    expect((await readable('external')).every((v) => v === 'public')).toBe(true);
    expect(await readable('admin')).toHaveLength(rows.length);
    expect(await readable('owner')).toHaveLength(rows.length);
    expect((await readable('group member')).filter((v) => v === 'private')).toHaveLength(2); // the private group's two projects
    expect((await readable('stranger')).includes('private')).toBe(false);
    // Minimal Access reads no project a stranger could not, yet reads the top-level groups it was given in.
    expect(await readable('minimal access member')).toEqual(await readable('stranger'));
    const minimal = await actorOf(viewers.find((v) => v.label === 'minimal access member')?.viewer ?? null);
    const groups = await h.app.db.namespace.findMany({ where: { id: { in: namespaceIds }, kind: 'group' } });
    const seen = groups.filter((g) => can(minimal, 'read_group', g));
    expect(seen.map((g) => g.parentId === null)).toEqual(groups.filter((g) => g.parentId === null).map(() => true));
    expect(seen).toHaveLength(3);
  });
});
