/**
 * Project merge settings honoured by merges (GitLab's merge_method, squash_option, remove_source_branch_after_merge,
 * merge and squash commit templates): branches pushed over git, merged through REST (and gitbeaker), the target's
 * history read back from the repository with `git log`; `need_rebase` and `diverged_commits_count`; GraphQL's
 * project fields and mergeRequestSetMilestone / mergeRequestSetLocked.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, apiOk, createProject, createUser, type TestUser } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';

const t = suiteServer({ logLevel: 'error' });
const sandbox = gitSandbox();

let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;

interface Setup {
  project: { id: number; path_with_namespace: string };
  repo: string;
}

beforeAll(async () => {
  [owner, developer, reporter] = await Promise.all([1, 2, 3].map(() => createUser(t)));
});

/** A project with the given settings and a local clone whose `main` (one commit) is pushed. */
async function setup(settings: Record<string, unknown> = {}): Promise<Setup> {
  const project = await createProject(t, owner.token);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
  if (Object.keys(settings).length) await apiOk(t, owner.token, 'PUT', `/projects/${project.id}`, settings);
  const dir = sandbox.folder();
  await sandbox.ok(dir, ['init', '--quiet', '-b', 'main', 'repo']);
  const repo = join(dir, 'repo');
  await sandbox.ok(repo, ['remote', 'add', 'origin', cloneUrl(t.url, project.path_with_namespace, owner.token)]);
  await commit(repo, 'README.md', '# Project\n', 'Initial commit');
  await sandbox.ok(repo, ['push', '--quiet', 'origin', 'main']);
  return { project, repo };
}

/** A commit of one file on the checked-out branch; its sha. */
async function commit(repo: string, file: string, content: string, message: string, author?: { name: string; email: string }): Promise<string> {
  writeFileSync(join(repo, file), content);
  await sandbox.ok(repo, ['add', file]);
  const env: Record<string, string> = author ? { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email } : {};
  await sandbox.ok(repo, ['commit', '--quiet', '-m', message], env);
  return (await sandbox.ok(repo, ['rev-parse', 'HEAD'])).trim();
}

/** A branch from `main` with one commit per file, pushed; its head. */
async function pushBranch(s: Setup, branch: string, files: [string, string, string][]): Promise<string> {
  await sandbox.ok(s.repo, ['checkout', '--quiet', '-B', branch, 'origin/main']);
  let head = '';
  for (const [file, content, message] of files) head = await commit(s.repo, file, content, message);
  await sandbox.ok(s.repo, ['push', '--quiet', 'origin', branch]);
  return head;
}

/** A commit on the server's `main` that the branches lack. */
async function moveMain(s: Setup, file: string): Promise<string> {
  await sandbox.ok(s.repo, ['checkout', '--quiet', '-B', 'main', 'origin/main']);
  const head = await commit(s.repo, file, `${file}\n`, `Upstream ${file}`);
  await sandbox.ok(s.repo, ['push', '--quiet', 'origin', 'main']);
  return head;
}

/**
 * One commit of the server's repository read back over git: `<sha> <parents>`. A merge's parents are checked this
 * way, not by their place in `git log`: commits made in the same second may list either side first.
 */
async function commitOf(s: Setup, sha: string): Promise<string> {
  await sandbox.ok(s.repo, ['fetch', '--quiet', '--prune', 'origin']);
  return (await sandbox.ok(s.repo, ['log', '-1', '--format=%H %P', sha])).trim();
}

/** The server's branch read back over git: `<sha> <parents>` of each commit, newest first. */
async function history(s: Setup, ref: string, count = 5): Promise<string[]> {
  await sandbox.ok(s.repo, ['fetch', '--quiet', '--prune', 'origin']);
  return (await sandbox.ok(s.repo, ['log', `-${count}`, '--format=%H %P', `origin/${ref}`])).trim().split('\n');
}

async function messageOf(s: Setup, sha: string): Promise<string> {
  await sandbox.ok(s.repo, ['fetch', '--quiet', 'origin']);
  return (await sandbox.ok(s.repo, ['log', '-1', '--format=%B', sha])).replace(/\n+$/, '');
}

const mrPath = (s: Setup, suffix = '') => `/projects/${s.project.id}/merge_requests${suffix}`;

