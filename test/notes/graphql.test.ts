/** GitLab's Note and Discussion over GraphQL (createNote, updateNote, destroyNote, bodyHtml), and @gitbeaker/rest's commit comments and discussions. */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };
let sha: string;

beforeAll(async () => {
  [owner, developer, reporter] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'Start', actions: [{ action: 'create', file_path: 'a.txt', content: 'one\ntwo\n' }] },
  });
  sha = res.body.id;
});

const NOTE_FIELDS = 'id body bodyHtml author { username } system internal resolvable resolved discussion { id replyId individualNote notes { count nodes { id } } } project { id } url userPermissions { adminNote readNote resolveNote }';

describe('GraphQL', () => {
  const noteable = () => `gid://gitlab/Commit/${sha}?project_id=${project.id}`;

  it('creates a comment, replies in its thread, edits and destroys notes with GitLab’s global IDs', async () => {
    const created = await t.graphql(`mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "Hello @${developer.username}", clientMutationId: "c1" }) { clientMutationId errors note { ${NOTE_FIELDS} } } }`, { id: noteable() }, developer.token);
    expect(created.body.errors).toBeUndefined();
    const payload = created.body.data.createNote;
    expect(payload).toMatchObject({ clientMutationId: 'c1', errors: [] });
    const note = payload.note;
    expect(note.id).toMatch(/^gid:\/\/gitlab\/Note\/\d+$/);
    expect(note.discussion.id).toMatch(/^gid:\/\/gitlab\/Discussion\/[0-9a-f]{40}$/);
    expect(note).toMatchObject({
      body: `Hello @${developer.username}`,
      author: { username: developer.username },
      system: false,
      internal: false,
      resolvable: false,
      resolved: false,
      discussion: { replyId: note.discussion.id, individualNote: true, notes: { count: 1, nodes: [{ id: note.id }] } },
      project: { id: `gid://gitlab/Project/${project.id}` },
      url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/commit/${sha}#note_${note.id.split('/').pop()}`,
      userPermissions: { adminNote: true, readNote: true, resolveNote: false },
    });
    expect(note.bodyHtml).toContain(`<a href="${EXTERNAL_URL}/${developer.username}" data-reference-type="user" data-user="${developer.id}"`);

    // A single commit comment cannot be replied to (GitLab's replyable types); a thread made over REST can.
    const refused = await t.graphql(`mutation($id: NoteableID!, $d: DiscussionID) { createNote(input: { noteableId: $id, body: "reply", discussionId: $d }) { errors note { id } } }`, { id: noteable(), d: note.discussion.id }, developer.token);
    expect(refused.body.data.createNote).toEqual({ errors: ['Discussion can not be replied to.'], note: null });
    const thread = (await t.api('POST', `/projects/${project.id}/repository/commits/${sha}/discussions`, { token: owner.token, body: { body: 'a thread' } })).body;
    const reply = await t.graphql(`mutation($id: NoteableID!, $d: DiscussionID) { createNote(input: { noteableId: $id, body: "in the thread", discussionId: $d }) { errors note { body discussion { id individualNote notes { nodes { body } } } } } }`, { id: noteable(), d: `gid://gitlab/Discussion/${thread.id}` }, developer.token);
    expect(reply.body.data.createNote).toEqual({
      errors: [],
      note: { body: 'in the thread', discussion: { id: `gid://gitlab/Discussion/${thread.id}`, individualNote: false, notes: { nodes: [{ body: 'a thread' }, { body: 'in the thread' }] } } },
    });

    // Authors edit their own; others see adminNote false and are refused as GitLab refuses (resource not available).
    const updated = await t.graphql(`mutation($id: NoteID!) { updateNote(input: { id: $id, body: "edited" }) { errors note { body lastEditedBy { username } lastEditedAt } } }`, { id: note.id }, developer.token);
    expect(updated.body.data.updateNote).toMatchObject({ errors: [], note: { body: 'edited', lastEditedBy: { username: developer.username }, lastEditedAt: expect.any(String) } });
    const byReporter = await t.graphql(`mutation($id: NoteID!) { updateNote(input: { id: $id, body: "hijack" }) { errors note { body } } }`, { id: note.id }, reporter.token);
    expect(byReporter.body.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    const blank = await t.graphql(`mutation($id: NoteID!) { updateNote(input: { id: $id, body: " " }) { errors note { body } } }`, { id: note.id }, developer.token);
    expect(blank.body.data.updateNote).toEqual({ errors: ["Note can't be blank"], note: null });
    const destroyed = await t.graphql(`mutation($id: NoteID!) { destroyNote(input: { id: $id }) { errors note { id } } }`, { id: note.id }, owner.token);
    expect(destroyed.body.data.destroyNote).toEqual({ errors: [], note: null });
    const gone = await t.graphql(`mutation($id: NoteID!) { destroyNote(input: { id: $id }) { errors note { id } } }`, { id: note.id }, owner.token);
    expect(gone.body.errors?.[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
  });

  it('hides notes of projects the viewer cannot read, and refuses malformed IDs in GitLab’s words', async () => {
    const stranger = await createUser(t);
    const hidden = await t.graphql(`mutation($id: NoteableID!) { createNote(input: { noteableId: $id, body: "x" }) { errors note { id } } }`, { id: noteable() }, stranger.token);
    expect(hidden.body.errors?.[0]).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    const bad = await t.graphql(`mutation { createNote(input: { noteableId: "gid://gitlab/Project/1", body: "x" }) { errors } }`, {}, owner.token);
    expect(bad.body.errors?.[0].message).toContain('"gid://gitlab/Project/1" does not represent an instance of Noteable');
    const noProject = await t.graphql(`mutation { createNote(input: { noteableId: "gid://gitlab/Commit/${sha}", body: "x" }) { errors } }`, {}, owner.token);
    expect(noProject.body.errors?.[0].message).toContain('names no project');
    const reads = await t.graphql(`query($p: ID!, $sha: String!) { noteableThreads(projectId: $p, noteableType: COMMIT, key: $sha) { discussions { count } } }`, { p: String(project.id), sha }, stranger.token);
    expect(reads.body.errors?.[0]).toMatchObject({ message: '404 Project Not Found' });
  });

  it('reads a commit’s comments and threads from the repository', async () => {
    const res = await t.graphql(
      `query($p: ID!, $sha: String!) { projectRepository(projectId: $p) { commit(ref: $sha) { comments { count } discussions { count nodes { id notes { nodes { body } } } } } } }`,
      { p: String(project.id), sha },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const { comments, discussions } = res.body.data.projectRepository.commit;
    // Every comment is a note of some thread: a commit has at most as many threads as notes.
    expect(discussions.count).toBeGreaterThan(0);
    expect(discussions.count).toBeLessThanOrEqual(comments.count);
    expect(res.body.data.projectRepository.commit.discussions.nodes.map((d: any) => d.notes.nodes[0].body)).toContain('a thread');
  });

  it('renders Markdown sanitised: raw HTML escaped, unsafe links dropped, mentions of existing users only, #12 plain, code untouched', async () => {
    const body = [
      '**bold** <script>alert(1)</script> <img src=x onerror=alert(1)>',
      '[click](javascript:alert(1)) [ok](https://example.com) @nobody-here',
      `Hi @${owner.username} and #12, \`@${owner.username}\``,
    ].join('\n\n');
    const res = await t.graphql(`mutation($id: NoteableID!, $b: String!) { createNote(input: { noteableId: $id, body: $b }) { note { bodyHtml } } }`, { id: noteable(), b: body }, owner.token);
    const html: string = res.body.data.createNote.note.bodyHtml;
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    // The handler is text inside the escaped tag, never an attribute.
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<a href="https://example.com" rel="nofollow noreferrer noopener">ok</a>');
    expect(html).toContain('@nobody-here');
    expect(html).not.toContain('href="http://gitlab.example.com/nobody-here"');
    expect(html).toContain(`<a href="${EXTERNAL_URL}/${owner.username}" data-reference-type="user" data-user="${owner.id}" class="gfm gfm-project_member js-user-link" title="User ${owner.username}">@${owner.username}</a> and #12, <code>@${owner.username}</code>`);
  });
});

describe('references in bodyHtml', () => {
  it('links #12 and !3 to issues and merge requests of the project the viewer may read, with their titles; the rest stays text', async () => {
    const guest = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
    const open = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Public <plan>' } })).body;
    const secret = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'Secret plan', confidential: true } })).body;
    await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'refs-feature', start_branch: 'main', commit_message: 'Feature', actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] },
    });
    const mr = (await t.api('POST', `/projects/${project.id}/merge_requests`, { token: owner.token, body: { source_branch: 'refs-feature', target_branch: 'main', title: 'Add b' } })).body;
    const body = `See #${open.iid}, #${secret.iid}, !${mr.iid} and #999; \`#${open.iid}\` in code`;
    await t.api('POST', `/projects/${project.id}/issues/${open.iid}/notes`, { token: owner.token, body: { body } });
    const html = async (token: string) => {
      const res = await t.graphql(
        `query($path: ID!, $iid: String!) { project(fullPath: $path) { issue(iid: $iid) { notes { nodes { body bodyHtml } } } } }`,
        { path: project.path_with_namespace, iid: String(open.iid) },
        token,
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data.project.issue.notes.nodes.find((n: { body: string }) => n.body === body).bodyHtml as string;
    };
    const base = `${EXTERNAL_URL}/${project.path_with_namespace}/-`;
    const seen = await html(owner.token);
    expect(seen).toContain(`<a href="${base}/issues/${open.iid}" data-reference-type="issue" title="Public &lt;plan&gt;" class="gfm gfm-issue">#${open.iid}</a>`);
    expect(seen).toContain(`<a href="${base}/issues/${secret.iid}" data-reference-type="issue" title="Secret plan" class="gfm gfm-issue">#${secret.iid}</a>`);
    expect(seen).toContain(`<a href="${base}/merge_requests/${mr.iid}" data-reference-type="merge_request" title="Add b" class="gfm gfm-merge_request">!${mr.iid}</a>`);
    expect(seen).toContain(' and #999;');
    expect(seen).toContain(`<code>#${open.iid}</code>`);
    // A Guest may not read the confidential issue: its number stays text, its title unseen.
    const guestSees = await html(guest.token);
    expect(guestSees).toContain(`title="Public &lt;plan&gt;" class="gfm gfm-issue">#${open.iid}</a>`);
    expect(guestSees).toContain(`, #${secret.iid}, `);
    expect(guestSees).not.toContain('Secret plan');
  });
});

