import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/rest/routes.js';
import { freshKey } from '../users/ssh-keys.js';

// Every list route issues the same number of queries for a page of one row as for a page of four:
// relations go through DataLoaders, never a query per row.
let t: TestServer;
let counting = false;
let queries = 0;
let owner: TestUser;
let group: { id: number };
let sub: { id: number };
let project: { id: number };
let pipelineId: number;
let sha: string;
let runnerId: number;
let hookId: number;
let groupHookId: number;
let scheduleId: number;
let packageId: number;
let snippetId: number;
let epicId: number | undefined;
/** The project milestone every fixture issue and merge request is in, and the group's one holding them too. */
let issueMilestoneId: number | undefined;
let groupMilestoneId: number;
let releaseProject: { id: number };
/** A project with five resource groups, one of them with seven jobs waiting for it. */
let resourceGroupProject: { id: number };
/** The first note of each awardable kind, awarded four times. */
const awardedNotes: Record<string, number> = {};

async function measure(path: string, token = owner.token): Promise<number> {
  queries = 0;
  counting = true;
  // The `/admin/` lists are for administrators: root's token; every other list is the given one.
  const res = await t.api('GET', path, { token: path.startsWith('/admin/') ? t.rootToken : token });
  counting = false;
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return queries;
}

beforeAll(async () => {
  t = await startTestServer({}, { onQuery: () => counting && queries++ });
  owner = await createUser(t);
  group = await createGroup(t, owner.token, { visibility: 'internal' });
  sub = await createGroup(t, owner.token, { parentId: group.id, visibility: 'internal' });
  project = await createProject(t, owner.token, { namespaceId: group.id });
  const files = ['a', 'b', 'c', 'd'].map((name) => ({ action: 'create', file_path: name, content: name }));
  // Four jobs of four stages each run by owner and four members below: pipelines and jobs embed their users.
  const ci = ['one', 'two', 'three', 'four'].map((job) => `${job}:\n  script: echo ${job}\n  coverage: '/c: \\d+/'\n`).join('');
  files.push({ action: 'create', file_path: '.gitlab-ci.yml', content: ci });
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'Four files', actions: files } });
  sha = commit.body.id;
  const memberIds: number[] = [];
  for (let i = 0; i < 4; i++) {
    const member = await createUser(t);
    await createProject(t, member.token, { visibility: 'internal' });
    await addMember(t, owner.token, 'groups', group.id, member.id, 30);
    // Maintainers of the project: they run pipelines on main, which is protected.
    await addMember(t, owner.token, 'projects', project.id, member.id, 40);
    memberIds.push(member.id);
    const sibling = await createProject(t, owner.token, { namespaceId: group.id });
    await createGroup(t, owner.token, { parentId: sub.id });
    const other = await createGroup(t, owner.token);
    // The project's CI job token allowlists: projects (after the project itself) and groups, each with its namespace.
    await t.api('POST', `/projects/${project.id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: sibling.id } });
    await t.api('POST', `/projects/${project.id}/job_token_scope/groups_allowlist`, { token: owner.token, body: { target_group_id: other.id } });
    await t.api('POST', `/users/${owner.id}/personal_access_tokens`, { body: { name: `t${i}`, scopes: ['api'] } });
    // Markdown uploads of the project, each by another member: the list embeds its uploader.
    const form = new FormData();
    form.append('file', new Blob([`upload ${i}`]), `u${i}.txt`);
    const upload = await fetch(`${t.url}/api/v4/projects/${project.id}/uploads`, { method: 'POST', headers: { 'PRIVATE-TOKEN': member.token }, body: form });
    expect(upload.status).toBe(201);
    // The owner's account data: SSH keys, e-mail addresses, impersonation tokens.
    await t.api('POST', '/user/keys', { token: owner.token, body: { title: `k${i}`, key: freshKey() } });
    await t.api('POST', '/user/emails', { token: owner.token, body: { email: `${owner.username}-${i}@example.org` } });
    await t.api('POST', `/users/${owner.id}/impersonation_tokens`, { body: { name: `i${i}`, scopes: ['api'] } });
    const pipeline = await t.api('POST', `/projects/${project.id}/pipeline`, { token: member.token, body: { ref: 'main' } });
    expect(pipeline.body.status).toBe('pending');
    pipelineId = pipeline.body.id;
    await t.api('POST', `/projects/${project.id}/triggers`, { token: owner.token, body: { description: `t${i}` } });
    await t.api('POST', `/projects/${project.id}/variables`, { token: owner.token, body: { key: `VAR_${i}`, value: 'v' } });
    await t.api('POST', `/groups/${group.id}/variables`, { token: owner.token, body: { key: `VAR_${i}`, value: 'v' } });
    await t.api('POST', '/admin/ci/variables', { body: { key: `VAR_${i}`, value: 'v' } });
    await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { token: member.token, body: { state: 'success', name: `s${i}` } });
    await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'group_type', group_id: group.id, description: `g${i}` } });
    // Stars, forks and starred projects: the member stars and forks the project, the owner stars each sibling.
    await t.api('POST', `/projects/${project.id}/star`, { token: member.token });
    const fork = await t.api('POST', `/projects/${project.id}/fork`, { token: member.token, body: { namespace_id: group.id, path: `fork-${i}`, name: `Fork ${i}` } });
    expect(fork.status).toBe(201);
    await t.api('POST', `/projects/${sibling.id}/star`, { token: owner.token });
    const schedule = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, { token: owner.token, body: { description: `s${i}`, ref: 'main', cron: '0 1 * * *' } });
    scheduleId = schedule.body.id;
    const expires = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const accessToken = await t.api('POST', `/projects/${project.id}/access_tokens`, { token: owner.token, body: { name: `a${i}`, scopes: ['api'], expires_at: expires } });
    expect(accessToken.status).toBe(201);
    // Labels (project ones with a priority, the group's subscribed to) and milestones of the project and the group.
    await t.api('POST', `/projects/${project.id}/labels`, { token: owner.token, body: { name: `l${i}`, color: '#123456', priority: i } });
    await t.api('POST', `/groups/${group.id}/labels`, { token: owner.token, body: { name: `gl${i}`, color: '#654321' } });
    await t.api('POST', `/groups/${group.id}/labels/gl${i}/subscribe`, { token: owner.token });
    await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: `m${i}` } });
    await t.api('POST', `/groups/${group.id}/milestones`, { token: owner.token, body: { title: `gm${i}` } });
    // Environments with a deployment each, by a member: deployments embed their user and environment.
    await t.api('POST', `/projects/${project.id}/deployments`, { token: member.token, body: { environment: `env${i}`, sha, ref: 'main', tag: false, status: 'success' } });
    // Issues with labels (the project's and the group's), an assignee, a milestone, and a thread on the first.
    issueMilestoneId ??= (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'im' } })).body.id as number;
    const milestone = { body: { id: issueMilestoneId } };
    const issue = await t.api('POST', `/projects/${project.id}/issues`, {
      token: owner.token,
      body: { title: `issue ${i}`, labels: `l${i},gl${i}`, assignee_ids: [member.id], milestone_id: milestone.body.id },
    });
    expect(issue.status).toBe(201);
    if (i % 2) await t.api('PUT', `/projects/${project.id}/issues/${issue.body.iid}`, { token: owner.token, body: { state_event: 'close' } });
    await t.api('POST', `/projects/${project.id}/issues/${issue.body.iid}/todo`, { token: owner.token });
    await t.api('POST', `/projects/${project.id}/issues/1/discussions`, { token: member.token, body: { body: `issue thread ${i}` } });
    // Merge requests from branches of their own (labels, an assignee, a reviewer, a milestone); the first one's branch
    // gains a commit and a file each round, and a thread.
    const branch = i === 0 ? { branch: 'mr0', start_branch: 'main' } : { branch: 'mr0' };
    await t.api('POST', `/projects/${project.id}/repository/commits`, { token: owner.token, body: { ...branch, commit_message: `mr0 ${i}`, actions: [{ action: 'create', file_path: `mr0-${i}`, content: 'x' }] } });
    if (i > 0) await t.api('POST', `/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: `mr${i}`, start_branch: 'main', commit_message: `mr ${i}`, actions: [{ action: 'create', file_path: `mr${i}`, content: 'x' }] } });
    const mergeRequest = await t.api('POST', `/projects/${project.id}/merge_requests`, {
      token: owner.token,
      body: { source_branch: `mr${i}`, target_branch: 'main', title: `mr ${i}`, labels: `l${i},gl${i}`, assignee_ids: [member.id], reviewer_ids: [member.id], milestone_id: milestone.body.id },
    });
    expect(mergeRequest.status).toBe(201);
    // A group milestone holding an issue and a merge request of the project each round.
    if (i === 0) {
      const shared = await t.api('POST', `/groups/${group.id}/milestones`, { token: owner.token, body: { title: 'gim' } });
      expect(shared.status, shared.text).toBe(201);
      groupMilestoneId = shared.body.id;
    }
    expect((await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: `gi${i}`, milestone_id: groupMilestoneId } })).status).toBe(201);
    await t.api('POST', `/projects/${project.id}/repository/commits`, { token: owner.token, body: { branch: `gmr${i}`, start_branch: 'main', commit_message: `gmr ${i}`, actions: [{ action: 'create', file_path: `gmr${i}`, content: 'x' }] } });
    const grouped = await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: `gmr${i}`, target_branch: 'main', title: `gmr ${i}`, milestone_id: groupMilestoneId } });
    expect(grouped.status, grouped.text).toBe(201);
    await t.api('POST', `/projects/${project.id}/merge_requests/1/discussions`, { token: member.token, body: { body: `merge request thread ${i}` } });
    // Epics of the group with a label and a parent (the first), holding the issues, with threads and notes on the first.
    const epic = await t.api('POST', `/groups/${group.id}/epics`, { token: member.token, body: { title: `epic ${i}`, labels: `gl${i}`, parent_id: epicId } });
    expect(epic.status).toBe(201);
    epicId ??= epic.body.id;
    await t.api('POST', `/groups/${group.id}/epics/1/issues/${issue.body.id}`, { token: owner.token });
    await t.api('POST', `/groups/${group.id}/epics/${epicId}/discussions`, { token: member.token, body: { body: `epic thread ${i}` } });
    // Iterations of the group (its first manual cadence): the round's issue put in the round's, and issue 1 in each
    // in turn (one iteration event each).
    const made = await t.graphql(
      'mutation($g: ID!, $s: String, $d: String) { iterationCreate(input: { groupPath: $g, title: null, startDate: $s, dueDate: $d }) { errors iteration { databaseId } } }',
      { g: String(group.id), s: `2030-0${i + 1}-01`, d: `2030-0${i + 1}-10` },
      owner.token,
    );
    expect(made.body.data.iterationCreate.errors).toEqual([]);
    for (const iid of new Set([issue.body.iid, 1])) {
      const put = await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: owner.token, body: { iteration_id: made.body.data.iterationCreate.iteration.databaseId } });
      expect(put.status).toBe(200);
    }
  }
  // Resource groups: `shared` (four jobs a pipeline, one of which holds it) and k1-k4; two pipelines.
  resourceGroupProject = await createProject(t, owner.token);
  const rgJobs = [1, 2, 3, 4].map((n) => `a${n}:\n  resource_group: shared\n  script: x\nb${n}:\n  resource_group: k${n}\n  script: x\n`).join('');
  await t.api('POST', `/projects/${resourceGroupProject.id}/repository/commits`, { token: owner.token, body: { branch: 'main', commit_message: 'rg', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: rgJobs }] } });
  for (let i = 0; i < 2; i++) expect((await t.api('POST', `/projects/${resourceGroupProject.id}/pipeline`, { token: owner.token, body: { ref: 'main' } })).status).toBe(201);
  // Merge requests 1-4 each close issues 1-4 (closed_by, related_merge_requests, closes_issues).
  for (const iid of [1, 2, 3, 4]) {
    const closing = await t.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { token: owner.token, body: { description: 'Closes #1, #2, #3 and #4' } });
    expect(closing.status, closing.text).toBe(200);
  }
  // Merge request 1 has every member as reviewer (reviewers).
  expect((await t.api('PUT', `/projects/${project.id}/merge_requests/1`, { token: owner.token, body: { reviewer_ids: memberIds } })).status).toBe(200);
  // Merge request 1 has four draft notes of the owner's (draft_notes).
  for (let i = 0; i < 4; i++) {
    expect((await t.api('POST', `/projects/${project.id}/merge_requests/1/draft_notes`, { token: owner.token, body: { note: `draft ${i}` } })).status).toBe(201);
  }
  // The first epic is closed and reopened twice: four state events (resource_state_events).
  for (const stateEvent of ['close', 'reopen', 'close', 'reopen']) {
    expect((await t.api('PUT', `/groups/${group.id}/epics/1`, { token: owner.token, body: { state_event: stateEvent } })).status).toBe(200);
  }
  // Merge request 1 has four context commits, commits of its branch (context_commits).
  const mainCommits = await t.api('GET', `/projects/${project.id}/repository/commits?ref_name=mr0&per_page=4`, { token: owner.token });
  const contextShas = mainCommits.body.map((c: { id: string }) => c.id);
  expect(contextShas.length).toBe(4);
  const context = await t.api('POST', `/projects/${project.id}/merge_requests/1/context_commits`, { token: owner.token, body: { commits: contextShas } });
  expect(context.status, context.text).toBe(201);
  // Issue 1's resource events: four or more of each kind (labels, weight, milestone, state).
  const eventMilestones = await Promise.all(['rm0', 'rm1'].map(async (title) => (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title } })).body.id));
  for (let i = 0; i < 4; i++) {
    const body = { add_labels: `re${i}`, weight: i, milestone_id: eventMilestones[i % 2], state_event: i % 2 ? 'reopen' : 'close' };
    expect((await t.api('PUT', `/projects/${project.id}/issues/1`, { token: owner.token, body })).status).toBe(200);
  }
  // Four threads on the commit, each a member's note and the owner's reply (authors and threads' notes are batched).
  const commitNote = { noteableType: 'Commit', projectId: project.id, commitId: sha, type: 'DiscussionNote' };
  await t.server.database.prisma.note.createMany({
    data: memberIds.flatMap((authorId, i) => [
      { ...commitNote, discussionId: String(i).repeat(40), note: `thread ${i}`, authorId, startsDiscussion: true },
      { ...commitNote, discussionId: String(i).repeat(40), note: `reply ${i}`, authorId: owner.id },
    ]),
  });
  // A snippet of the project with four threads like the commit's, and four plain notes (the Notes API lists all eight).
  const snippet = await t.api('POST', `/projects/${project.id}/snippets`, { token: owner.token, body: { title: 'budget', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a' }] } });
  snippetId = snippet.body.id;
  const snippetNote = { noteableType: 'Snippet', projectId: project.id, noteableId: snippetId };
  await t.server.database.prisma.note.createMany({
    data: memberIds.flatMap((authorId, i) => [
      { ...snippetNote, type: 'DiscussionNote', discussionId: String(i + 4).repeat(40), note: `thread ${i}`, authorId, startsDiscussion: true },
      { ...snippetNote, type: 'DiscussionNote', discussionId: String(i + 4).repeat(40), note: `reply ${i}`, authorId: owner.id },
      { ...snippetNote, type: null, discussionId: 'a'.repeat(39) + String(i), note: `note ${i}`, authorId, startsDiscussion: true },
    ]),
  });
  // Four releases (each with a milestone holding an issue, a link and evidence) and four links on the first, in a
  // project of their own without CI, so their tags start no pipelines.
  releaseProject = await createProject(t, owner.token);
  await t.api('POST', `/projects/${releaseProject.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'a' } });
  for (let i = 0; i < 4; i++) {
    await t.api('POST', `/projects/${releaseProject.id}/milestones`, { token: owner.token, body: { title: `rm${i}` } });
    const release = await t.api('POST', `/projects/${releaseProject.id}/releases`, {
      token: owner.token,
      body: { tag_name: `r${i}`, ref: 'main', milestones: [`rm${i}`], assets: { links: [{ name: 'l', url: `https://example.com/r${i}` }] } },
    });
    expect(release.status).toBe(201);
    await t.api('POST', `/projects/${releaseProject.id}/issues`, { token: owner.token, body: { title: `ri${i}`, milestone_id: release.body.milestones[0].id } });
    await t.api('POST', `/projects/${releaseProject.id}/releases/r0/assets/links`, { token: owner.token, body: { name: `l${i}`, url: `https://example.com/l${i}` } });
  }
  // The four pipelines above, as if the last schedule had run them.
  await t.server.database.prisma.pipeline.updateMany({ where: { projectId: project.id }, data: { pipelineScheduleId: scheduleId } });
  // Four finished storage moves of the project and of the group (this server has one storage: rows as a move leaves them).
  const move = { state: 'finished', sourceStorageName: 'default', destinationStorageName: 'other' };
  await t.server.database.prisma.projectRepositoryStorageMove.createMany({ data: [0, 1, 2, 3].map(() => ({ ...move, projectId: project.id })) });
  await t.server.database.prisma.groupRepositoryStorageMove.createMany({ data: [0, 1, 2, 3].map(() => ({ ...move, groupId: group.id })) });
  await t.server.database.prisma.snippetRepositoryStorageMove.createMany({ data: [0, 1, 2, 3].map(() => ({ ...move, snippetId })) });
  // A project runner that took four of the jobs above.
  const runner = await t.api('POST', '/user/runners', { token: owner.token, body: { runner_type: 'project_type', project_id: project.id } });
  runnerId = runner.body.id;
  for (let i = 0; i < 4; i++) {
    const job = await fetch(`${t.url}/api/v4/jobs/request`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: runner.body.token }) });
    expect(job.status).toBe(201);
    await job.body?.cancel();
  }
  // Webhooks, made last so that they hear none of the events above: four system hooks, four project hooks and four
  // group hooks (no push events), and four deliveries in the first project hook's log and the first group hook's.
  for (let i = 0; i < 4; i++) {
    await t.api('POST', '/hooks', { body: { url: `https://example.com/s${i}` } });
    const hook = await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: `https://example.com/p${i}`, push_events: false } });
    hookId ??= hook.body.id;
    const groupHook = await t.api('POST', `/groups/${group.id}/hooks`, { token: owner.token, body: { url: `https://example.com/g${i}`, push_events: false } });
    groupHookId ??= groupHook.body.id;
  }
  for (const webHookId of [hookId, groupHookId]) {
    await t.server.database.prisma.webHookLog.createMany({
      data: [0, 1, 2, 3].map((i) => ({ webHookId, trigger: 'push_hooks', url: 'https://example.com/p0', requestHeaders: {}, requestData: { i }, responseHeaders: {}, responseBody: '', responseStatus: '200', executionDuration: 0.1 })),
    });
  }
  // Four generic packages, the first with four files, each file and the package built by one of the four pipelines.
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < (i === 0 ? 4 : 1); j++) {
      const res = await fetch(`${t.url}/api/v4/projects/${project.id}/packages/generic/pkg${i}/1.0.${i}/f${j}.txt?select=package_file`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': owner.token }, body: `${i}-${j}` });
      expect(res.status).toBe(201);
      packageId ??= ((await res.json()) as { package_id: number }).package_id;
    }
  }
  const pipelines = await t.server.database.prisma.pipeline.findMany({ where: { projectId: project.id }, orderBy: { id: 'asc' }, take: 4 });
  const packageFiles = await t.server.database.prisma.packageFile.findMany({ where: { packageId }, orderBy: { id: 'asc' } });
  for (const [i, p] of pipelines.entries()) {
    await t.server.database.prisma.packageBuildInfo.create({ data: { packageId, pipelineId: p.id } });
    await t.server.database.prisma.packageFile.update({ where: { id: packageFiles[i].id }, data: { pipelineId: p.id } });
  }
  // Four merged cars of the project's train, each of its own merge request, user and pipeline.
  const trainMrs = await t.server.database.prisma.mergeRequest.findMany({ where: { projectId: project.id }, orderBy: { id: 'asc' }, take: 4 });
  await t.server.database.prisma.mergeTrainCar.createMany({
    data: trainMrs.map((mr, i) => ({ mergeRequestId: mr.id, userId: memberIds[i], pipelineId: pipelines[i].id, targetProjectId: project.id, targetBranch: 'main', status: 'merged', mergedAt: new Date(), duration: i })),
  });
  // Four awards by the members on issue 1, merge request 1, the snippet, the first epic, and the first note of each.
  const db = t.server.database.prisma;
  const issue1 = await db.issue.findFirstOrThrow({ where: { projectId: project.id, iid: 1 } });
  const mr1 = await db.mergeRequest.findFirstOrThrow({ where: { projectId: project.id, iid: 1 } });
  const awardables = [
    { type: 'Issue', target: { issueId: issue1.id } },
    { type: 'MergeRequest', target: { mergeRequestId: mr1.id } },
    { type: 'Snippet', target: { snippetId } },
    { type: 'Epic', target: { epicId } },
  ];
  for (const { type, target } of awardables) {
    const id = Object.values(target)[0]!;
    const note = await db.note.findFirstOrThrow({ where: { noteableType: type, noteableId: id }, orderBy: { id: 'asc' } });
    awardedNotes[type] = note.id;
    for (const data of [target, { noteId: note.id }]) await db.awardEmoji.createMany({ data: memberIds.map((userId) => ({ ...data, userId, name: 'thumbsup' })) });
  }
});
afterAll(() => t?.close());

