/**
 * Merge requests opened before diff versions were recorded (their `merge_request_diffs` rows deleted here directly
 * in the database) get their first version on first read, as GitLab always has one: an open one from its branches
 * (pushed with the git CLI), a merged one from the heads it kept; several reads at once make one version, not one each.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();

let owner: TestUser;
let project: { id: number; path_with_namespace: string };
let repo: string;
const heads: Record<string, string> = {};

async function pushBranch(branch: string, file: string): Promise<string> {
  await sandbox.ok(repo, ['checkout', '--quiet', '-B', branch, 'origin/main']);
  writeFileSync(join(repo, file), `${file}\n`);
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', `Add ${file}`]);
  await sandbox.ok(repo, ['push', '--quiet', 'origin', branch]);
  return (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
}

/** Forgets the merge request's versions, as if it had been opened before they were recorded. */
async function dropVersions(iid: number): Promise<void> {
  const mr = await t.server.app.db.mergeRequest.findFirstOrThrow({ where: { projectId: project.id, iid }, select: { id: true } });
  await t.server.app.db.mergeRequestDiff.deleteMany({ where: { mergeRequestId: mr.id } });
  expect(await t.server.app.db.mergeRequestDiff.count({ where: { mergeRequestId: mr.id } })).toBe(0);
}

const versionsOf = (iid: number) => t.api('GET', `/projects/${project.id}/merge_requests/${iid}/versions`, { token: owner.token });

beforeAll(async () => {
  owner = await createUser(t);
  project = await createProject(t, owner.token);
  const dir = sandbox.folder();
  await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, owner.token), 'w']);
  repo = join(dir, 'w');
  writeFileSync(join(repo, 'README.md'), '# Old\n');
  await sandbox.ok(repo, ['add', '-A']);
  await sandbox.ok(repo, ['commit', '--quiet', '-m', 'Initial']);
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'HEAD:main']);
  await sandbox.ok(repo, ['fetch', '--quiet', 'origin']);
  heads.main = (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
  heads.open = await pushBranch('open', 'open.txt');
  heads.merged = await pushBranch('merged', 'merged.txt');
  const api = new Gitlab({ host: t.url, token: owner.token });
  await api.MergeRequests.create(project.id, 'open', 'main', 'Open and old');
  await api.MergeRequests.create(project.id, 'merged', 'main', 'Merged and old');
  await t.server.app.jobs.drain(60_000);
}, 60_000);

describe('a merge request without diff versions', () => {
  it('gets its first version from its branches on first read, once however many read at once', async () => {
    await dropVersions(1);
    const [a, b, c] = await Promise.all([versionsOf(1), versionsOf(1), t.api('GET', `/projects/${project.id}/merge_requests/1`, { token: owner.token })]);
    for (const res of [a, b]) {
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(res.body[0]).toMatchObject({ head_commit_sha: heads.open, start_commit_sha: heads.main, base_commit_sha: heads.main, state: 'collected', real_size: '1' });
    }
    expect(a.body[0].id).toBe(b.body[0].id);
    expect(c.body).toMatchObject({ changes_count: '1', diff_refs: { head_sha: heads.open, base_sha: heads.main, start_sha: heads.main } });
    const mr = await t.server.app.db.mergeRequest.findFirstOrThrow({ where: { projectId: project.id, iid: 1 }, select: { id: true } });
    expect(await t.server.app.db.mergeRequestDiff.count({ where: { mergeRequestId: mr.id } })).toBe(1);

    // Its commits and diffs read from it (gitbeaker).
    const api = new Gitlab({ host: t.url, token: owner.token });
    const version = (await api.MergeRequests.showDiffVersion(project.id, 1, a.body[0].id)) as unknown as { commits: { id: string }[]; diffs: { new_path: string }[] };
    expect(version.commits.map((x) => x.id)).toEqual([heads.open]);
    expect(version.diffs.map((d) => d.new_path)).toEqual(['open.txt']);
  });

  it('gets one through GraphQL too', async () => {
    await dropVersions(1);
    const res = await t.graphql(
      `{ project(fullPath: "${project.path_with_namespace}") { mergeRequest(iid: "1") { diffHeadSha commitCount diffRefs { headSha startSha } } } }`,
      {},
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.project.mergeRequest).toEqual({ diffHeadSha: heads.open, commitCount: 1, diffRefs: { headSha: heads.open, startSha: heads.main } });
    expect((await versionsOf(1)).body).toHaveLength(1);
  });

  it('gets its first version from the heads it kept once merged, its source branch removed', async () => {
    const merged = await t.api('PUT', `/projects/${project.id}/merge_requests/2/merge`, { token: owner.token, body: { should_remove_source_branch: true } });
    expect(merged.status, merged.text).toBe(200);
    await t.server.app.jobs.drain(60_000);
    await dropVersions(2);
    const res = await versionsOf(2);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ head_commit_sha: heads.merged, state: 'collected' });
  });
});
