/** The Issue Links API: listing, getting, creating and deleting links, their permissions, notes and blocking counts. */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

let counting = false;
const statements: string[] = [];
const t = suiteServer({}, { onQuery: (sql) => counting && statements.push(sql) });

let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: { id: number; path: string; path_with_namespace: string };
let other: { id: number; path_with_namespace: string };
let hidden: { id: number };

type Issue = { id: number; iid: number; project_id: number };
const newIssue = async (title: string, projectId = project.id): Promise<Issue> =>
  (await t.api('POST', `/projects/${projectId}/issues`, { token: owner.token, body: { title } })).body;
const links = (issue: Issue) => `/projects/${issue.project_id}/issues/${issue.iid}/links`;

const ISSUE_BASIC_KEYS = [
  'id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'closed_at', 'closed_by', 'labels', 'milestone', 'assignees',
  'author', 'type', 'assignee', 'user_notes_count', 'merge_requests_count', 'upvotes', 'downvotes', 'due_date', 'confidential', 'discussion_locked',
  'issue_type', 'web_url', 'time_stats', 'task_completion_status', 'weight', 'blocking_issues_count', 'references', 'epic_iid', 'epic', 'iteration',
  'health_status',
];

beforeAll(async () => {
  [owner, guest, outsider] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  const group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id, visibility: 'private' });
  other = await createProject(t, owner.token, { visibility: 'private' });
  hidden = await createProject(t, outsider.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
});

