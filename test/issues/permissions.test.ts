/**
 * Who may do what with issues (GitLab's IssuePolicy): anonymous callers, guests, reporters, the author, an assignee,
 * another user and an administrator, on public and private projects, with public and confidential issues.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

type Who = 'anonymous' | 'guest' | 'reporter' | 'author' | 'assignee' | 'other' | 'admin';
const WHO: Who[] = ['anonymous', 'guest', 'reporter', 'author', 'assignee', 'other', 'admin'];

let owner: TestUser;
const users = {} as Record<Exclude<Who, 'anonymous' | 'admin'>, TestUser>;
const projects = {} as Record<'public' | 'private', { id: number }>;
/** Per project: a public issue and a confidential one, both by `author` and assigned to `assignee`. */
const iids = {} as Record<'public' | 'private', { open: number; confidential: number }>;

const tokenOf = (who: Who) => (who === 'anonymous' ? null : who === 'admin' ? t.rootToken : users[who].token);

beforeAll(async () => {
  owner = await createUser(t);
  const [guest, reporter, author, assignee, other] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t)));
  Object.assign(users, { guest, reporter, author, assignee, other });
  for (const visibility of ['public', 'private'] as const) {
    const project = await createProject(t, owner.token, { visibility });
    projects[visibility] = project;
    await addMember(t, owner.token, 'projects', project.id, guest.id, 10);
    await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
    await addMember(t, owner.token, 'projects', project.id, author.id, 10);
    await addMember(t, owner.token, 'projects', project.id, assignee.id, 10);
    const make = async (confidential: boolean) => {
      const made = await t.api('POST', `/projects/${project.id}/issues`, { token: author.token, body: { title: 'matrix', confidential } });
      expect(made.status, made.text).toBe(201);
      // Assignees are metadata: a Reporter sets them.
      const assigned = await t.api('PUT', `/projects/${project.id}/issues/${made.body.iid}`, { token: reporter.token, body: { assignee_ids: [assignee.id] } });
      expect(assigned.body.assignees.map((u: { id: number }) => u.id)).toEqual([assignee.id]);
      return made.body.iid as number;
    };
    iids[visibility] = { open: await make(false), confidential: await make(true) };
  }
});

/** GET of one issue: 200 when readable, else 404 (401 never: reading is open to anonymous callers of public projects). */
const READ: Record<'public' | 'private', Record<'open' | 'confidential', Record<Who, number>>> = {
  public: {
    open: { anonymous: 200, guest: 200, reporter: 200, author: 200, assignee: 200, other: 200, admin: 200 },
    confidential: { anonymous: 404, guest: 404, reporter: 200, author: 200, assignee: 200, other: 404, admin: 200 },
  },
  private: {
    open: { anonymous: 404, guest: 200, reporter: 200, author: 200, assignee: 200, other: 404, admin: 200 },
    confidential: { anonymous: 404, guest: 404, reporter: 200, author: 200, assignee: 200, other: 404, admin: 200 },
  },
};

/** PUT of the title: readers who are not Reporters, authors or assignees get 403. */
const UPDATE: Record<'public' | 'private', Record<'open' | 'confidential', Record<Who, number>>> = {
  public: {
    open: { anonymous: 401, guest: 403, reporter: 200, author: 200, assignee: 200, other: 403, admin: 200 },
    confidential: { anonymous: 401, guest: 404, reporter: 200, author: 200, assignee: 200, other: 404, admin: 200 },
  },
  private: {
    open: { anonymous: 401, guest: 403, reporter: 200, author: 200, assignee: 200, other: 404, admin: 200 },
    confidential: { anonymous: 401, guest: 404, reporter: 200, author: 200, assignee: 200, other: 404, admin: 200 },
  },
};

