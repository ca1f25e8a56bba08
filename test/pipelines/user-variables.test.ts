/**
 * Who may pass variables to a pipeline (GitLab's restrict_user_defined_variables and
 * ci_pipeline_variables_minimum_override_role, ProjectPolicy's set_pipeline_variables): the project settings over REST
 * and GraphQL, and the refusal on `POST /pipeline`, the trigger API and schedule variables.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let project: { id: number; path_with_namespace: string };

const REFUSED = { message: { base: ['Insufficient permissions to set pipeline variables'] } };
const settings = (body: Record<string, unknown>) => t.api('PUT', `/projects/${project.id}`, { token: owner.token, body });
const run = (token: string, variables?: { key: string; value: string }[]) => t.api('POST', `/projects/${project.id}/pipeline`, { token, body: { ref: 'feature', ...(variables ? { variables } : {}) } });
const VARS = [{ key: 'DEPLOY', value: 'yes' }];

beforeAll(async () => {
  [owner, maintainer, developer] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, owner.token, { visibility: 'private' });
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
  const ci = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo $DEPLOY\n' }] },
  });
  expect(ci.status, ci.text).toBe(201);
  // An unprotected branch, which Developers may run pipelines on.
  expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
});

describe('user-defined pipeline variables', () => {
  it('shows and takes the settings, for Maintainers only, with GitLab’s validation', async () => {
    const shown = (await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body;
    expect(shown).toMatchObject({ restrict_user_defined_variables: false, ci_pipeline_variables_minimum_override_role: 'developer' });
    const asDeveloper = (await t.api('GET', `/projects/${project.id}`, { token: developer.token })).body;
    expect(Object.keys(asDeveloper)).not.toContain('restrict_user_defined_variables');
    const bad = await settings({ ci_pipeline_variables_minimum_override_role: 'guest' });
    expect([bad.status, bad.body]).toEqual([400, { error: 'ci_pipeline_variables_minimum_override_role does not have a valid value' }]);
    const gql = await t.graphql(`query($p: ID!) { project(fullPath: $p) { restrictUserDefinedVariables ciPipelineVariablesMinimumOverrideRole } }`, { p: project.path_with_namespace }, owner.token);
    expect(gql.body.data.project).toEqual({ restrictUserDefinedVariables: false, ciPipelineVariablesMinimumOverrideRole: 'developer' });
  });

  it('lets anyone who creates pipelines pass variables until the project restricts them, then the minimum role', async () => {
    expect((await run(developer.token, VARS)).status).toBe(201);
    const put = await settings({ restrict_user_defined_variables: true, ci_pipeline_variables_minimum_override_role: 'maintainer' });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ restrict_user_defined_variables: true, ci_pipeline_variables_minimum_override_role: 'maintainer' });

    const refused = await run(developer.token, VARS);
    expect([refused.status, refused.body]).toEqual([400, REFUSED]);
    expect((await run(developer.token)).status).toBe(201);
    expect((await run(developer.token, [])).status).toBe(201);
    expect((await run(maintainer.token, VARS)).status).toBe(201);

    // GraphQL's pipelineCreate answers the same refusal in its payload.
    const gql = await t.graphql(
      `mutation($p: ID!) { pipelineCreate(input: { projectPath: $p, ref: "feature", variables: [{ key: "DEPLOY", value: "yes" }] }) { errors pipeline { id } } }`,
      { p: project.path_with_namespace },
      developer.token,
    );
    expect(gql.body.data.pipelineCreate).toEqual({ errors: ['Insufficient permissions to set pipeline variables'], pipeline: null });

    expect((await settings({ ci_pipeline_variables_minimum_override_role: 'no_one_allowed' })).status).toBe(200);
    expect((await run(owner.token, VARS)).body).toEqual(REFUSED);
  });

  it('refuses a trigger’s variables and schedule variables below the minimum role', async () => {
    expect((await settings({ restrict_user_defined_variables: true, ci_pipeline_variables_minimum_override_role: 'no_one_allowed' })).status).toBe(200);
    const trigger = await t.api('POST', `/projects/${project.id}/triggers`, { token: owner.token, body: { description: 'vars' } });
    expect(trigger.status).toBe(201);
    const fire = (variables?: Record<string, string>) =>
      t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.body.token, ref: 'feature', ...(variables ? { variables } : {}) } });
    expect(await fire({ DEPLOY: 'yes' })).toMatchObject({ status: 400, body: REFUSED });
    expect((await fire()).status).toBe(201);
    expect((await settings({ ci_pipeline_variables_minimum_override_role: 'owner' })).status).toBe(200);
    expect((await fire({ DEPLOY: 'yes' })).status).toBe(201);

    const schedule = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, { token: developer.token, body: { description: 'nightly', ref: 'feature', cron: '0 1 * * *' } });
    expect(schedule.status, schedule.text).toBe(201);
    const variable = await t.api('POST', `/projects/${project.id}/pipeline_schedules/${schedule.body.id}/variables`, { token: developer.token, body: { key: 'DEPLOY', value: 'yes' } });
    expect([variable.status, variable.body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await settings({ ci_pipeline_variables_minimum_override_role: 'developer' })).status).toBe(200);
    expect((await t.api('POST', `/projects/${project.id}/pipeline_schedules/${schedule.body.id}/variables`, { token: developer.token, body: { key: 'DEPLOY', value: 'yes' } })).status).toBe(201);
  });
});
