/**
 * Pipeline trigger tokens: Maintainers manage them, only a trigger's owner changes it; a token starts a pipeline as its
 * owner, without any API token.
 */
import { describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser } from '../support/factories.js';

const t = suiteServer();

async function projectWithConfig(token = t.rootToken) {
  const project = await createProject(t, token);
  const res = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo $DEPLOY\n' }] },
  });
  expect(res.status).toBe(201);
  return project;
}

describe('trigger tokens', () => {
  it('are created, listed and deleted by Maintainers, shown in full to and updated by their owner only', async () => {
    const owner = await createUser(t);
    const project = await projectWithConfig(owner.token);
    const maintainer = await createUser(t);
    const developer = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
    await addMember(t, owner.token, 'projects', project.id, developer.id, 30);
    const created = await t.api('POST', `/projects/${project.id}/triggers`, { token: owner.token, body: { description: 'deploys' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'description', 'id', 'last_used', 'owner', 'token', 'updated_at']);
    expect(created.body).toMatchObject({ description: 'deploys', last_used: null, owner: { username: owner.username } });
    expect(created.body.token).toMatch(/^glptt-[0-9a-f]{40}$/);
    const seenByMaintainer = await t.api('GET', `/projects/${project.id}/triggers/${created.body.id}`, { token: maintainer.token });
    expect(seenByMaintainer.body.token).toBe(created.body.token.slice(6, 10));
    expect((await t.api('GET', `/projects/${project.id}/triggers`, { token: developer.token })).status).toBe(403);
    expect((await t.api('GET', `/projects/${project.id}/triggers`, { token: owner.token })).body.map((x: { id: number }) => x.id)).toEqual([created.body.id]);
    // Ci::TriggerPolicy's admin_trigger: the owner only, whatever the others' role.
    const refusal = { status: 403, body: { message: '403 Forbidden - The current user is not authorized to update the pipeline trigger token' } };
    for (const other of [maintainer, developer]) {
      expect(await t.api('PUT', `/projects/${project.id}/triggers/${created.body.id}`, { token: other.token, body: { description: 'nightly' } })).toMatchObject(refusal);
    }
    const updated = await t.api('PUT', `/projects/${project.id}/triggers/${created.body.id}`, { token: owner.token, body: { description: 'nightly' } });
    expect(updated).toMatchObject({ status: 200, body: { description: 'nightly', token: created.body.token } });
    expect((await t.api('DELETE', `/projects/${project.id}/triggers/${created.body.id}`, { token: maintainer.token })).status).toBe(204);
    expect(await t.api('GET', `/projects/${project.id}/triggers/${created.body.id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Trigger Not Found' } });
  });

  it("are not changed by the project's Owner when a Maintainer owns them, over REST and GraphQL; the Owner may still delete them", async () => {
    const owner = await createUser(t);
    const project = await projectWithConfig(owner.token);
    const maintainer = await createUser(t);
    await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
    const { body: trigger } = await t.api('POST', `/projects/${project.id}/triggers`, { token: maintainer.token, body: { description: 'mine' } });
    const put = await t.api('PUT', `/projects/${project.id}/triggers/${trigger.id}`, { token: owner.token, body: { description: 'taken' } });
    expect(put).toMatchObject({ status: 403, body: { message: '403 Forbidden - The current user is not authorized to update the pipeline trigger token' } });
    const mutation = `mutation($path: ID!, $id: ID!) { pipelineTriggerUpdate(input: { projectPath: $path, id: $id, description: "taken" }) { pipelineTrigger { description } errors } }`;
    const gql = await t.graphql(mutation, { path: project.path_with_namespace, id: String(trigger.id) }, owner.token);
    // A refusal by policy stays a top-level error, as GitLab raises it; the payload is null.
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(gql.body.data?.pipelineTriggerUpdate).toBeNull();
    const seen = await t.api('GET', `/projects/${project.id}/triggers/${trigger.id}`, { token: owner.token });
    expect(seen.body).toMatchObject({ description: 'mine', token: trigger.token.slice(6, 10) });
    expect((await t.api('DELETE', `/projects/${project.id}/triggers/${trigger.id}`, { token: owner.token })).status).toBe(204);
  });

  it('start a trigger pipeline as the owner, with variables, and nothing for a wrong token', async () => {
    const owner = await createUser(t);
    const project = await projectWithConfig(owner.token);
    const { body: trigger } = await t.api('POST', `/projects/${project.id}/triggers`, { token: owner.token, body: { description: 'x' } });
    const run = await t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.token, ref: 'main', variables: { DEPLOY: 'prod' } } });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ source: 'trigger', ref: 'main', status: 'pending', user: { username: owner.username } });
    const variables = await t.api('GET', `/projects/${project.id}/pipelines/${run.body.id}/variables`, { token: owner.token });
    expect(variables.body).toEqual([{ variable_type: 'env_var', key: 'DEPLOY', value: 'prod' }]);
    // Form fields, as curl -F token=… -F ref=… -F "variables[X]=y" sends them.
    const form = new URLSearchParams({ token: trigger.token, ref: 'main', 'variables[X]': 'y' });
    const viaForm = await fetch(`${t.url}/api/v4/projects/${project.id}/trigger/pipeline`, { method: 'POST', body: form });
    expect(viaForm.status).toBe(201);
    expect((await t.api('GET', `/projects/${project.id}/triggers/${trigger.id}`, { token: owner.token })).body.last_used).not.toBeNull();
    expect(await t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: 'glptt-wrong', ref: 'main' } })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    const other = await projectWithConfig(owner.token);
    expect((await t.api('POST', `/projects/${other.id}/trigger/pipeline`, { token: null, body: { token: trigger.token, ref: 'main' } })).status).toBe(404);
    expect(await t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.token, ref: 'nope' } })).toMatchObject({ status: 400, body: { message: { base: ['Reference not found'] } } });
    expect((await t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.token, ref: 'main', variables: ['x'] } })).status).toBe(400);
    expect((await t.api('GET', `/projects/${project.id}/pipelines?source=trigger`, { token: owner.token })).body).toHaveLength(2);
  });

  it('work through gitbeaker', async () => {
    const project = await projectWithConfig();
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const trigger = await api.PipelineTriggerTokens.create(project.id, 'from gitbeaker');
    const pipeline = await api.PipelineTriggerTokens.trigger(project.id, 'main', trigger.token, { variables: { A: 'b' } });
    expect(pipeline).toMatchObject({ source: 'trigger', ref: 'main' });
    expect((await api.PipelineTriggerTokens.all(project.id)).map((x) => x.id)).toEqual([trigger.id]);
  });
});

describe("GraphQL mutations, in GitLab's relay shape", () => {
  it('echo clientMutationId, answer validation failures in errors, and raise missing objects', async () => {
    const owner = await createUser(t);
    const project = await projectWithConfig(owner.token);
    const p = project.path_with_namespace;
    const created = await t.graphql(
      `mutation($p: ID!, $c: String) { pipelineTriggerCreate(input: { projectPath: $p, description: "relay", clientMutationId: $c }) { clientMutationId errors pipelineTrigger { databaseId token description } } }`,
      { p, c: 'trigger-1' },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const trigger = created.body.data.pipelineTriggerCreate.pipelineTrigger;
    expect(created.body.data.pipelineTriggerCreate).toMatchObject({ clientMutationId: 'trigger-1', errors: [], pipelineTrigger: { description: 'relay' } });
    expect(trigger.token).toMatch(/^glptt-/);

    // Tokenless: the trigger token is the credential.
    const run = await t.graphql(
      `mutation($p: ID!, $token: String!) { pipelineTriggerRun(input: { projectPath: $p, token: $token, ref: "main", variables: { DEPLOY: "gql" } }) { errors pipeline { source ref user { username } } } }`,
      { p, token: trigger.token },
      null,
    );
    expect(run.body.errors).toBeUndefined();
    expect(run.body.data.pipelineTriggerRun).toEqual({ errors: [], pipeline: { source: 'trigger', ref: 'main', user: { username: owner.username } } });

    const duplicate = await t.graphql(
      `mutation($p: ID!) { pipelineCreate(input: { projectPath: $p, ref: "main", variables: [{ key: "A", value: "1" }, { key: "A", value: "2" }], clientMutationId: "dup" }) { clientMutationId errors pipeline { id } } }`,
      { p },
      owner.token,
    );
    expect(duplicate.body.errors).toBeUndefined();
    expect(duplicate.body.data.pipelineCreate).toEqual({ clientMutationId: 'dup', errors: ['Duplicate variable name: A'], pipeline: null });

    const sha = (await t.api('GET', `/projects/${project.id}/repository/branches/main`, { token: owner.token })).body.commit.id;
    const status = (coverage: number) =>
      t.graphql(
        `mutation($p: ID!, $sha: String!, $coverage: Float) { commitStatusCreate(input: { projectPath: $p, sha: $sha, state: "success", name: "external", coverage: $coverage }) { errors commitStatus { name status coverage } } }`,
        { p, sha, coverage },
        owner.token,
      );
    const refused = await status(101);
    expect(refused.body.errors).toBeUndefined();
    expect(refused.body.data.commitStatusCreate).toEqual({ errors: ['Coverage must be between 0 and 100'], commitStatus: null });
    expect((await status(50)).body.data.commitStatusCreate).toEqual({ errors: [], commitStatus: { name: 'external', status: 'SUCCESS', coverage: 50 } });

    const remove = `mutation($p: ID!, $id: ID!) { pipelineTriggerDelete(input: { projectPath: $p, id: $id }) { errors pipelineTrigger { databaseId } } }`;
    const removed = await t.graphql(remove, { p, id: String(trigger.databaseId) }, owner.token);
    expect(removed.body.data.pipelineTriggerDelete).toEqual({ errors: [], pipelineTrigger: { databaseId: trigger.databaseId } });
    const missing = await t.graphql(remove, { p, id: String(trigger.databaseId) }, owner.token);
    expect(missing.body.data.pipelineTriggerDelete).toBeNull();
    expect(missing.body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", extensions: { code: 'NOT_FOUND' } });
  });
});
