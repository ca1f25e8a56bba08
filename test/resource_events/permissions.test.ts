/**
 * Who reads an issue's resource events: GitLab's `authenticate!` (401 for anonymous callers), then `find_noteable`
 * (404 Project Not Found where the project is hidden, 404 Issue Not Found where the issue is, confidential ones
 * included); every role that reads the issue reads all four kinds, on public and private projects.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

type Role = 'anonymous' | 'non-member' | 'guest' | 'reporter' | 'developer' | 'maintainer' | 'admin';
const ROLES: Role[] = ['anonymous', 'non-member', 'guest', 'reporter', 'developer', 'maintainer', 'admin'];
const KINDS = ['label', 'weight', 'milestone', 'state'];

const tokens = new Map<Role, string | null>();
const projects: Record<'public' | 'private', { id: number; issue: number; confidential: number; events: Record<string, number> }> = {} as never;

beforeAll(async () => {
  const [owner, stranger, guest, reporter, developer, maintainer, admin] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createUser(t)).concat(createUser(t, { admin: true })));
  tokens.set('anonymous', null).set('non-member', stranger.token).set('guest', guest.token).set('reporter', reporter.token);
  tokens.set('developer', developer.token).set('maintainer', maintainer.token).set('admin', admin.token);
  const group = await createGroup(t, owner.token, { visibility: 'public' });
  for (const visibility of ['public', 'private'] as const) {
    const project = await createProject(t, owner.token, { namespaceId: group.id, visibility });
    for (const [user, level] of [[guest, 10], [reporter, 20], [developer, 30], [maintainer, 40]] as [TestUser, number][]) await addMember(t, owner.token, 'projects', project.id, user.id, level);
    const milestone = (await t.api('POST', `/projects/${project.id}/milestones`, { token: owner.token, body: { title: 'm' } })).body;
    const create = async (confidential: boolean) => {
      const res = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'i', labels: 'l', weight: 1, milestone_id: milestone.id, confidential } });
      expect(res.status, res.text).toBe(201);
      await t.api('PUT', `/projects/${project.id}/issues/${res.body.iid}`, { token: owner.token, body: { state_event: 'close' } });
      return res.body.iid as number;
    };
    const issue = await create(false);
    const confidential = await create(true);
    const events: Record<string, number> = {};
    for (const kind of KINDS) {
      const list = await t.api('GET', `/projects/${project.id}/issues/${issue}/resource_${kind}_events`, { token: owner.token });
      expect(list.body, kind).toHaveLength(1);
      events[kind] = list.body[0].id;
    }
    projects[visibility] = { id: project.id, issue, confidential, events };
  }
});

/** What each role is answered, for the list and one event of each kind. */
const EXPECTED: Record<'public' | 'private', Record<'issue' | 'confidential', Record<Role, number>>> = {
  public: {
    issue: { anonymous: 401, 'non-member': 200, guest: 200, reporter: 200, developer: 200, maintainer: 200, admin: 200 },
    confidential: { anonymous: 401, 'non-member': 404, guest: 404, reporter: 200, developer: 200, maintainer: 200, admin: 200 },
  },
  private: {
    issue: { anonymous: 401, 'non-member': 404, guest: 200, reporter: 200, developer: 200, maintainer: 200, admin: 200 },
    confidential: { anonymous: 401, 'non-member': 404, guest: 404, reporter: 200, developer: 200, maintainer: 200, admin: 200 },
  },
};

describe.each(['public', 'private'] as const)('a %s project', (visibility) => {
  it.each(ROLES)('answers %s as GitLab does, for every kind, list and single', async (role) => {
    const p = projects[visibility];
    for (const which of ['issue', 'confidential'] as const) {
      const iid = p[which];
      const status = EXPECTED[visibility][which][role];
      for (const kind of KINDS) {
        const list = await t.api('GET', `/projects/${p.id}/issues/${iid}/resource_${kind}_events`, { token: tokens.get(role) });
        expect([which, kind, list.status]).toEqual([which, kind, status]);
        if (status === 200) expect(list.body).toHaveLength(1);
        if (status === 401) expect(list.body).toEqual({ message: '401 Unauthorized' });
        if (status === 404) expect(list.body).toEqual({ message: visibility === 'private' && role === 'non-member' ? '404 Project Not Found' : '404 Issue Not Found' });
        if (which === 'issue') {
          const one = await t.api('GET', `/projects/${p.id}/issues/${iid}/resource_${kind}_events/${p.events[kind]}`, { token: tokens.get(role) });
          expect([kind, one.status]).toEqual([kind, status]);
          if (status === 200) expect(one.body.id).toBe(p.events[kind]);
        }
      }
    }
  });
});