describe('creating a link', () => {
  it('answers the link with both issues as IssueBasic, and notes it on both issues', async () => {
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    const res = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['source_issue', 'target_issue', 'link_type']);
    expect(Object.keys(res.body.source_issue)).toEqual(ISSUE_BASIC_KEYS);
    expect(res.body.source_issue).toMatchObject({ id: a.id, iid: a.iid });
    expect(res.body.target_issue).toMatchObject({ id: b.id, iid: b.iid });
    expect(res.body.link_type).toBe('relates_to');
    const notesA = await t.api('GET', `/projects/${project.id}/issues/${a.iid}/notes`, { token: owner.token });
    expect(notesA.body[0]).toMatchObject({ body: `marked this issue as related to #${b.iid}`, system: true });
    const notesB = await t.api('GET', `/projects/${project.id}/issues/${b.iid}/notes`, { token: owner.token });
    expect(notesB.body[0]).toMatchObject({ body: `marked this issue as related to #${a.iid}`, system: true });
  });

  it('takes the target project by path, and names a cross-project issue by its full reference', async () => {
    const [a, c] = [await newIssue('a'), await newIssue('c', other.id)];
    const res = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: other.path_with_namespace, target_issue_iid: c.iid } });
    expect(res.status, res.text).toBe(201);
    const notes = await t.api('GET', `/projects/${project.id}/issues/${a.iid}/notes`, { token: owner.token });
    expect(notes.body[0].body).toBe(`marked this issue as related to ${other.path_with_namespace}#${c.iid}`);
  });

  it('stores is_blocked_by as blocks the other way round, and counts open blocked issues', async () => {
    const [a, b] = [await newIssue('blocked'), await newIssue('blocker')];
    const res = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid, link_type: 'is_blocked_by' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.source_issue.id).toBe(b.id);
    expect(res.body.target_issue.id).toBe(a.id);
    expect(res.body.link_type).toBe('blocks');
    expect(res.body.source_issue.blocking_issues_count).toBe(1);
    const fromA = await t.api('GET', links(a), { token: owner.token });
    expect(fromA.body[0]).toMatchObject({ id: b.id, link_type: 'is_blocked_by' });
    const fromB = await t.api('GET', links(b), { token: owner.token });
    expect(fromB.body[0]).toMatchObject({ id: a.id, link_type: 'blocks' });
    const notes = await t.api('GET', `/projects/${project.id}/issues/${b.iid}/notes`, { token: owner.token });
    expect(notes.body[0].body).toBe(`marked this issue as blocking #${a.iid}`);
    await t.api('PUT', `/projects/${project.id}/issues/${a.iid}`, { token: owner.token, body: { state_event: 'close' } });
    const shown = await t.api('GET', `/projects/${project.id}/issues/${b.iid}`, { token: owner.token });
    expect(shown.body.blocking_issues_count).toBe(0);
  });

  it('counts again when a blocked issue goes with its deleted project, which no link service sees', async () => {
    const doomed = await createProject(t, owner.token, { visibility: 'private' });
    const [blocker, blocked] = [await newIssue('blocker'), await newIssue('doomed', doomed.id)];
    const made = await t.api('POST', links(blocker), { token: owner.token, body: { target_project_id: doomed.id, target_issue_iid: blocked.iid, link_type: 'blocks' } });
    expect(made.body.source_issue.blocking_issues_count).toBe(1);
    expect((await t.api('DELETE', `/projects/${doomed.id}`, { token: owner.token })).status).toBe(202);
    // The deletion job removes the project's rows, cascading to the link.
    await eventually(async () => (await t.server.database.prisma.project.count({ where: { id: doomed.id } })) === 0);
    const shown = await t.api('GET', `/projects/${project.id}/issues/${blocker.iid}`, { token: owner.token });
    expect(shown.body.blocking_issues_count).toBe(0);
    const gql = await t.graphql('query($p: ID!, $i: String!) { project(fullPath: $p) { issue(iid: $i) { blockingCount } } }', { p: project.path_with_namespace, i: String(blocker.iid) }, owner.token);
    expect(gql.body.data.project.issue.blockingCount).toBe(0);
  });

  it('answers GitLab’s errors: 409 when related either way, 404s for hidden targets, 400s for bad parameters, 422 for itself', async () => {
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid } });
    const again = await t.api('POST', links(b), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: a.iid } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Issue(s) already assigned' });
    const hiddenProject = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: hidden.id, target_issue_iid: 1 } });
    expect(hiddenProject.status).toBe(404);
    expect(hiddenProject.body).toEqual({ message: '404 Project Not Found' });
    const missing = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: 999999 } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    const noIid = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id } });
    expect(noIid.status).toBe(400);
    expect(noIid.body).toEqual({ error: 'target_issue_iid is missing' });
    const badType = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid, link_type: 'duplicates' } });
    expect(badType.status).toBe(400);
    expect(badType.body).toEqual({ error: 'link_type does not have a valid value' });
    const itself = await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: a.iid } });
    expect(itself.status).toBe(422);
    expect(itself.body).toEqual({ message: `#${a.iid} cannot be added: cannot be related to itself` });
  });

  it('lets Guests relate issues of their project, and refuses them another project’s issue with 403', async () => {
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    const res = await t.api('POST', links(a), { token: guest.token, body: { target_project_id: project.id, target_issue_iid: b.iid } });
    expect(res.status, res.text).toBe(201);
    const publicProject = await createProject(t, outsider.token, { visibility: 'public' });
    const foreign = (await t.api('POST', `/projects/${publicProject.id}/issues`, { token: outsider.token, body: { title: 'public' } })).body;
    const refused = await t.api('POST', links(a), { token: guest.token, body: { target_project_id: publicProject.id, target_issue_iid: foreign.iid } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "Couldn't link issues. You must have at least the Guest role in both projects." });
  });
});

