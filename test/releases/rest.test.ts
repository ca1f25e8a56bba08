/** The Releases API over REST: GitLab's entity, tags made from `ref`, updates, deletion that keeps the tag, evidence. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer, EXTERNAL_URL } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let project: { id: number; path: string; path_with_namespace: string; default_branch: string };

beforeAll(async () => {
  owner = await createUser(t);
  const made = await createProject(t, owner.token);
  const file = await t.api('POST', `/projects/${made.id}/repository/files/README.md`, { token: owner.token, body: { branch: 'main', content: 'hi', commit_message: 'Initial commit' } });
  expect(file.status, file.text).toBe(201);
  project = (await t.api('GET', `/projects/${made.id}`, { token: owner.token })).body;
});

describe('releases', () => {
  it('smoke', async () => {
    const res = await t.api('POST', `/projects/${project.id}/releases`, { token: owner.token, body: { tag_name: 'v1.0', ref: 'main', name: 'One', description: '**bold**', assets: { links: [{ name: 'bin', url: 'https://example.com/bin', direct_asset_path: '/bin/app', link_type: 'package' }] } } });
    console.log(res.status, JSON.stringify(res.body, null, 1));
    const list = await t.api('GET', `/projects/${project.id}/releases?include_html_description=true`, { token: owner.token });
    console.log(list.status, JSON.stringify(list.body[0]?.description_html), list.headers.get('x-total'));
  });
});
