/**
 * The notes and discussions lists' totals come from one row per noteable that a trigger keeps (migration
 * 20270127600001), not from counting the notes. Each total must still equal what the list holds through every way
 * notes come and go: comments, threads, a single comment turned into a thread, system notes, deletions that move a
 * thread's start, concurrent replies, commit comments, and the noteable's own deletion.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const db = () => t.server.database.prisma;

let owner: TestUser;
let project: { id: number };

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
});

/** The list's `X-Total` and how many items it holds when read whole. */
async function totals(path: string): Promise<[string | null, number]> {
  const res = await t.api('GET', `${path}?per_page=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return [res.headers.get('x-total'), res.body.length];
}

async function expectTotals(base: string, notes: number, threads: number) {
  expect(await totals(`${base}/notes`)).toEqual([String(notes), notes]);
  expect(await totals(`${base}/discussions`)).toEqual([String(threads), threads]);
}

/** Every kept count equals a count of the notes themselves. */
async function expectCountsExact() {
  const rows = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM (
      SELECT note_count_key("noteableType", "noteableId", "projectId", "commitId") AS key, count(*) AS notes, count(*) FILTER (WHERE "startsDiscussion") AS threads
      FROM notes GROUP BY 1
    ) real FULL JOIN note_counts c ON c.key = real.key
    WHERE coalesce(real.notes, 0) <> coalesce(c.notes, 0) OR coalesce(real.threads, 0) <> coalesce(c.threads, 0)`;
  expect(Number(rows[0].n)).toBe(0);
}

describe('notes and discussions totals', () => {
  it('follow comments, threads, replies, system notes and deletions of an issue', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'counted' } })).body;
    const base = `/projects/${project.id}/issues/${issue.iid}`;
    await expectTotals(base, 0, 0);
    const single = (await t.api('POST', `${base}/notes`, { token: owner.token, body: { body: 'one' } })).body;
    await t.api('POST', `${base}/notes`, { token: owner.token, body: { body: 'two' } });
    await expectTotals(base, 2, 2);
    const thread = (await t.api('POST', `${base}/discussions`, { token: owner.token, body: { body: 'a thread' } })).body;
    await t.api('POST', `${base}/discussions/${thread.id}/notes`, { token: owner.token, body: { body: 'a reply' } });
    await expectTotals(base, 4, 3);
    // A reply to a single comment makes it a thread: one note more, no thread more.
    const discussions = (await t.api('GET', `${base}/discussions`, { token: owner.token })).body as { id: string; notes: { id: number }[] }[];
    const ofSingle = discussions.find((d) => d.notes[0].id === single.id)!;
    expect((await t.api('POST', `${base}/discussions/${ofSingle.id}/notes`, { token: owner.token, body: { body: 'a reply to one' } })).status).toBe(201);
    await expectTotals(base, 5, 3);
    // A system note is a thread of its own.
    await t.api('PUT', base, { token: owner.token, body: { add_labels: 'counted' } });
    const withSystem = await totals(`${base}/notes`);
    expect(withSystem[0]).toBe(String(withSystem[1]));
    const systemNotes = withSystem[1] - 5;
    expect(systemNotes).toBeGreaterThanOrEqual(0);
    // Deleting a thread's first note moves its start to the next note: the thread stays counted once.
    await t.api('DELETE', `${base}/notes/${thread.notes[0].id}`, { token: owner.token });
    await expectTotals(base, 4 + systemNotes, 3 + systemNotes);
    // Deleting a single comment takes its thread with it.
    const two = (await t.api('GET', `${base}/notes?sort=asc&per_page=100`, { token: owner.token })).body.find((n: { body: string }) => n.body === 'two');
    await t.api('DELETE', `${base}/notes/${two.id}`, { token: owner.token });
    await expectTotals(base, 3 + systemNotes, 2 + systemNotes);
    await expectCountsExact();
    // The issue's deletion takes its notes, and their count, with it.
    expect((await t.api('DELETE', base, { token: owner.token })).status).toBe(204);
    await expectCountsExact();
  });

  it('stay exact under concurrent replies while the thread’s first note is deleted', async () => {
    const issue = (await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'busy' } })).body;
    const base = `/projects/${project.id}/issues/${issue.iid}`;
    const thread = (await t.api('POST', `${base}/discussions`, { token: owner.token, body: { body: 'start' } })).body;
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => t.api('POST', `${base}/discussions/${thread.id}/notes`, { token: owner.token, body: { body: `reply ${i}` } })),
      t.api('DELETE', `${base}/notes/${thread.notes[0].id}`, { token: owner.token }),
      ...Array.from({ length: 4 }, (_, i) => t.api('POST', `${base}/notes`, { token: owner.token, body: { body: `single ${i}` } })),
    ]);
    // A reply that came after the thread's only note was gone found no thread (404), as GitLab answers it.
    const replies = answers.slice(0, 8).filter((a) => a.status === 201).length;
    expect(answers.slice(0, 8).every((a) => a.status === 201 || a.status === 404)).toBe(true);
    await expectTotals(base, replies + 4, (replies ? 1 : 0) + 4);
    await expectCountsExact();
  });

  it('follow a commit’s comments', async () => {
    const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'c', actions: [{ action: 'create', file_path: 'f', content: 'x' }] },
    });
    const base = `/projects/${project.id}/repository/commits/${commit.body.id}`;
    for (const note of ['a', 'b']) expect((await t.api('POST', `${base}/comments`, { token: owner.token, body: { note } })).status).toBe(201);
    const comments = await t.api('GET', `${base}/comments`, { token: owner.token });
    expect([comments.headers.get('x-total'), comments.body.length]).toEqual(['2', 2]);
    expect(await totals(`${base}/discussions`)).toEqual(['2', 2]);
    await expectCountsExact();
  });
});
