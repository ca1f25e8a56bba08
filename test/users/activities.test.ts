/**
 * GET /user/activities (GitLab's Users::ActivityService and lib/api/users.rb): a request a user's token
 * authenticates, over REST, GraphQL or git, marks the user active today; administrators list who was active since
 * a day, least recently active first; others are refused as GitLab refuses them.
 */
import { describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';
import { eventually } from '../support/wait.js';

const t = suiteServer();
const today = () => new Date().toISOString().slice(0, 10);

async function activities(query = '') {
  const res = await t.api('GET', `/user/activities${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { username: string; last_activity_on: string; last_activity_at: string }[];
}

describe('user activities', () => {
  it('marks a user active when a token of theirs authenticates a request, REST or GraphQL', async () => {
    const rest = await createUser(t);
    const graphql = await createUser(t);
    const idle = await createUser(t);
    // Creating them (as root) is not their activity.
    expect((await activities()).map((a) => a.username)).not.toContain(idle.username);
    expect((await t.api('GET', '/user', { token: rest.token })).status).toBe(200);
    const res = await t.graphql('{ currentUser { username } }', {}, graphql.token);
    expect(res.body.data.currentUser.username).toBe(graphql.username);
    const found = await eventually(async () => {
      const listed = await activities();
      const names = listed.map((a) => a.username);
      return names.includes(rest.username) && names.includes(graphql.username) && listed;
    });
    expect(found).toEqual(
      expect.arrayContaining([
        { username: rest.username, last_activity_on: today(), last_activity_at: today() },
        { username: graphql.username, last_activity_on: today(), last_activity_at: today() },
      ]),
    );
    expect(found.map((a) => a.username)).not.toContain(idle.username);
  });

  it('lists from a day, least recently active first, paged; through gitbeaker too', async () => {
    const old = await createUser(t);
    await t.server.database.prisma.user.update({ where: { id: old.id }, data: { lastActivityOn: new Date('2020-03-04T00:00:00Z') } });
    expect((await activities()).map((a) => a.username)).not.toContain(old.username);
    const since = await activities('?from=2020-01-01&per_page=100');
    expect(since[0]).toEqual({ username: old.username, last_activity_on: '2020-03-04', last_activity_at: '2020-03-04' });
    const page = await t.api('GET', '/user/activities?from=2020-01-01&per_page=1');
    expect(page.body).toHaveLength(1);
    expect(Number(page.headers.get('x-total'))).toBeGreaterThan(1);
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const listed = await api.Users.allActivities({ from: '2020-01-01' } as never);
    expect(listed.map((a) => a.username)).toContain(old.username);
  });

  it('is for administrators: 403 for others, 401 anonymous, 400 for a bad day', async () => {
    const user = await createUser(t);
    expect(await t.api('GET', '/user/activities', { token: user.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await t.api('GET', '/user/activities', { token: null })).toMatchObject({ status: 401 });
    expect(await t.api('GET', '/user/activities?from=yesterday')).toMatchObject({ status: 400 });
  });
});
