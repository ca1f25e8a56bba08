/**
 * The project's merge checks
 * (`only_allow_merge_if_pipeline_succeeds`, `allow_merge_on_skipped_pipeline`,
 * `only_allow_merge_if_all_discussions_are_resolved`), taken and shown by REST and GraphQL.
 */
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createUser } from '../support/factories.js';
import { projectWithConfig, withShellRunner } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);

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
});
