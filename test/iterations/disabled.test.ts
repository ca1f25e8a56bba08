/** ITERATIONS_ENABLED off (no licence for iterations): the iteration endpoints answer 403 once the group or project is found. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer({ iterationsEnabled: false });

let owner: TestUser;
let group: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  owner = await createUser(t);
  group = await createGroup(t, owner.token);
  project = await createProject(t, owner.token, { namespaceId: group.id });
});

describe('without iterations', () => {
  it('answers 403 on the Iterations API, and 404 for a hidden group first', async () => {
    for (const path of [`/groups/${group.id}/iterations`, `/projects/${project.id}/iterations`]) {
      const res = await t.api('GET', path, { token: owner.token });
      expect([path, res.status, res.body]).toEqual([path, 403, { message: '403 Forbidden' }]);
    }
    const stranger = await createUser(t);
    const hidden = await t.api('GET', `/groups/${group.id}/iterations`, { token: stranger.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
  });

  it('refuses the GraphQL fields and mutations, and shows no iteration on issues', async () => {
    const list = await t.graphql('query($p: ID!) { group(fullPath: $p) { iterations { nodes { id } } } }', { p: group.full_path }, owner.token);
    expect(list.body.errors?.[0]).toMatchObject({ message: '403 Forbidden', extensions: { code: 'FORBIDDEN' } });
    const create = await t.graphql(
      'mutation($p: ID!) { iterationCadenceCreate(input: { groupPath: $p, title: "x", automatic: false, active: true }) { errors } }',
      { p: group.full_path },
      owner.token,
    );
    expect(create.body.errors?.[0].message).toMatch(/does not exist or you don't have permission/);
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'plain' } });
    expect(issue.body.iteration).toBeNull();
    const withIteration = await t.api('POST', `/projects/${project.id}/issues`, { token: owner.token, body: { title: 'x', iteration_id: 1 } });
    expect(withIteration.status).toBe(403);
  });
});