describe('@gitbeaker/rest', () => {
  let api: InstanceType<typeof Gitlab>;
  beforeAll(() => {
    api = new Gitlab({ host: t.url, token: developer.token });
  });

  it('comments on a commit and lists its comments (Commits.createComment, allComments)', async () => {
    const comment = await api.Commits.createComment(project.id, sha, 'Nice code!', { path: 'a.txt', line: 2, lineType: 'new' });
    expect(comment).toMatchObject({ note: 'Nice code!', path: 'a.txt', line: 2, line_type: 'new', author: { username: developer.username } });
    const all = await api.Commits.allComments(project.id, sha);
    expect(all.map((c) => c.note)).toContain('Nice code!');
  });

  it('runs a thread’s life through CommitDiscussions', async () => {
    const discussion = await api.CommitDiscussions.create(project.id, sha, 'Discussion body');
    expect(discussion.id).toMatch(/^[0-9a-f]{40}$/);
    const note = await api.CommitDiscussions.addNote(project.id, sha, discussion.id, 'first note');
    expect(note).toMatchObject({ body: 'first note', type: 'DiscussionNote', noteable_type: 'Commit' });
    const edited = await api.CommitDiscussions.editNote(project.id, sha, discussion.id, note.id as number, { body: 'updated body' });
    expect(edited.body).toBe('updated body');
    const shown = await api.CommitDiscussions.show(project.id, sha, discussion.id);
    expect((shown.notes as { body: string }[]).map((n) => n.body)).toEqual(['Discussion body', 'updated body']);
    expect((await api.CommitDiscussions.all(project.id, sha)).map((d) => d.id)).toContain(discussion.id);
    await api.CommitDiscussions.removeNote(project.id, sha, discussion.id, note.id as number);
    expect(((await api.CommitDiscussions.show(project.id, sha, discussion.id)).notes as { body: string }[]).map((n) => n.body)).toEqual(['Discussion body']);
    // A diff thread with GitLab's position hash.
    const diff = await api.CommitDiscussions.create(project.id, sha, 'on a line', {
      position: { baseSha: sha, startSha: sha, headSha: sha, positionType: 'text', newPath: 'a.txt', newLine: '2' } as never,
    });
    expect(diff.notes?.[0]).toMatchObject({ type: 'DiffNote', position: expect.objectContaining({ position_type: 'text' }) });
  });
});