describe('issue permission matrix', () => {
  for (const visibility of ['public', 'private'] as const) {
    for (const kind of ['open', 'confidential'] as const) {
      it(`reads and lists a ${kind} issue of a ${visibility} project as GitLab's IssuePolicy says`, async () => {
        const project = projects[visibility];
        const iid = iids[visibility][kind];
        const got: Record<string, number> = {};
        const listed: Record<string, boolean> = {};
        for (const who of WHO) {
          got[who] = (await t.api('GET', `/projects/${project.id}/issues/${iid}`, { token: tokenOf(who) })).status;
          const list = await t.api('GET', `/projects/${project.id}/issues`, { token: tokenOf(who) });
          listed[who] = list.status === 200 && list.body.some((i: { iid: number }) => i.iid === iid);
          // Notes and threads are hidden with the issue.
          const threads = await t.api('GET', `/projects/${project.id}/issues/${iid}/discussions`, { token: tokenOf(who) });
          if (who !== 'anonymous') expect(threads.status, `${who} threads`).toBe(got[who]);
        }
        expect(got).toEqual(READ[visibility][kind]);
        expect(listed).toEqual(Object.fromEntries(WHO.map((who) => [who, READ[visibility][kind][who] === 200])));
      });

      it(`updates a ${kind} issue of a ${visibility} project only for Reporters, its author and its assignees`, async () => {
        const project = projects[visibility];
        const iid = iids[visibility][kind];
        const got: Record<string, number> = {};
        for (const who of WHO) {
          got[who] = (await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: tokenOf(who), body: { title: `by ${who}` } })).status;
        }
        expect(got).toEqual(UPDATE[visibility][kind]);
      });
    }
  }

  it('lets only Owners and administrators delete, and keeps metadata for Reporters', async () => {
    const project = projects.public;
    const made = await t.api('POST', `/projects/${project.id}/issues`, { token: users.other.token, body: { title: 'outsider', labels: 'x', weight: 2 } });
    // A signed-in non-member may open an issue on a public project; its metadata is dropped.
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ labels: [], weight: null });
    expect((await t.api('POST', `/projects/${projects.private.id}/issues`, { token: users.other.token, body: { title: 'x' } })).status).toBe(404);
    // The author (not a Reporter) changes the title; a weight is ignored.
    const edited = await t.api('PUT', `/projects/${project.id}/issues/${made.body.iid}`, { token: users.other.token, body: { title: 'edited', weight: 4 } });
    expect(edited.body).toMatchObject({ title: 'edited', weight: null });
    for (const who of ['guest', 'reporter', 'author', 'other'] as const) {
      expect((await t.api('DELETE', `/projects/${project.id}/issues/${made.body.iid}`, { token: users[who].token })).status, who).toBe(403);
    }
    expect((await t.api('DELETE', `/projects/${project.id}/issues/${made.body.iid}`, { token: null })).status).toBe(401);
    expect((await t.api('DELETE', `/projects/${project.id}/issues/${made.body.iid}`, { token: t.rootToken })).status).toBe(204);
  });

  it('lets only Reporters comment on an issue whose discussion is locked', async () => {
    const project = projects.public;
    const iid = iids.public.open;
    const locked = await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: users.reporter.token, body: { discussion_locked: true } });
    expect(locked.body.discussion_locked).toBe(true);
    expect((await t.api('POST', `/projects/${project.id}/issues/${iid}/notes`, { token: users.guest.token, body: { body: 'x' } })).status).toBe(403);
    expect((await t.api('POST', `/projects/${project.id}/issues/${iid}/notes`, { token: users.other.token, body: { body: 'x' } })).status).toBe(403);
    expect((await t.api('POST', `/projects/${project.id}/issues/${iid}/notes`, { token: users.reporter.token, body: { body: 'x' } })).status).toBe(201);
    await t.api('PUT', `/projects/${project.id}/issues/${iid}`, { token: users.reporter.token, body: { discussion_locked: false } });
    expect((await t.api('POST', `/projects/${project.id}/issues/${iid}/notes`, { token: users.other.token, body: { body: 'x' } })).status).toBe(201);
  });

  it('honours created_at for administrators and Owners only', async () => {
    const project = projects.public;
    const when = '2020-01-02T03:04:05.000Z';
    const byOwner = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'old', created_at: when } });
    expect(byOwner.body.created_at).toBe(when);
    const byReporter = await t.api('POST', `/projects/${project.id}/issues`, { token: users.reporter.token, body: { title: 'new', created_at: when } });
    expect(byReporter.body.created_at).not.toBe(when);
  });
});