describe('listing and getting links', () => {
  it('lists the related issues with the link’s fields, oldest link first, hiding those the caller may not read', async () => {
    const [a, b, c] = [await newIssue('a'), await newIssue('b'), await newIssue('c', other.id)];
    await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid } });
    await t.api('POST', links(a), { token: owner.token, body: { target_project_id: other.id, target_issue_iid: c.iid } });
    const res = await t.api('GET', links(a), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((i: Issue) => i.id)).toEqual([b.id, c.id]);
    const keys = Object.keys(res.body[0]);
    expect(keys.slice(-4)).toEqual(['issue_link_id', 'link_type', 'link_created_at', 'link_updated_at']);
    expect(keys).toContain('_links');
    expect(keys).not.toContain('subscribed');
    const byGuest = await t.api('GET', links(a), { token: guest.token });
    expect(byGuest.body.map((i: Issue) => i.id)).toEqual([b.id]);

    const link = await t.api('GET', `${links(a)}/${res.body[0].issue_link_id}`, { token: owner.token });
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: 'relates_to' });
    const fromTarget = await t.api('GET', `${links(b)}/${res.body[0].issue_link_id}`, { token: owner.token });
    expect(fromTarget.status).toBe(200);
    const hiddenTarget = await t.api('GET', `${links(a)}/${res.body[1].issue_link_id}`, { token: guest.token });
    expect(hiddenTarget.status).toBe(404);
    expect(hiddenTarget.body).toEqual({ message: '404 Project Not Found' });
    const unrelated = await t.api('GET', `${links(c)}/${res.body[0].issue_link_id}`, { token: owner.token });
    expect(unrelated.status).toBe(404);
    expect(unrelated.body).toEqual({ message: '404 Not found' });
  });

  it('answers 401 to anonymous callers and 404 to non-members of a private project', async () => {
    const a = await newIssue('a');
    expect((await t.api('GET', links(a), { token: null })).status).toBe(401);
    const res = await t.api('GET', links(a), { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('deleting a link', () => {
  it('removes it, answers it, and notes the removal on both issues', async () => {
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid } });
    const [link] = (await t.api('GET', links(a), { token: owner.token })).body;
    const res = await t.api('DELETE', `${links(b)}/${link.issue_link_id}`, { token: owner.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: 'relates_to' });
    expect((await t.api('GET', links(a), { token: owner.token })).body).toEqual([]);
    const notes = await t.api('GET', `/projects/${project.id}/issues/${a.iid}/notes`, { token: owner.token });
    expect(notes.body[0].body).toBe(`removed the relation with #${b.iid}`);
    const gone = await t.api('DELETE', `${links(a)}/${link.issue_link_id}`, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
  });

  it('answers 404 No Issue Link found to a caller who may not relate the other issue', async () => {
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    await t.api('POST', links(a), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: b.iid } });
    const [link] = (await t.api('GET', links(a), { token: owner.token })).body;
    await addMember(t, owner.token, 'projects', other.id, guest.id, 10);
    const c = await newIssue('c', other.id);
    await t.api('POST', links(c), { token: owner.token, body: { target_project_id: project.id, target_issue_iid: a.iid } });
    const reporterOnly = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, reporterOnly.id, 20);
    const readable = await t.api('GET', `${links(a)}/${link.issue_link_id}`, { token: reporterOnly.token });
    expect(readable.status).toBe(200);
    const [, toC] = (await t.api('GET', links(a), { token: owner.token })).body;
    const refused = await t.api('DELETE', `${links(a)}/${toC.issue_link_id}`, { token: reporterOnly.token });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: 'No Issue Link found' });
  });
});

describe('gitbeaker', () => {
  it('creates, lists and removes links through IssueLinks', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    const created = await api.IssueLinks.create(project.id, a.iid, project.id, b.iid, { linkType: 'blocks' });
    expect(created.link_type).toBe('blocks');
    const all = await api.IssueLinks.all(project.id, a.iid);
    expect(all.map((i) => i.id)).toEqual([b.id]);
    const removed = await api.IssueLinks.remove(project.id, a.iid, (all[0] as unknown as { issue_link_id: number }).issue_link_id);
    expect(removed.target_issue.id).toBe(b.id);
  });
});