async function openMr(s: Setup, source: string, extra: Record<string, unknown> = {}): Promise<{ iid: number; sha: string }> {
  return apiOk(t, owner.token, 'POST', mrPath(s), { source_branch: source, target_branch: 'main', title: `Merge ${source}`, ...extra });
}

describe('project merge settings', () => {
  it('GET shows GitLab’s defaults; PUT (and gitbeaker’s Projects.edit) changes them; bad values answer 400', async () => {
    const s = await setup();
    const shown = await apiOk(t, owner.token, 'GET', `/projects/${s.project.id}`);
    expect(shown).toMatchObject({
      merge_method: 'merge',
      squash_option: 'default_off',
      remove_source_branch_after_merge: true,
      merge_commit_template: null,
      squash_commit_template: null,
      suggestion_commit_message: null,
    });
    const api = new Gitlab({ host: t.url, token: owner.token });
    const edited = await api.Projects.edit(s.project.id, { mergeMethod: 'ff', squashOption: 'always' });
    expect(edited).toMatchObject({ merge_method: 'ff', squash_option: 'always' });
    const updated = await apiOk(t, owner.token, 'PUT', `/projects/${s.project.id}`, {
      remove_source_branch_after_merge: false,
      merge_commit_template: '%{title}',
      squash_commit_template: '%{source_branch}',
      suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
    });
    expect(updated).toMatchObject({
      merge_method: 'ff',
      squash_option: 'always',
      remove_source_branch_after_merge: false,
      merge_commit_template: '%{title}',
      squash_commit_template: '%{source_branch}',
      suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
    });

    const badMethod = await t.api('PUT', `/projects/${s.project.id}`, { token: owner.token, body: { merge_method: 'octopus' } });
    expect([badMethod.status, badMethod.body]).toEqual([400, { error: 'merge_method does not have a valid value' }]);
    const badSquash = await t.api('PUT', `/projects/${s.project.id}`, { token: owner.token, body: { squash_option: 'sometimes' } });
    expect([badSquash.status, badSquash.body]).toEqual([400, { error: 'squash_option does not have a valid value' }]);
    const tooLong = await t.api('PUT', `/projects/${s.project.id}`, { token: owner.token, body: { merge_commit_template: 'x'.repeat(501) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toEqual({ merge_commit_template: ['is too long (maximum is 500 characters)'] });
    const created = await apiOk(t, owner.token, 'POST', '/projects', { name: `rebased-${Date.now()}`, merge_method: 'rebase_merge', squash_option: 'never' });
    expect(created).toMatchObject({ merge_method: 'rebase_merge', squash_option: 'never' });

    const query = `query($path: ID!) { project(fullPath: $path) { mergeRequestsFfOnlyEnabled squashReadOnly removeSourceBranchAfterMerge mergeCommitTemplate squashCommitTemplate suggestionCommitMessage } }`;
    const read = await t.graphql(query, { path: s.project.path_with_namespace }, developer.token);
    expect(read.body.data.project).toEqual({
      mergeRequestsFfOnlyEnabled: true,
      squashReadOnly: true,
      removeSourceBranchAfterMerge: false,
      mergeCommitTemplate: '%{title}',
      squashCommitTemplate: '%{source_branch}',
      suggestionCommitMessage: 'Apply %{suggestions_count} suggestions',
    });
  });
});

describe('merge_method', () => {
  it('merge: a merge commit of the target head and the source head, even when the target moved', async () => {
    const s = await setup();
    const head = await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a']]);
    const main = await moveMain(s, 'up.txt');
    const mr = await openMr(s, 'feature');
    const shown = await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`));
    expect(shown.detailed_merge_status).toBe('mergeable');
    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`));
    const [top] = await history(s, 'main', 1);
    expect(top).toBe(`${merged.merge_commit_sha} ${main} ${head}`);
  });

  it('ff: need_rebase while the target moved (405 to a merge), then the target fast-forwards to the source head', async () => {
    const s = await setup({ merge_method: 'ff' });
    const first = await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a']]);
    const main = await moveMain(s, 'up.txt');
    const mr = await openMr(s, 'feature');

    const shown = await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}?include_diverged_commits_count=true`));
    expect(shown).toMatchObject({ detailed_merge_status: 'need_rebase', diverged_commits_count: 1 });
    expect('diverged_commits_count' in (await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`)))).toBe(false);
    const refused = await t.api('PUT', mrPath(s, `/${mr.iid}/merge`), { token: owner.token });
    expect([refused.status, refused.body]).toEqual([405, { message: '405 Method Not Allowed' }]);
    const graph = await t.graphql(`query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { shouldBeRebased divergedFromTargetBranch detailedMergeStatus } } }`, { path: s.project.path_with_namespace, iid: String(mr.iid) }, developer.token);
    expect(graph.body.data.project.mergeRequest).toEqual({ shouldBeRebased: true, divergedFromTargetBranch: true, detailedMergeStatus: 'NEED_REBASE' });

    await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/rebase`));
    await t.server.app.jobs.drain(60_000);
    const rebased = await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}?include_diverged_commits_count=true`));
    expect(rebased).toMatchObject({ detailed_merge_status: 'mergeable', diverged_commits_count: 0 });
    expect(rebased.sha).not.toBe(first);

    const api = new Gitlab({ host: t.url, token: owner.token });
    const merged = await api.MergeRequests.merge(s.project.id, mr.iid);
    expect(merged).toMatchObject({ state: 'merged', merge_commit_sha: null, squash_commit_sha: null });
    // No merge commit: main is the rebased source head, its parent the old main.
    const log = await history(s, 'main', 2);
    expect(log[0]).toBe(`${rebased.sha} ${main}`);
    expect(log[1]!.split(' ')).toHaveLength(2);
  });

  it('ff with squash: the target moves to one squashed commit on top of it', async () => {
    const s = await setup({ merge_method: 'ff', squash_commit_template: 'Squashed %{source_branch}' });
    await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a'], ['b.txt', 'b\n', 'Add b']]);
    const [main] = (await history(s, 'main', 1))[0]!.split(' ');
    const mr = await openMr(s, 'feature');
    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`), { squash: true });
    expect(merged.merge_commit_sha).toBeNull();
    const log = await history(s, 'main', 2);
    expect(log[0]).toBe(`${merged.squash_commit_sha} ${main}`);
    expect(await messageOf(s, merged.squash_commit_sha)).toBe('Squashed feature');
    expect((await sandbox.ok(s.repo, ['ls-tree', '--name-only', 'origin/main'])).trim().split('\n').sort()).toEqual(['README.md', 'a.txt', 'b.txt']);
  });

  it('rebase_merge: need_rebase until rebased, then a merge commit over the rebased source', async () => {
    const s = await setup({ merge_method: 'rebase_merge' });
    await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a']]);
    const main = await moveMain(s, 'up.txt');
    const mr = await openMr(s, 'feature');
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).detailed_merge_status).toBe('need_rebase');
    expect((await t.api('PUT', mrPath(s, `/${mr.iid}/merge`), { token: owner.token })).status).toBe(405);
    await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/rebase`));
    await t.server.app.jobs.drain(60_000);
    const rebased = await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`));
    expect(rebased.detailed_merge_status).toBe('mergeable');
    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`));
    const [top] = await history(s, 'main', 1);
    expect(top).toBe(`${merged.merge_commit_sha} ${main} ${rebased.sha}`);
    expect(await commitOf(s, rebased.sha)).toBe(`${rebased.sha} ${main}`);
  });
});

