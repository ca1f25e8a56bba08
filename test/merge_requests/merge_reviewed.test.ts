/**
 * `PUT …/merge` merges what was reviewed, as GitLab's MergeService merges `diff_head_sha` (the newest diff
 * version's head): a commit that reached the source branch without a new version (moved in the server's repository
 * directly, as before RefreshService has run) is neither merged nor accepted as `sha` (409 naming the diff head).
 * The merged result is read back with the git CLI from a fresh clone.
 */
import { execFileSync } from 'node:child_process';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { apiOk, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();

let owner: TestUser;
let project: { id: number; path_with_namespace: string };
let reviewed: string;
let unreviewed: string;
let iid: number;

function serverGit(args: string[]): string {
  const path = t.server.app.repositories.path({ id: project.id, repositoryStorage: 'default' });
  return execFileSync('git', ['--git-dir', path, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' } })
    .toString()
    .trim();
}

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  const files = (branch: string, file: string, start?: string) => ({
    branch,
    ...(start ? { start_branch: start } : {}),
    commit_message: `Add ${file}`,
    actions: [{ action: 'create', file_path: file, content: `${file}\n` }],
  });
  await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, files('main', 'README.md'));
  reviewed = (await apiOk(t, owner.token, 'POST', `/projects/${project.id}/repository/commits`, files('feature', 'reviewed.txt', 'main'))).id;
  const api = new Gitlab({ host: t.url, token: owner.token });
  iid = (await api.MergeRequests.create(project.id, 'feature', 'main', 'Reviewed')).iid;
  await t.server.app.jobs.drain(60_000);
  // A commit on the source branch that no diff version records yet.
  const tree = serverGit(['rev-parse', `${reviewed}^{tree}`]);
  unreviewed = serverGit(['commit-tree', tree, '-p', reviewed, '-m', 'Not reviewed']);
  serverGit(['update-ref', 'refs/heads/feature', unreviewed, reviewed]);
}, 60_000);

describe('merging what was reviewed', () => {
  it('shows the diff head, not the moved branch, as the merge request head', async () => {
    const versions = await t.api('GET', `/projects/${project.id}/merge_requests/${iid}/versions`, { token: owner.token });
    expect(versions.body.map((v: { head_commit_sha: string }) => v.head_commit_sha)).toEqual([reviewed]);
    const mr = await t.api('GET', `/projects/${project.id}/merge_requests/${iid}`, { token: owner.token });
    expect(mr.body.diff_refs.head_sha).toBe(reviewed);
  });

  it('refuses the live branch head as sha with 409 naming the diff head', async () => {
    const res = await t.api('PUT', `/projects/${project.id}/merge_requests/${iid}/merge`, { token: owner.token, body: { sha: unreviewed } });
    expect([res.status, res.body]).toEqual([409, { message: `SHA does not match HEAD of source branch: ${reviewed}` }]);
    const gql = await t.graphql(
      `mutation { mergeRequestAccept(input: { projectPath: "${project.path_with_namespace}", iid: "${iid}", sha: "${unreviewed}" }) { errors } }`,
      {},
      owner.token,
    );
    expect(gql.body.data?.mergeRequestAccept.errors ?? gql.body.errors?.map((e) => e.message)).toEqual([`SHA does not match HEAD of source branch: ${reviewed}`]);
  });

  it('merges the diff head (gitbeaker, sha = diff head): a fresh clone has the reviewed commit and not the later one', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const merged = (await api.MergeRequests.accept(project.id, iid, { sha: reviewed })) as unknown as { state: string; sha: string; merge_commit_sha: string };
    expect(merged).toMatchObject({ state: 'merged', sha: reviewed });
    const dir = sandbox.folder();
    await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, owner.token), 'c']);
    const clone = `${dir}/c`;
    expect((await sandbox.ok(clone, ['rev-parse', 'origin/main'])).trim()).toBe(merged.merge_commit_sha);
    expect((await sandbox.ok(clone, ['rev-parse', 'origin/main^2'])).trim()).toBe(reviewed);
    const contains = await sandbox.run(clone, ['merge-base', '--is-ancestor', unreviewed, 'origin/main']);
    expect(contains.code).toBe(1);
    // The later commit stays on the source branch.
    expect((await sandbox.ok(clone, ['rev-parse', 'origin/feature'])).trim()).toBe(unreviewed);
  });
});
