/** Commit statuses from external CI: they join the commit's pipeline (or make an external one) and move its status. */
import { describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';

const t = suiteServer();

async function projectWithCommit() {
  const project = await createProject(t, t.rootToken);
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    body: { branch: 'main', commit_message: 'Init', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] },
  });
  return { project, sha: res.body.id as string };
}

describe('commit statuses', () => {
  it('make an external pipeline, move through their states, and set its status', async () => {
    const { project, sha } = await projectWithCommit();
    const pending = await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'pending', name: 'ci/jenkins', target_url: 'https://ci.example.com/1', description: 'queued' } });
    expect(pending.status).toBe(201);
    expect(Object.keys(pending.body).sort()).toEqual(
      ['allow_failure', 'author', 'coverage', 'created_at', 'description', 'finished_at', 'id', 'name', 'pipeline_id', 'ref', 'sha', 'started_at', 'status', 'target_url'].sort(),
    );
    expect(pending.body).toMatchObject({ sha, ref: 'main', status: 'pending', name: 'ci/jenkins', target_url: 'https://ci.example.com/1', description: 'queued', author: { username: 'root' } });
    const pipeline = await t.api('GET', `/projects/${project.id}/pipelines/${pending.body.pipeline_id}`);
    expect(pipeline.body).toMatchObject({ source: 'external', status: 'pending', sha, ref: 'main' });

    const running = await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'running', name: 'ci/jenkins' } });
    expect(running.body).toMatchObject({ id: pending.body.id, status: 'running', description: 'queued' });
    expect(running.body.started_at).not.toBeNull();
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pending.body.pipeline_id}`)).body.status).toBe('running');

    const done = await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'success', name: 'ci/jenkins', coverage: 81.5 } });
    expect(done.body).toMatchObject({ id: pending.body.id, status: 'success', coverage: 81.5 });
    const finished = (await t.api('GET', `/projects/${project.id}/pipelines/${pending.body.pipeline_id}`)).body;
    expect(finished).toMatchObject({ status: 'success', coverage: '81.50' });

    // A finished status is not moved again: a new one of the same name starts.
    const again = await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'failed', name: 'ci/jenkins' } });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(pending.body.id);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${pending.body.pipeline_id}`)).body.status).toBe('failed');

    const listed = await t.api('GET', `/projects/${project.id}/repository/commits/${sha}/statuses`);
    expect(listed.body.map((s: { id: number }) => s.id)).toEqual([pending.body.id, again.body.id]);
    expect((await t.api('GET', `/projects/${project.id}/repository/commits/${sha}/statuses?name=nope`)).body).toEqual([]);
  });

  it("attach without `ref` to the commit's newest pipeline and its ref; honour pipeline_id; create a pipeline only when the commit has none", async () => {
    const { project, sha } = await projectWithCommit();
    const post = (body: Record<string, unknown>, token = t.rootToken) => t.api('POST', `/projects/${project.id}/statuses/${sha}`, { token, body });
    for (const branch of ['aaa-first', 'zzz-last']) expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch, ref: 'main' } })).status).toBe(201);
    // No pipeline yet: one is created on the first branch (by name) containing the commit, as GitLab's branch_names_contains.
    const first = await post({ state: 'pending', name: 'first' });
    expect(first.body).toMatchObject({ ref: 'aaa-first' });
    const onMain = await post({ state: 'pending', name: 'a', ref: 'main' });
    expect(onMain.body.pipeline_id).not.toBe(first.body.pipeline_id);
    const onLast = await post({ state: 'pending', name: 'b', ref: 'zzz-last' });
    // Without ref: the newest pipeline of the commit, with its ref; no new pipeline.
    const newest = await post({ state: 'running', name: 'c' });
    expect(newest.body).toMatchObject({ pipeline_id: onLast.body.pipeline_id, ref: 'zzz-last', status: 'running' });
    // pipeline_id without ref: that pipeline and its ref.
    const named = await post({ state: 'success', name: 'd', pipeline_id: onMain.body.pipeline_id });
    expect(named.body).toMatchObject({ pipeline_id: onMain.body.pipeline_id, ref: 'main' });
    // pipeline_id with a ref it is not on, or unknown: GitLab's 404.
    expect(await post({ state: 'success', name: 'e', pipeline_id: onMain.body.pipeline_id, ref: 'zzz-last' })).toMatchObject({ status: 404, body: { message: '404 Pipeline for pipeline_id, sha and ref Not Found' } });
    expect(await post({ state: 'success', name: 'e', pipeline_id: 999999999 })).toMatchObject({ status: 404, body: { message: '404 Pipeline for pipeline_id, sha and ref Not Found' } });
    // With ref: that ref's newest pipeline.
    const again = await post({ state: 'success', name: 'a', ref: 'main' });
    expect(again.body).toMatchObject({ id: onMain.body.id, pipeline_id: onMain.body.pipeline_id, status: 'success' });
    const pipelines = await t.api('GET', `/projects/${project.id}/pipelines?sha=${sha}`);
    expect(pipelines.body.map((p: { ref: string; source: string }) => [p.ref, p.source])).toEqual([
      ['zzz-last', 'external'],
      ['main', 'external'],
      ['aaa-first', 'external'],
    ]);
    // Another user's status of the same name starts its own (GitLab's for_user scope), in the same pipeline.
    const developer = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, developer.id, 30);
    const theirs = await post({ state: 'running', name: 'c' }, developer.token);
    expect(theirs.status).toBe(201);
    expect(theirs.body).toMatchObject({ pipeline_id: onLast.body.pipeline_id, ref: 'zzz-last', status: 'running' });
    expect(theirs.body.id).not.toBe(newest.body.id);
  });

  it("answers GitLab's errors", async () => {
    const { project, sha } = await projectWithCommit();
    expect(await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'bogus' } })).toMatchObject({ status: 400, body: { error: 'state does not have a valid value' } });
    expect(await t.api('POST', `/projects/${project.id}/statuses/${'f'.repeat(40)}`, { body: { state: 'success' } })).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'pending' } });
    const twice = await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'pending' } });
    expect(twice).toMatchObject({ status: 400, body: { message: 'Cannot transition status via :enqueue from :pending (Reason(s): Status cannot transition via "enqueue")' } });
    const reporter = await createUser(t);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    expect((await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { token: reporter.token, body: { state: 'success' } })).status).toBe(403);
    expect((await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { token: null, body: { state: 'success' } })).status).toBe(401);
  });

  it('are read by those with read_commit_status: Reporters of a private project, anyone who sees a public one, not its Guests', async () => {
    const { project, sha } = await projectWithCommit();
    await t.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'success', name: 'ci/private' } });
    const [guest, reporter] = [await createUser(t), await createUser(t)];
    await addMember(t, t.rootToken, 'projects', project.id, guest.id, 10);
    await addMember(t, t.rootToken, 'projects', project.id, reporter.id, 20);
    const statuses = `/projects/${project.id}/repository/commits/${sha}/statuses`;
    // The commit itself is 403 to the Guest (download_code); so are its statuses.
    expect((await t.api('GET', `/projects/${project.id}/repository/commits/${sha}`, { token: guest.token })).status).toBe(403);
    expect(await t.api('GET', statuses, { token: guest.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await t.api('GET', statuses, { token: reporter.token })).body.map((s: { name: string }) => s.name)).toEqual(['ci/private']);
    const open = await createProject(t, t.rootToken, { visibility: 'public' });
    const commit = await t.api('POST', `/projects/${open.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'Init', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] },
    });
    await t.api('POST', `/projects/${open.id}/statuses/${commit.body.id}`, { body: { state: 'success', name: 'ci/public' } });
    await addMember(t, t.rootToken, 'projects', open.id, guest.id, 10);
    const publicStatuses = `/projects/${open.id}/repository/commits/${commit.body.id}/statuses`;
    expect((await t.api('GET', publicStatuses, { token: guest.token })).body.map((s: { name: string }) => s.name)).toEqual(['ci/public']);
  });

  it('work through gitbeaker', async () => {
    const { project, sha } = await projectWithCommit();
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const status = await api.Commits.editStatus(project.id, sha, 'success', { name: 'lint' });
    expect(status).toMatchObject({ status: 'success', name: 'lint' });
    expect((await api.Commits.allStatuses(project.id, sha)).map((s) => s.name)).toEqual(['lint']);
  });
});