describe('squash_option', () => {
  it('always: a merge without squash is refused (422, the merge error says why); with it, a squash commit under the merge commit', async () => {
    const s = await setup({ squash_option: 'always' });
    const head = await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a'], ['b.txt', 'b\n', 'Add b']]);
    const mr = await openMr(s, 'feature');
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).squash_on_merge).toBe(true);
    const refused = await t.api('PUT', mrPath(s, `/${mr.iid}/merge`), { token: owner.token });
    expect([refused.status, refused.body]).toEqual([422, { message: 'Branch cannot be merged' }]);
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).merge_error).toBe('This project requires squashing commits when merge requests are accepted.');

    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`), { squash: true });
    const [main] = (await history(s, `main~1`, 1))[0]!.split(' ');
    const [top] = await history(s, 'main', 1);
    expect(top).toBe(`${merged.merge_commit_sha} ${main} ${merged.squash_commit_sha}`);
    expect(await commitOf(s, merged.squash_commit_sha)).toBe(`${merged.squash_commit_sha} ${main}`);
    expect(merged.squash_commit_sha).not.toBe(head);
    expect(await messageOf(s, merged.squash_commit_sha)).toBe('Merge feature');
  });

  it('never: squash asked for is ignored; the merge commit has the source head as its second parent', async () => {
    const s = await setup({ squash_option: 'never' });
    const head = await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a']]);
    const mr = await openMr(s, 'feature', { squash: true });
    const shown = await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`));
    expect(shown).toMatchObject({ squash: true, squash_on_merge: false });
    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`), { squash: true });
    expect(merged.squash_commit_sha).toBeNull();
    const [top] = await history(s, 'main', 1);
    expect(top.split(' ')[2]).toBe(head);
  });
});

describe('commit templates', () => {
  const template = [
    '%{title}',
    '',
    '%{issues}',
    '',
    'Merged-by: %{merged_by}',
    '%{approved_by}',
    'See %{reference} (%{url})',
    '%{source_branch} into %{target_branch}',
    '',
    '%{description}',
    '',
    'First: %{first_commit}',
    '',
    '%{first_multiline_commit}',
    '',
    '%{co_authored_by}',
    '',
    '%{all_commits}',
    '%{unknown}',
  ].join('\r\n');

  it('fills the merge commit template (blank placeholders take their line) and the squash commit template', async () => {
    const s = await setup({ merge_commit_template: template, squash_commit_template: '%{title} (%{source_branch})\n\n%{co_authored_by}' });
    await sandbox.ok(s.repo, ['checkout', '--quiet', '-B', 'feature', 'origin/main']);
    await commit(s.repo, 'a.txt', 'a\n', 'First change\n\nWith body', { name: 'Alice', email: 'alice@example.com' });
    await commit(s.repo, 'b.txt', 'b\n', 'Second change');
    await sandbox.ok(s.repo, ['push', '--quiet', 'origin', 'feature']);
    const mr = await openMr(s, 'feature', { description: 'What it does' });
    await apiOk(t, developer.token, 'POST', mrPath(s, `/${mr.iid}/approve`));

    const url = (await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).web_url;
    const expected = [
      'Merge feature',
      '',
      `Merged-by: User ${owner.username} <${owner.username}@example.com>`,
      `Approved-by: User ${developer.username} <${developer.username}@example.com>`,
      `See ${s.project.path_with_namespace}!${mr.iid} (${url})`,
      'feature into main',
      '',
      'What it does',
      '',
      'First: First change\n\nWith body',
      '',
      'First change\n\nWith body',
      '',
      'Co-authored-by: Test Author <author@example.com>\nCo-authored-by: Alice <alice@example.com>',
      '',
      '* Second change\n\n* First change\n\nWith body',
      '%{unknown}',
    ].join('\n');
    const query = `query($path: ID!, $iid: String!) { project(fullPath: $path) { mergeRequest(iid: $iid) { defaultMergeCommitMessage defaultSquashCommitMessage } } }`;
    const read = await t.graphql(query, { path: s.project.path_with_namespace, iid: String(mr.iid) }, owner.token);
    const squashExpected = 'Merge feature (feature)\n\nCo-authored-by: Test Author <author@example.com>\nCo-authored-by: Alice <alice@example.com>';
    expect(read.body.data.project.mergeRequest).toEqual({ defaultMergeCommitMessage: expected, defaultSquashCommitMessage: squashExpected });

    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`), { squash: true });
    expect(await messageOf(s, merged.merge_commit_sha)).toBe(expected);
    expect(await messageOf(s, merged.squash_commit_sha)).toBe(squashExpected);
  });

  it('a message given with the merge wins over the template', async () => {
    const s = await setup({ merge_commit_template: '%{title}' });
    await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a']]);
    const mr = await openMr(s, 'feature');
    const merged = await apiOk(t, owner.token, 'PUT', mrPath(s, `/${mr.iid}/merge`), { merge_commit_message: 'Mine' });
    expect(await messageOf(s, merged.merge_commit_sha)).toBe('Mine');
  });
});