describe('GraphQL', () => {
  it('creates a link with issueLinkCreate and reads blockedByIssues, blockingCount and relatedIssues', async () => {
    const [a, b] = [await newIssue('a'), await newIssue('b')];
    const created = await t.graphql(
      `mutation($input: IssueLinkCreateInput!) { issueLinkCreate(input: $input) { issueLink { id linkType sourceIssue { iid } targetIssue { iid } } errors } }`,
      { input: { projectPath: project.path_with_namespace, iid: String(b.iid), targetProjectPath: project.path_with_namespace, targetIssueIid: String(a.iid), linkType: 'IS_BLOCKED_BY' } },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data?.issueLinkCreate).toMatchObject({ issueLink: { linkType: 'blocks', sourceIssue: { iid: String(a.iid) }, targetIssue: { iid: String(b.iid) } }, errors: [] });
    const read = await t.graphql(
      `query($path: ID!, $a: String!, $b: String!) { project(fullPath: $path) {
        a: issue(iid: $a) { blockingCount relatedIssues { linkType issue { iid } } }
        b: issue(iid: $b) { blocked blockedByCount blockedByIssues { nodes { iid } } }
      } }`,
      { path: project.path_with_namespace, a: String(a.iid), b: String(b.iid) },
      owner.token,
    );
    expect(read.body.data?.project).toEqual({
      a: { blockingCount: 1, relatedIssues: [{ linkType: 'blocks', issue: { iid: String(b.iid) } }] },
      b: { blocked: true, blockedByCount: 1, blockedByIssues: { nodes: [{ iid: String(a.iid) }] } },
    });
  });

  it('reads the links of a listed page of issues in a fixed number of statements, whatever its length', async () => {
    const listed = await createProject(t, owner.token, { visibility: 'private' });
    const chain = async (n: number) => {
      const issues: Issue[] = [];
      for (let i = 0; i < n; i++) issues.push(await newIssue(`chain ${i}`, listed.id));
      // Each issue blocks the next; the first is also related to the last.
      for (let i = 0; i + 1 < n; i++) {
        await t.api('POST', links(issues[i]), { token: owner.token, body: { target_project_id: listed.id, target_issue_iid: issues[i + 1].iid, link_type: 'blocks' } });
      }
      await t.api('POST', links(issues[0]), { token: owner.token, body: { target_project_id: listed.id, target_issue_iid: issues[n - 1].iid } });
      return issues;
    };
    const read = async (first: number) => {
      statements.length = 0;
      counting = true;
      try {
        return await t.graphql(
          `query($path: ID!, $first: Int!) { project(fullPath: $path) { issues(first: $first, sort: CREATED_ASC) { nodes {
            iid blocked blockedByCount blockedByIssues { nodes { iid } } relatedIssues { linkType issue { iid } }
          } } } }`,
          { path: listed.path_with_namespace, first },
          owner.token,
        );
      } finally {
        counting = false;
      }
    };
    const issues = await chain(6);
    const few = await read(2);
    const fewStatements = statements.length;
    const all = await read(6);
    expect(all.body.errors).toBeUndefined();
    expect(statements.length).toBe(fewStatements);
    expect(few.body.data.project.issues.nodes).toHaveLength(2);
    const nodes = all.body.data.project.issues.nodes;
    const iid = (i: number) => String(issues[i].iid);
    expect(nodes[0]).toEqual({
      iid: iid(0), blocked: false, blockedByCount: 0, blockedByIssues: { nodes: [] },
      relatedIssues: [{ linkType: 'blocks', issue: { iid: iid(1) } }, { linkType: 'relates_to', issue: { iid: iid(5) } }],
    });
    expect(nodes[3]).toEqual({
      iid: iid(3), blocked: true, blockedByCount: 1, blockedByIssues: { nodes: [{ iid: iid(2) }] },
      relatedIssues: [{ linkType: 'is_blocked_by', issue: { iid: iid(2) } }, { linkType: 'blocks', issue: { iid: iid(4) } }],
    });
    expect(nodes[5].relatedIssues).toEqual([{ linkType: 'is_blocked_by', issue: { iid: iid(4) } }, { linkType: 'relates_to', issue: { iid: iid(0) } }]);
  });
});
