/**
 * detailed_merge_status from GitLab's mergeability checks with the project's merge checks
 * (`only_allow_merge_if_pipeline_succeeds`, `allow_merge_on_skipped_pipeline`,
 * `only_allow_merge_if_all_discussions_are_resolved`): `ci_still_running` while the head pipeline is active,
 * `ci_must_pass` when it failed, `mergeable` once it succeeded; merging refused with GitLab's 405 meanwhile. Real
 * merge request pipelines run by the built-in shell runner.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';
import { commit, eventually, projectWithConfig, withShellRunner } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);

const CONFIG = `
build:
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
  script: echo build
check:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event" && $CI_MERGE_REQUEST_SOURCE_BRANCH_NAME != "stuck"
  script:
    - test ! -f fail.txt
stuck:
  tags: [nowhere]
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event" && $CI_MERGE_REQUEST_SOURCE_BRANCH_NAME == "stuck"
  script: echo never
`;

const FINISHED = ['success', 'failed', 'canceled', 'skipped'];

describe('merge checks of a project', () => {
  it('takes and shows the settings through REST and GraphQL, Maintainers only', async () => {
    const { project } = await projectWithConfig(t, 'job:\n  script: echo\n');
    const created = await t.api('GET', `/projects/${project.id}`);
    expect(created.body).toMatchObject({ only_allow_merge_if_pipeline_succeeds: false, allow_merge_on_skipped_pipeline: false, only_allow_merge_if_all_discussions_are_resolved: false });
    const put = await t.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_pipeline_succeeds: true, allow_merge_on_skipped_pipeline: true, only_allow_merge_if_all_discussions_are_resolved: true } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ only_allow_merge_if_pipeline_succeeds: true, allow_merge_on_skipped_pipeline: true, only_allow_merge_if_all_discussions_are_resolved: true });
    const gql = await t.graphql(`query($p: ID!) { project(fullPath: $p) { onlyAllowMergeIfPipelineSucceeds allowMergeOnSkippedPipeline onlyAllowMergeIfAllDiscussionsAreResolved } }`, { p: project.path_with_namespace });
    expect(gql.body.data!.project).toEqual({ onlyAllowMergeIfPipelineSucceeds: true, allowMergeOnSkippedPipeline: true, onlyAllowMergeIfAllDiscussionsAreResolved: true });

    const made = await t.api('POST', '/projects', { body: { name: `checks-${Date.now()}`, only_allow_merge_if_pipeline_succeeds: true } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ only_allow_merge_if_pipeline_succeeds: true, allow_merge_on_skipped_pipeline: false });

    const other = await createUser(t);
    expect((await t.api('PUT', `/projects/${project.id}`, { token: other.token, body: { only_allow_merge_if_pipeline_succeeds: false } })).status).toBe(404);
  });

  it('blocks merging until the head pipeline succeeds', async () => {
    const { project } = await projectWithConfig(t, CONFIG);
    const base = `/projects/${project.id}`;
    expect((await t.api('PUT', base, { body: { only_allow_merge_if_pipeline_succeeds: true } })).status).toBe(200);

    const open = async (branch: string, files: Record<string, string>) => {
      await t.api('POST', `${base}/repository/branches`, { body: { branch, ref: 'main' } });
      await commit(t, project.id, files, branch);
      const mr = await t.api('POST', `${base}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: branch } });
      expect(mr.status).toBe(201);
      return mr.body as { iid: number };
    };
    const settled = (iid: number) =>
      eventually(async () => {
        const mr = (await t.api('GET', `${base}/merge_requests/${iid}`)).body;
        if (!mr.head_pipeline) return false;
        const pipeline = (await t.api('GET', `${base}/pipelines/${mr.head_pipeline.id}`)).body;
        return FINISHED.includes(pipeline.status) && mr;
      }, 90_000);

    // Its pipeline cannot start: no runner has the tag.
    const stuck = await open('stuck', { 's.txt': 's\n' });
    const stuckMr = await eventually(async () => {
      const mr = (await t.api('GET', `${base}/merge_requests/${stuck.iid}`)).body;
      return mr.head_pipeline && mr;
    });
    expect(stuckMr).toMatchObject({ detailed_merge_status: 'ci_still_running', merge_status: 'can_be_merged', has_conflicts: false });
    const refused = await t.api('PUT', `${base}/merge_requests/${stuck.iid}/merge`);
    expect(refused.status).toBe(405);
    expect(refused.body).toEqual({ message: '405 Method Not Allowed' });

    const bad = await open('bad', { 'fail.txt': 'x\n' });
    const badMr = await settled(bad.iid);
    expect(badMr).toMatchObject({ detailed_merge_status: 'ci_must_pass', merge_status: 'can_be_merged' });
    expect((await t.api('PUT', `${base}/merge_requests/${bad.iid}/merge`)).status).toBe(405);
    const gql = await t.graphql(`query($p: ID!, $i: String!) { project(fullPath: $p) { mergeRequest(iid: $i) { detailedMergeStatus mergeable } } }`, { p: project.path_with_namespace, i: String(bad.iid) });
    expect(gql.body.data!.project.mergeRequest).toEqual({ detailedMergeStatus: 'CI_MUST_PASS', mergeable: false });

    const good = await open('good', { 'ok.txt': 'x\n' });
    const goodMr = await settled(good.iid);
    expect(goodMr.detailed_merge_status).toBe('mergeable');

    // Without the setting, the failed pipeline does not block.
    expect((await t.api('PUT', base, { body: { only_allow_merge_if_pipeline_succeeds: false } })).status).toBe(200);
    expect((await t.api('GET', `${base}/merge_requests/${bad.iid}`)).body.detailed_merge_status).toBe('mergeable');
    expect((await t.api('GET', `${base}/merge_requests/${stuck.iid}`)).body.detailed_merge_status).toBe('mergeable');
    const merged = await t.api('PUT', `${base}/merge_requests/${good.iid}/merge`);
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
  });
});
