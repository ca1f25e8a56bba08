/** A snippet's repository over git's smart HTTP: the real git clones what the API shows and pushes what it then shows. */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suiteServer } from '../support/server.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const git = gitSandbox();

let author: TestUser;
let other: TestUser;

beforeAll(async () => {
  [author, other] = await Promise.all([createUser(t), createUser(t)]);
});

async function snippet(token: string, path: string, body: Record<string, unknown>) {
  const res = await t.api('POST', path, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('git over HTTP of snippets', () => {
  it('clones a personal snippet as the API shows it, and a push shows in the API', async () => {
    const s = await snippet(author.token, '/snippets', { title: 'git', visibility: 'private', files: [{ file_path: 'a.txt', content: 'one\n' }, { file_path: 'dir/b.md', content: '# b\n' }] });
    const work = git.folder();
    await git.ok(work, ['clone', '--quiet', cloneUrl(t.url, `snippets/${s.id}`, author.token), 'clone']);
    const dir = join(work, 'clone');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(dir, 'dir/b.md'), 'utf8')).toBe('# b\n');
    expect((await git.ok(dir, ['log', '--format=%s%x09%an'])).trim()).toBe(`Initial commit\tUser ${author.username}`);

    writeFileSync(join(dir, 'a.txt'), 'two\n');
    await git.ok(dir, ['commit', '--quiet', '-am', 'from git']);
    await git.ok(dir, ['push', '--quiet', 'origin', 'main']);
    const raw = await t.api('GET', `/snippets/${s.id}/files/main/a.txt/raw`, { token: author.token });
    expect(raw.text).toBe('two\n');
    const sha = (await git.ok(dir, ['rev-parse', 'HEAD'])).trim();
    expect((await t.api('GET', `/snippets/${s.id}/files/${sha}/a.txt/raw`, { token: author.token })).text).toBe('two\n');

    // Other branches and tags are refused, as GitLab's snippet repositories refuse them.
    await git.ok(dir, ['tag', 'v1']);
    const tag = await git.run(dir, ['push', 'origin', 'v1']);
    expect(tag.code).not.toBe(0);
    expect(tag.stderr).toContain('Repository has tags.');
    const branch = await git.run(dir, ['push', 'origin', 'main:other']);
    expect(branch.code).not.toBe(0);
    expect(branch.stderr).toContain('Repository has more than one branch.');

    // Anonymous callers are asked for credentials; another user does not find a private snippet, nor pushes to a public one.
    expect((await git.run(work, ['clone', '--quiet', cloneUrl(t.url, `snippets/${s.id}`), 'anon'])).code).not.toBe(0);
    const denied = await git.run(work, ['clone', '--quiet', cloneUrl(t.url, `snippets/${s.id}`, other.token), 'other']);
    expect(denied.code).not.toBe(0);
    expect((await t.api('PUT', `/snippets/${s.id}`, { token: author.token, body: { visibility: 'public' } })).status).toBe(200);
    await git.ok(work, ['clone', '--quiet', cloneUrl(t.url, `snippets/${s.id}`), 'public']);
    const pushDir = join(work, 'public');
    writeFileSync(join(pushDir, 'a.txt'), 'three\n');
    await git.ok(pushDir, ['commit', '--quiet', '-am', 'not mine']);
    const refused = await git.run(pushDir, ['push', cloneUrl(t.url, `snippets/${s.id}`, other.token), 'main']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("You can't commit to this snippet.");
  });

  it('clones a project snippet at the project\'s path', async () => {
    const project = await createProject(t, author.token, { visibility: 'private' });
    const member = await createUser(t);
    await addMember(t, author.token, 'projects', project.id, member.id, 10);
    const s = await snippet(author.token, `/projects/${project.id}/snippets`, { title: 'p', visibility: 'private', files: [{ file_path: 'p.txt', content: 'p\n' }] });
    const work = git.folder();
    await git.ok(work, ['clone', '--quiet', cloneUrl(t.url, `${project.path_with_namespace}/snippets/${s.id}`, member.token), 'clone']);
    expect(readFileSync(join(work, 'clone', 'p.txt'), 'utf8')).toBe('p\n');
    expect((await git.run(work, ['clone', '--quiet', cloneUrl(t.url, `${project.path_with_namespace}/snippets/${s.id}`, other.token), 'x'])).code).not.toBe(0);
    // The snippet is not found under another path.
    expect((await git.run(work, ['clone', '--quiet', cloneUrl(t.url, `snippets/${s.id}`, author.token), 'y'])).code).not.toBe(0);
  });
});
