/**
 * Merge request pipelines (source `merge_request_event`, ref refs/merge-requests/<iid>/head) run by the built-in
 * shell runner: made when the merge request is created, on a push to its source branch and through
 * `POST .../merge_requests/:iid/pipelines`, with CI_MERGE_REQUEST_* variables; listed by `GET .../pipelines` and
 * shown as the merge request's head pipeline.
 */
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suiteServer } from '../support/server.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { createProject } from '../support/factories.js';
import { commit, eventually, jobsOf, projectWithConfig, pushPipeline, withShellRunner } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);
const sandbox = gitSandbox();

const CONFIG = `
mr-job:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    - echo "mr $CI_MERGE_REQUEST_IID from $CI_MERGE_REQUEST_SOURCE_BRANCH_NAME to $CI_MERGE_REQUEST_TARGET_BRANCH_NAME ($CI_MERGE_REQUEST_EVENT_TYPE) ref $CI_COMMIT_REF_NAME"
branch-job:
  script: echo branch
`;

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

describe('merge request pipelines', () => {
  it('runs the merge request jobs on refs/merge-requests/<iid>/head with CI_MERGE_REQUEST_* variables', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const { project } = await projectWithConfig(t, CONFIG);
    await api.Branches.create(project.id, 'feature', 'main');
    const first = await commit(t, project.id, { 'a.txt': 'a\n' }, 'feature');
    // The push's pipelines are made before the merge request exists (its own then comes from its creation).
    await pushPipeline(t, project.id, first);
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Add a');

    const list = await eventually(async () => {
      const res = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/pipelines`);
      expect(res.status).toBe(200);
      return (res.body as { source: string }[]).find((p) => p.source === 'merge_request_event') && res.body;
    });
    const pipeline = (list as { id: number; ref: string; source: string }[]).find((p) => p.source === 'merge_request_event')!;
    expect(pipeline.ref).toBe(`refs/merge-requests/${mr.iid}/head`);
    const jobs = await jobsOf(t, project.id, pipeline.id);
    expect(jobs.map((j) => j.name)).toEqual(['mr-job']);
    const [job] = await eventually(async () => {
      const js = await jobsOf(t, project.id, pipeline.id);
      return js.every((j) => FINISHED.includes(j.status)) && js;
    }, 60_000);
    expect(job.status).toBe('success');
    const trace = (await t.api('GET', `/projects/${project.id}/jobs/${job.id}/trace`)).text;
    expect(trace).toContain(`mr ${mr.iid} from feature to main (detached) ref feature`);

    // The merge request shows its newest merge request pipeline as its head pipeline.
    const newest = Math.max(...(list as { id: number; source: string }[]).filter((p) => p.source === 'merge_request_event').map((p) => p.id));
    const single = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`);
    expect(single.body.head_pipeline).toMatchObject({ id: newest });

    // The API makes another one.
    const created = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/pipelines`);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ ref: `refs/merge-requests/${mr.iid}/head`, source: 'merge_request_event', status: expect.any(String) });

    // A push to the source branch makes one for its new head.
    const sha = await commit(t, project.id, { 'b.txt': 'b\n' }, 'feature');
    await eventually(async () => {
      const res = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/pipelines`);
      return (res.body as { source: string; sha: string }[]).some((p) => p.source === 'merge_request_event' && p.sha === sha);
    });
  });

  it('answers GitLab\'s error when no job runs for a merge request', async () => {
    const { project } = await projectWithConfig(t, 'build:\n  script: echo build\n');
    const branch = await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'topic', ref: 'main' } });
    expect(branch.status).toBe(201);
    await commit(t, project.id, { 'c.txt': 'c\n' }, 'topic');
    const mr = await t.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' } });
    expect(mr.status).toBe(201);
    const res = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.body.iid}/pipelines`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: { base: ['Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.'] },
    });
    const missing = await t.api('POST', `/projects/${project.id}/merge_requests/999/pipelines`);
    expect(missing.status).toBe(404);
  });

  it('writes refs/merge-requests/<iid>/merge for GET .../merge_ref, 400 when it conflicts', async () => {
    const { project } = await projectWithConfig(t, 'build:\n  script: echo build\n');
    const main = await commit(t, project.id, { 'c.txt': 'main\n' });
    expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'clean', ref: 'main' } })).status).toBe(201);
    const head = await commit(t, project.id, { 'd.txt': 'd\n' }, 'clean');
    const mr = await t.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'clean', target_branch: 'main', title: 'Clean' } });
    const res = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge_ref`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['commit_id']);
    const parents = await t.api('GET', `/projects/${project.id}/repository/commits/${res.body.commit_id}`);
    expect(parents.body.parent_ids).toEqual([main, head]);

    expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'clash', ref: main } })).status).toBe(201);
    await commit(t, project.id, { 'c.txt': 'clash\n' }, 'clash');
    await commit(t, project.id, { 'c.txt': 'main again\n' });
    const clash = await t.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'clash', target_branch: 'main', title: 'Clash' } });
    const refused = await t.api('GET', `/projects/${project.id}/merge_requests/${clash.body.iid}/merge_ref`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'Merge request is not mergeable' });
  });

  it('merges when the pipeline succeeds (merge_when_pipeline_succeeds), and cancels on request', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    // The job waits for a gate the test opens once the merge is set to happen: the pipeline is running meanwhile.
    const gate = join(mkdtempSync(join(tmpdir(), 'mr-gate-')), 'open');
    const config = `gated:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n  script:\n    - while [ ! -f ${gate} ]; do sleep 0.1; done\n    - echo "gate open for $CI_MERGE_REQUEST_IID"\n`;
    // Its only job is for merge requests: pushes to main and to the branch make no pipeline.
    const project = await createProject(t, t.rootToken);
    await commit(t, project.id, { '.gitlab-ci.yml': config });
    await api.Branches.create(project.id, 'auto', 'main');
    await commit(t, project.id, { 'auto.txt': 'auto\n' }, 'auto');
    const mr = await api.MergeRequests.create(project.id, 'auto', 'main', 'Auto');
    const head = await eventually(async () => (await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`)).body.head_pipeline);
    expect(head).toBeTruthy();

    // Cancelling with no auto-merge set is refused; setting it answers the merge request, not merged.
    expect((await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/cancel_merge_when_pipeline_succeeds`)).status).not.toBe(201);
    const set = await t.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`, { body: { merge_when_pipeline_succeeds: true } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true, merged_at: null });
    expect(set.body.merge_user).toMatchObject({ username: 'root' });
    const cancel = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/cancel_merge_when_pipeline_succeeds`);
    expect(cancel.status, cancel.text).toBe(201);
    expect(cancel.body).toEqual({ status: 'success' });
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`)).body.merge_when_pipeline_succeeds).toBe(false);

    // A broken merge request (MergeRequest#broken?: here, one that conflicts) is not set to auto-merge while its
    // pipeline runs, as AutoMerge::BaseService#available_for? refuses it: the merge is not allowed.
    await api.Branches.create(project.id, 'clash', 'main');
    await commit(t, project.id, { 'clash.txt': 'theirs\n' }, 'clash');
    await commit(t, project.id, { 'clash.txt': 'ours\n' });
    const clash = await api.MergeRequests.create(project.id, 'clash', 'main', 'Clash');
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/merge_requests/${clash.iid}`)).body.head_pipeline);
    const broken = await t.api('PUT', `/projects/${project.id}/merge_requests/${clash.iid}/merge`, { body: { merge_when_pipeline_succeeds: true } });
    expect(broken.status, broken.text).toBe(405);
    expect((await t.api('GET', `/projects/${project.id}/merge_requests/${clash.iid}`)).body).toMatchObject({ merge_when_pipeline_succeeds: false, detailed_merge_status: 'conflict' });

    const again = await api.MergeRequests.merge(project.id, mr.iid, { mergeWhenPipelineSucceeds: true });
    expect(again).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    writeFileSync(gate, '');
    const merged = await eventually(async () => {
      const res = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`);
      return res.body.state === 'merged' && res.body;
    }, 60_000);
    expect(merged.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const dir = sandbox.folder();
    await sandbox.ok(dir, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, t.rootToken), 'repo']);
    const log = await sandbox.ok(`${dir}/repo`, ['log', '--format=%H %s', '-1', 'origin/main']);
    expect(log.trim()).toBe(`${merged.merge_commit_sha} Merge branch 'auto' into 'main'`);
  });
});
