/**
 * Protected branches: GitLab's ProtectedBranches API (raw HTTP with exact JSON and codes, and @gitbeaker/rest),
 * the default branch protected on its first push, and the rules enforced on `git push`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();
const git = gitSandbox();

const level = (id: number, accessLevel: number, description: string) => ({ id, access_level: accessLevel, access_level_description: description, deploy_key_id: null, user_id: null, group_id: null });

describe('ProtectedBranches API', () => {
  let maintainer: TestUser;
  let developer: TestUser;
  let project: any;

  beforeAll(async () => {
    maintainer = await createUser(t);
    developer = await createUser(t);
    project = await createProject(t, maintainer.token);
    await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
  });

  it('creates a rule with GitLab JSON, refuses a duplicate with 409, and reads it back', async () => {
    const created = await t.api('POST', `/projects/${project.id}/protected_branches`, {
      token: maintainer.token,
      body: { name: 'release/*', push_access_level: 30, merge_access_level: 40, unprotect_access_level: 40, allow_force_push: true },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const [push, merge, unprotect] = [created.body.push_access_levels[0].id, created.body.merge_access_levels[0].id, created.body.unprotect_access_levels[0].id];
    expect(created.body).toEqual({
      id,
      name: 'release/*',
      push_access_levels: [level(push, 30, 'Developers + Maintainers')],
      merge_access_levels: [level(merge, 40, 'Maintainers')],
      allow_force_push: true,
      unprotect_access_levels: [level(unprotect, 40, 'Maintainers')],
      code_owner_approval_required: false,
      inherited: false,
    });
    const duplicate = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: maintainer.token, body: { name: 'release/*' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ message: "Protected branch 'release/*' already exists" });
    const shown = await t.api('GET', `/projects/${project.id}/protected_branches/${encodeURIComponent('release/*')}`, { token: maintainer.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created.body);
  });

  it('defaults to Maintainers for push and merge, no unprotect level, no force push', async () => {
    const created = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: maintainer.token, body: { name: 'stable' } });
    expect(created.status).toBe(201);
    expect(created.body.push_access_levels.map((l: any) => l.access_level)).toEqual([40]);
    expect(created.body.merge_access_levels.map((l: any) => l.access_level)).toEqual([40]);
    expect(created.body.unprotect_access_levels).toEqual([]);
    expect(created.body.allow_force_push).toBe(false);
  });

  it('lists with search and pagination headers, updates with PATCH, deletes with 204', async () => {
    const list = await t.api('GET', `/projects/${project.id}/protected_branches`, { token: maintainer.token });
    expect(list.status).toBe(200);
    expect(list.body.map((b: any) => b.name)).toEqual(['release/*', 'stable']);
    expect(list.headers.get('x-total')).toBe('2');
    const searched = await t.api('GET', `/projects/${project.id}/protected_branches?search=STAB`, { token: maintainer.token });
    expect(searched.body.map((b: any) => b.name)).toEqual(['stable']);
    const patched = await t.api('PATCH', `/projects/${project.id}/protected_branches/stable`, { token: maintainer.token, body: { allow_force_push: true, code_owner_approval_required: true } });
    expect(patched.status).toBe(200);
    expect([patched.body.allow_force_push, patched.body.code_owner_approval_required]).toEqual([true, true]);
    const deleted = await t.api('DELETE', `/projects/${project.id}/protected_branches/stable`, { token: maintainer.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await t.api('GET', `/projects/${project.id}/protected_branches/stable`, { token: maintainer.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
    expect((await t.api('DELETE', `/projects/${project.id}/protected_branches/stable`, { token: maintainer.token })).status).toBe(404);
  });

  it('answers invalid levels with 400, a Developer with 403, a stranger with 404 Project Not Found', async () => {
    const invalid = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: maintainer.token, body: { name: 'x', push_access_level: 20 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ error: 'push_access_level does not have a valid value' });
    const missing = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: maintainer.token, body: {} });
    expect(missing.status).toBe(400);
    expect((await t.api('GET', `/projects/${project.id}/protected_branches`, { token: developer.token })).status).toBe(403);
    expect((await t.api('POST', `/projects/${project.id}/protected_branches`, { token: developer.token, body: { name: 'dev' } })).status).toBe(403);
    const stranger = await createUser(t);
    const hidden = await t.api('GET', `/projects/${project.id}/protected_branches`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
  });

  it('works with @gitbeaker/rest ProtectedBranches', async () => {
    const api = new Gitlab({ host: t.url, token: maintainer.token });
    const created = await api.ProtectedBranches.protect(project.id, 'hotfix-*', { pushAccessLevel: 0, mergeAccessLevel: 40 });
    expect(created.name).toBe('hotfix-*');
    expect(created.push_access_levels?.[0]?.access_level_description).toBe('No one');
    expect((await api.ProtectedBranches.show(project.id, 'hotfix-*')).id).toBe(created.id);
    expect((await api.ProtectedBranches.all(project.id, { search: 'hotfix' })).map((b) => b.name)).toEqual(['hotfix-*']);
    await api.ProtectedBranches.unprotect(project.id, 'hotfix-*');
    await expect(api.ProtectedBranches.show(project.id, 'hotfix-*')).rejects.toThrow();
  });
});

describe('protected branches on git push', () => {
  let maintainer: TestUser;
  let developer: TestUser;
  let project: any;
  let work: string;

  async function commit(dir: string, file: string): Promise<void> {
    writeFileSync(join(dir, file), `${file}\n`);
    await git.ok(dir, ['add', '.']);
    await git.ok(dir, ['commit', '--quiet', '-m', `Add ${file}`]);
  }

  beforeAll(async () => {
    maintainer = await createUser(t);
    developer = await createUser(t);
    project = await createProject(t, maintainer.token);
    await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
    work = join(git.folder(), 'maintainer');
    await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, maintainer.token), work]);
    await commit(work, 'a.txt');
    await git.ok(work, ['push', '--quiet', 'origin', 'HEAD:main']);
  });

  it("protects the default branch on its first push: Maintainers push and merge, no force push", async () => {
    const list = await t.api('GET', `/projects/${project.id}/protected_branches`, { token: maintainer.token });
    expect(list.body.map((b: any) => [b.name, b.push_access_levels.map((l: any) => l.access_level), b.merge_access_levels.map((l: any) => l.access_level), b.allow_force_push])).toEqual([
      ['main', [40], [40], false],
    ]);
  });

  it("refuses a Developer's push to a protected branch with GitLab's message, and lets them push another branch", async () => {
    const dir = join(git.folder(), 'developer');
    await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, developer.token), dir]);
    await commit(dir, 'dev.txt');
    const refused = await git.run(dir, ['push', 'origin', 'HEAD:main']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('remote: GitLab: You are not allowed to push code to protected branches on this project.');
    expect(refused.stderr).toContain('[remote rejected] HEAD -> main (pre-receive hook declined)');
    await git.ok(dir, ['push', '--quiet', 'origin', 'HEAD:feature']);
    const created = await git.run(dir, ['push', 'origin', 'HEAD:release']);
    expect(created.code).toBe(0);
  });

  it('refuses a force push to a protected branch until allow_force_push', async () => {
    await git.ok(work, ['commit', '--quiet', '--amend', '-m', 'Rewritten']);
    const refused = await git.run(work, ['push', '--force', 'origin', 'HEAD:main']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('remote: GitLab: You are not allowed to force push code to a protected branch on this project.');
    const patched = await t.api('PATCH', `/projects/${project.id}/protected_branches/main`, { token: maintainer.token, body: { allow_force_push: true } });
    expect(patched.status).toBe(200);
    await git.ok(work, ['push', '--quiet', '--force', 'origin', 'HEAD:main']);
    const remote = (await git.ok(work, ['ls-remote', 'origin', 'refs/heads/main'])).slice(0, 40);
    expect(remote).toBe((await git.ok(work, ['rev-parse', 'HEAD'])).trim());
  });

  it('refuses deleting a protected branch over git, and the default branch always', async () => {
    await t.api('POST', `/projects/${project.id}/protected_branches`, { token: maintainer.token, body: { name: 'rel*' } });
    await git.ok(work, ['fetch', '--quiet', 'origin']);
    const protectedDelete = await git.run(work, ['push', 'origin', ':release']);
    expect(protectedDelete.code).not.toBe(0);
    expect(protectedDelete.stderr).toContain('remote: GitLab: You can only delete protected branches using the web interface.');
    const defaultDelete = await git.run(work, ['push', 'origin', ':main']);
    expect(defaultDelete.code).not.toBe(0);
    expect(defaultDelete.stderr).toContain('remote: GitLab: The default branch of a project cannot be deleted.');
    await git.ok(work, ['push', '--quiet', 'origin', ':feature']);
    expect(await git.ok(work, ['ls-remote', 'origin', 'refs/heads/feature'])).toBe('');
  });
});

describe('protected branches on API writes and in the Branches API', () => {
  it('protects the default branch on its first API commit, shows it on branches, and refuses a Developer there', async () => {
    const owner = await createUser(t);
    const developer = await createUser(t);
    const project = await createProject(t, owner.token);
    await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
    const commit = (token: string, branch: string, file: string) =>
      t.api('POST', `/projects/${project.id}/repository/commits`, {
        token,
        body: { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content: 'x' }] },
      });
    expect((await commit(owner.token, 'main', 'a.txt')).status).toBe(201);
    const main = await t.api('GET', `/projects/${project.id}/repository/branches/main`, { token: developer.token });
    expect(main.body).toMatchObject({ name: 'main', protected: true, developers_can_push: false, developers_can_merge: false, can_push: false, default: true });
    // The commits API asks first (authorize_push_to_branch!), the files API in its service (400), GraphQL in `errors`.
    const refused = await commit(developer.token, 'main', 'b.txt');
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden - You are not allowed to push into this branch' }]);
    const file = await t.api('POST', `/projects/${project.id}/repository/files/b.txt`, { token: developer.token, body: { branch: 'main', content: 'x', commit_message: 'b' } });
    expect([file.status, file.body]).toEqual([400, { message: 'You are not allowed to push into this branch' }]);
    const gql = await t.graphql(
      'mutation($p: ID!) { commitCreate(input: { projectPath: $p, branch: "main", message: "b", actions: [{ action: CREATE, filePath: "b.txt", content: "x" }] }) { errors commit { sha } } }',
      { p: project.path_with_namespace },
      developer.token,
    );
    expect(gql.body).toEqual({ data: { commitCreate: { errors: ['You are not allowed to push into this branch'], commit: null } } });
    // Below Developer, the commits API says the same; the files API refuses with a plain 403 (authorize! :push_code).
    const reporter = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
    expect((await commit(reporter.token, 'topic', 'r.txt')).body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' });
    const reporterFile = await t.api('POST', `/projects/${project.id}/repository/files/r.txt`, { token: reporter.token, body: { branch: 'topic', content: 'x', commit_message: 'r' } });
    expect([reporterFile.status, reporterFile.body]).toEqual([403, { message: '403 Forbidden' }]);
    // Another branch is the Developer's to write.
    expect((await commit(developer.token, 'topic', 'c.txt')).status).toBe(400); // no start: a new branch needs start_branch
    const topic = await t.api('POST', `/projects/${project.id}/repository/commits`, {
      token: developer.token,
      body: { branch: 'topic', start_branch: 'main', commit_message: 'topic', actions: [{ action: 'create', file_path: 'c.txt', content: 'x' }] },
    });
    expect(topic.status).toBe(201);
    const branches = await t.api('GET', `/projects/${project.id}/repository/branches`, { token: developer.token });
    expect(branches.body.map((b: any) => [b.name, b.protected, b.can_push])).toEqual([
      ['main', true, false],
      ['topic', false, true],
    ]);
    // A Developer cannot delete the protected default branch, nor can anyone.
    expect((await t.api('DELETE', `/projects/${project.id}/repository/branches/main`, { token: owner.token })).status).toBe(405);
  });
});