describe('remove_source_branch_after_merge', () => {
  const create = `mutation($path: ID!, $source: String!) { mergeRequestCreate(input: { projectPath: $path, sourceBranch: $source, targetBranch: "main", title: "From GraphQL" }) { errors mergeRequest { iid forceRemoveSourceBranch } } }`;

  it('is the default of merge requests GraphQL opens (not REST’s, which names its own), and their merge removes the branch', async () => {
    const s = await setup();
    await pushBranch(s, 'graph', [['g.txt', 'g\n', 'Add g']]);
    await pushBranch(s, 'rest', [['r.txt', 'r\n', 'Add r']]);
    const made = await t.graphql(create, { path: s.project.path_with_namespace, source: 'graph' }, owner.token);
    expect(made.body.data.mergeRequestCreate).toMatchObject({ errors: [], mergeRequest: { forceRemoveSourceBranch: true } });
    const rest = await openMr(s, 'rest');
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${rest.iid}`))).force_remove_source_branch).toBe(false);
    await apiOk(t, owner.token, 'PUT', mrPath(s, `/${made.body.data.mergeRequestCreate.mergeRequest.iid}/merge`));
    const branches = await apiOk(t, owner.token, 'GET', `/projects/${s.project.id}/repository/branches`);
    expect(branches.map((b: { name: string }) => b.name).sort()).toEqual(['main', 'rest']);

    await apiOk(t, owner.token, 'PUT', `/projects/${s.project.id}`, { remove_source_branch_after_merge: false });
    await pushBranch(s, 'kept', [['k.txt', 'k\n', 'Add k']]);
    const kept = await t.graphql(create, { path: s.project.path_with_namespace, source: 'kept' }, owner.token);
    expect(kept.body.data.mergeRequestCreate.mergeRequest.forceRemoveSourceBranch).toBe(false);
  });
});

describe('GraphQL mergeRequestSetMilestone and mergeRequestSetLocked', () => {
  it('set and remove the milestone and lock the discussion through the update service; a Reporter may not', async () => {
    const s = await setup();
    await pushBranch(s, 'feature', [['a.txt', 'a\n', 'Add a']]);
    const mr = await openMr(s, 'feature');
    const milestone = await apiOk(t, owner.token, 'POST', `/projects/${s.project.id}/milestones`, { title: 'v1' });
    const setMilestone = `mutation($path: ID!, $iid: String!, $m: MilestoneID) { mergeRequestSetMilestone(input: { projectPath: $path, iid: $iid, milestoneId: $m, clientMutationId: "c1" }) { clientMutationId errors mergeRequest { milestone { title } } } }`;
    const vars = { path: s.project.path_with_namespace, iid: String(mr.iid) };
    const set = await t.graphql(setMilestone, { ...vars, m: `gid://gitlab/Milestone/${milestone.id}` }, owner.token);
    expect(set.body.data.mergeRequestSetMilestone).toEqual({ clientMutationId: 'c1', errors: [], mergeRequest: { milestone: { title: 'v1' } } });
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).milestone.id).toBe(milestone.id);
    const unset = await t.graphql(setMilestone, { ...vars, m: null }, owner.token);
    expect(unset.body.data.mergeRequestSetMilestone.mergeRequest).toEqual({ milestone: null });

    const lock = `mutation($path: ID!, $iid: String!, $locked: Boolean!) { mergeRequestSetLocked(input: { projectPath: $path, iid: $iid, locked: $locked }) { errors mergeRequest { discussionLocked } } }`;
    const locked = await t.graphql(lock, { ...vars, locked: true }, owner.token);
    expect(locked.body.data.mergeRequestSetLocked).toEqual({ errors: [], mergeRequest: { discussionLocked: true } });
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).discussion_locked).toBe(true);

    const denied = await t.graphql(lock, { ...vars, locked: false }, reporter.token);
    expect(denied.body.data?.mergeRequestSetLocked ?? null).toBeNull();
    expect(denied.body.errors?.length).toBeGreaterThan(0);
    expect((await apiOk(t, owner.token, 'GET', mrPath(s, `/${mr.iid}`))).discussion_locked).toBe(true);
  });
});
