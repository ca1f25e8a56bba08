/** Notes fire GitLab's Note Hook to the project's hooks that hear note events, from the job queue. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_URL, suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { startReceiver, type Receiver } from '../hooks/receiver.js';

// Project hooks refuse local addresses by default; the receiver is on 127.0.0.1.
const t = suiteServer({ allowLocalRequestsFromWebHooks: true, webhookRetryBaseMs: 0, webhookMaxAttempts: 1 });
let receiver: Receiver;
let owner: TestUser;
let project: { id: number; name: string; path_with_namespace: string };
let sha: string;

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createUser(t);
  project = await createProject(t, owner.token, { visibility: 'private' });
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'Start\n\nBody', actions: [{ action: 'create', file_path: 'a.txt', content: 'one\n' }] },
  });
  sha = res.body.id;
});
afterAll(() => receiver?.close());

describe('note hooks', () => {
  it('delivers a Note Hook with GitLab’s note data for a commit comment and a thread reply, and nothing to hooks that do not hear notes', async () => {
    await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/pushes-only`, push_events: false } });
    await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body: { url: `${receiver.url}/notes`, push_events: false, note_events: true, token: 'note-secret' } });
    const thread = (await t.api('POST', `/projects/${project.id}/repository/commits/${sha}/discussions`, { token: owner.token, body: { body: 'Looks good' } })).body;
    const got = await receiver.next();
    expect(got.path).toBe('/notes');
    expect(got.headers['x-gitlab-event']).toBe('Note Hook');
    expect(got.headers['x-gitlab-token']).toBe('note-secret');
    const noteId = thread.notes[0].id;
    expect(got.json).toMatchObject({
      object_kind: 'note',
      event_type: 'note',
      user: { id: owner.id, username: owner.username, name: `User ${owner.username}`, email: `${owner.username}@example.com` },
      project_id: project.id,
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
      repository: { name: project.name },
      object_attributes: {
        id: noteId,
        note: 'Looks good',
        description: 'Looks good',
        noteable_type: 'Commit',
        noteable_id: null,
        commit_id: sha,
        discussion_id: thread.id,
        type: 'DiscussionNote',
        author_id: owner.id,
        project_id: project.id,
        system: false,
        action: 'create',
        url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/commit/${sha}#note_${noteId}`,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/),
      },
      commit: { id: sha, title: 'Start', message: 'Start\n\nBody', url: `${EXTERNAL_URL}/${project.path_with_namespace}/-/commit/${sha}` },
    });
    await t.api('POST', `/projects/${project.id}/repository/commits/${sha}/comments`, { token: owner.token, body: { note: 'And a comment' } });
    const second = await receiver.next();
    expect(second.path).toBe('/notes');
    expect(second.json.object_attributes).toMatchObject({ note: 'And a comment', type: null });
  });
});