describe('query budget', () => {
  // Every paginated route of the route table, with a fixture for its path and, where the list needs one, a filter
  // that selects the rows made above. A new list route fails here until it gets a fixture.
  const ids: Record<string, () => number> = { groups: () => group.id, projects: () => project.id, users: () => owner.id, runners: () => runnerId };
  // Lists only administrators may read.
  const asRoot = new Set([
    'GET /hooks',
    'GET /runners/all',
    'GET /users/:id/emails',
    'GET /users/:id/impersonation_tokens',
    'GET /users/:id/memberships',
    'GET /project_repository_storage_moves',
    'GET /projects/:id/repository_storage_moves',
    'GET /group_repository_storage_moves',
    'GET /groups/:id/repository_storage_moves',
    'GET /snippet_repository_storage_moves',
    'GET /snippets/:id/repository_storage_moves',
    'GET /user/activities',
  ]);
  const special: Record<string, () => string> = {
    'GET /groups/:id/subgroups': () => `/groups/${sub.id}/subgroups`,
    'GET /projects': () => '/projects?visibility=internal',
    'GET /namespaces': () => '/namespaces?search=group',
    'GET /projects/:id/pipelines/:pipeline_id/jobs': () => `/projects/${project.id}/pipelines/${pipelineId}/jobs`,
    'GET /projects/:id/pipelines/:pipeline_id/bridges': () => `/projects/${project.id}/pipelines/${pipelineId}/bridges`,
    'GET /projects/:id/merge_trains/:target_branch': () => `/projects/${project.id}/merge_trains/main`,
    'GET /projects/:id/pipeline_schedules/:pipeline_schedule_id/pipelines': () => `/projects/${project.id}/pipeline_schedules/${scheduleId}/pipelines`,
    'GET /projects/:id/resource_groups': () => `/projects/${resourceGroupProject.id}/resource_groups`,
    'GET /projects/:id/resource_groups/:key/upcoming_jobs': () => `/projects/${resourceGroupProject.id}/resource_groups/shared/upcoming_jobs`,
    'GET /projects/:id/hooks/:hook_id/events': () => `/projects/${project.id}/hooks/${hookId}/events`,
    'GET /groups/:id/hooks/:hook_id/events': () => `/groups/${group.id}/hooks/${groupHookId}/events`,
    'GET /projects/:id/packages/:package_id/package_files': () => `/projects/${project.id}/packages/${packageId}/package_files`,
    'GET /projects/:id/packages/:package_id/pipelines': () => `/projects/${project.id}/packages/${packageId}/pipelines`,
    'GET /projects/:id/repository/commits/:sha/statuses': () => `/projects/${project.id}/repository/commits/${sha}/statuses?all=true`,
    'GET /projects/:id/repository/commits/:sha/diff': () => `/projects/${project.id}/repository/commits/${sha}/diff`,
    'GET /projects/:id/repository/commits/:sha/refs': () => `/projects/${project.id}/repository/commits/${sha}/refs`,
    'GET /projects/:id/repository/commits/:sha/merge_requests': () => `/projects/${project.id}/repository/commits/${sha}/merge_requests`,
    'GET /projects/:id/repository/commits/:sha/comments': () => `/projects/${project.id}/repository/commits/${sha}/comments`,
    'GET /projects/:id/repository/commits/:sha/discussions': () => `/projects/${project.id}/repository/commits/${sha}/discussions`,
    'GET /projects/:id/snippets/:noteable_id/discussions': () => `/projects/${project.id}/snippets/${snippetId}/discussions`,
    'GET /projects/:id/snippets/:noteable_id/notes': () => `/projects/${project.id}/snippets/${snippetId}/notes`,
    'GET /snippets/:id/repository_storage_moves': () => `/snippets/${snippetId}/repository_storage_moves`,
    'GET /projects/:id/issues/:noteable_id/discussions': () => `/projects/${project.id}/issues/1/discussions`,
    'GET /projects/:id/issues/:noteable_id/notes': () => `/projects/${project.id}/issues/1/notes`,
    'GET /projects/:id/issues/:issue_iid/resource_label_events': () => `/projects/${project.id}/issues/1/resource_label_events`,
    'GET /projects/:id/issues/:issue_iid/resource_weight_events': () => `/projects/${project.id}/issues/1/resource_weight_events`,
    'GET /projects/:id/issues/:issue_iid/resource_milestone_events': () => `/projects/${project.id}/issues/1/resource_milestone_events`,
    'GET /projects/:id/issues/:issue_iid/resource_state_events': () => `/projects/${project.id}/issues/1/resource_state_events`,
    'GET /projects/:id/issues/:issue_iid/resource_iteration_events': () => `/projects/${project.id}/issues/1/resource_iteration_events`,
    'GET /projects/:id/merge_requests/:merge_request_iid/resource_label_events': () => `/projects/${project.id}/merge_requests/1/resource_label_events`,
    'GET /projects/:id/merge_requests/:merge_request_iid/resource_milestone_events': () => `/projects/${project.id}/merge_requests/1/resource_milestone_events`,
    'GET /projects/:id/merge_requests/:merge_request_iid/resource_state_events': () => `/projects/${project.id}/merge_requests/2/resource_state_events`,
    // Issues in the project's milestone: a page mixing project and group milestones reads one parent of each kind.
    'GET /projects/:id/issues': () => `/projects/${project.id}/issues?state=all&milestone=im`,
    'GET /groups/:id/issues': () => `/groups/${group.id}/issues?state=all&milestone=im`,
    // Merge requests likewise (the fixture's others are in the group's milestone).
    'GET /merge_requests': () => '/merge_requests?milestone=im',
    'GET /projects/:id/merge_requests': () => `/projects/${project.id}/merge_requests?milestone=im`,
    'GET /groups/:id/merge_requests': () => `/groups/${group.id}/merge_requests?milestone=im`,
    'GET /projects/:id/merge_requests/:merge_request_iid/commits': () => `/projects/${project.id}/merge_requests/1/commits`,
    'GET /projects/:id/merge_requests/:merge_request_iid/diffs': () => `/projects/${project.id}/merge_requests/1/diffs`,
    'GET /projects/:id/merge_requests/:merge_request_iid/versions': () => `/projects/${project.id}/merge_requests/1/versions`,
    'GET /projects/:id/merge_requests/:merge_request_iid/draft_notes': () => `/projects/${project.id}/merge_requests/1/draft_notes`,
    'GET /projects/:id/merge_requests/:merge_request_iid/context_commits': () => `/projects/${project.id}/merge_requests/1/context_commits`,
    'GET /projects/:id/merge_requests/:noteable_id/discussions': () => `/projects/${project.id}/merge_requests/1/discussions`,
    'GET /projects/:id/merge_requests/:noteable_id/notes': () => `/projects/${project.id}/merge_requests/1/notes`,
    'GET /groups/:id/epics/:epic_iid/issues': () => `/groups/${group.id}/epics/1/issues`,
    'GET /groups/:id/epics/:noteable_id/discussions': () => `/groups/${group.id}/epics/${epicId}/discussions`,
    'GET /groups/:id/epics/:noteable_id/notes': () => `/groups/${group.id}/epics/${epicId}/notes`,
    'GET /groups/:id/epics/:epic_id/resource_label_events': () => `/groups/${group.id}/epics/${epicId}/resource_label_events`,
    'GET /groups/:id/epics/:epic_id/resource_state_events': () => `/groups/${group.id}/epics/${epicId}/resource_state_events`,
    'GET /projects/:id/milestones/:milestone_id/issues': () => `/projects/${project.id}/milestones/${issueMilestoneId}/issues`,
    'GET /projects/:id/milestones/:milestone_id/merge_requests': () => `/projects/${project.id}/milestones/${issueMilestoneId}/merge_requests`,
    'GET /groups/:id/milestones/:milestone_id/issues': () => `/groups/${group.id}/milestones/${groupMilestoneId}/issues`,
    'GET /groups/:id/milestones/:milestone_id/merge_requests': () => `/groups/${group.id}/milestones/${groupMilestoneId}/merge_requests`,
    'GET /user/activities': () => '/user/activities?from=2000-01-01',
    'GET /projects/:id/merge_requests/:merge_request_iid/pipelines': () => `/projects/${project.id}/merge_requests/1/pipelines`,
    'GET /projects/:id/issues/:issue_iid/closed_by': () => `/projects/${project.id}/issues/1/closed_by`,
    'GET /projects/:id/issues/:issue_iid/related_merge_requests': () => `/projects/${project.id}/issues/1/related_merge_requests`,
    'GET /projects/:id/merge_requests/:merge_request_iid/closes_issues': () => `/projects/${project.id}/merge_requests/1/closes_issues`,
    'GET /projects/:id/merge_requests/:merge_request_iid/related_issues': () => `/projects/${project.id}/merge_requests/1/related_issues`,
    'GET /projects/:id/merge_requests/:merge_request_iid/reviewers': () => `/projects/${project.id}/merge_requests/1/reviewers`,
    'GET /projects/:id/issues/:awardable_id/award_emoji': () => `/projects/${project.id}/issues/1/award_emoji`,
    'GET /projects/:id/issues/:awardable_id/notes/:note_id/award_emoji': () => `/projects/${project.id}/issues/1/notes/${awardedNotes.Issue}/award_emoji`,
    'GET /projects/:id/merge_requests/:awardable_id/award_emoji': () => `/projects/${project.id}/merge_requests/1/award_emoji`,
    'GET /projects/:id/merge_requests/:awardable_id/notes/:note_id/award_emoji': () => `/projects/${project.id}/merge_requests/1/notes/${awardedNotes.MergeRequest}/award_emoji`,
    'GET /projects/:id/snippets/:awardable_id/award_emoji': () => `/projects/${project.id}/snippets/${snippetId}/award_emoji`,
    'GET /projects/:id/snippets/:awardable_id/notes/:note_id/award_emoji': () => `/projects/${project.id}/snippets/${snippetId}/notes/${awardedNotes.Snippet}/award_emoji`,
    'GET /groups/:id/epics/:awardable_id/award_emoji': () => `/groups/${group.id}/epics/1/award_emoji`,
    'GET /groups/:id/epics/:awardable_id/notes/:note_id/award_emoji': () => `/groups/${group.id}/epics/1/notes/${awardedNotes.Epic}/award_emoji`,
    'GET /projects/:id/releases': () => `/projects/${releaseProject.id}/releases`,
    'GET /projects/:id/releases/:tag_name/assets/links': () => `/projects/${releaseProject.id}/releases/r0/assets/links`,
  };
  // Lists read with GET (a write that answers a page, as an epic issue's reorder does, is measured by its own tests).
  const lists = restRoutes(buildSchema()).filter((r) => r.paginate && r.method === 'GET');
  it('covers every list route of the route table', () => {
    expect(lists.length).toBeGreaterThan(0);
    for (const route of lists) {
      const family = route.path.split('/')[1];
      expect(`${route.method} ${route.path}` in special || !route.path.includes(':') || family in ids, `${route.method} ${route.path} has no fixture`).toBe(true);
    }
  });
  const EVENT_LISTS = new Set(['GET /events', 'GET /projects/:id/events', 'GET /users/:id/events']);
  /** Kinds of target whose checks the fixture's events reach: issues and merge requests, as events and as noteables. */
  const TARGET_KINDS = 2;
  for (const route of lists) {
    const name = `${route.method} ${route.path}`;
    const path = () => special[name]?.() ?? route.path.replace(':id', String(ids[route.path.split('/')[1]]?.()));
    it(`${name} costs the same for 1 row as for 4`, async () => {
      const sep = path().includes('?') ? '&' : '?';
      const token = asRoot.has(name) ? t.rootToken : owner.token;
      await measure(path(), token); // the caller's token and memberships are remembered from the first request on
      // The fewest of three tries: the server's background work (the job queue's polls, pipelines the fixtures' merge
      // requests started) may run a query meanwhile.
      const fewest = async (url: string) => Math.min(await measure(url, token), await measure(url, token), await measure(url, token));
      const one = await fewest(`${path()}${sep}per_page=1`);
      const four = await fewest(`${path()}${sep}per_page=4`);
      expect(one).toBeGreaterThan(0);
      // Event lists ask who may see each kind of target on the page once per kind (GitLab's Event#visible_to_user?:
      // issues, merge requests, and the noteables comments are on): a cost bounded by the kinds, never by the rows.
      if (EVENT_LISTS.has(name)) expect(four).toBeLessThanOrEqual(one + TARGET_KINDS);
      // Never more for more rows; fewer may happen where rows of a page prime loaders others ask (a child epic's
      // parent on the same page is not read again).
      else expect(four).toBeLessThanOrEqual(one);
    });
  }
});
