/**
 * Environments' cluster agents and Kubernetes namespaces on a server without cluster agents: an agent given is refused
 * as GitLab refuses one the user may not access (REST: lib/api/environments.rb's 400; GraphQL: Environments::
 * CreateService/UpdateService's payload error), and a namespace is validated as GitLab's Environment model validates
 * it (length, format, and only with an agent, so never here; a blank one is none).
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer();
const AGENT_REFUSED = { message: "400 Bad request - cluster agent doesn't exist or cannot be associated with this environment" };
const NAMESPACE_FORMAT = "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'";
const WITHOUT_AGENT = 'cannot be set without a cluster agent';

describe('environments with cluster agents and Kubernetes namespaces', () => {
  let project: any;
  let env: any;
  beforeAll(async () => {
    project = await createProject(t, t.rootToken);
    const res = await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'production' } });
    expect(res.status, res.text).toBe(201);
    env = res.body;
  });

  it('refuses a cluster agent over REST, before validating, and creates nothing', async () => {
    const create = await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'with-agent', cluster_agent_id: 1 } });
    expect(create.status).toBe(400);
    expect(create.body).toEqual(AGENT_REFUSED);
    // The agent is refused before the record is validated (a bad name would otherwise be the answer).
    expect((await t.api('POST', `/projects/${project.id}/environments`, { body: { name: '/bad', cluster_agent_id: 7, kubernetes_namespace: 'ns' } })).body).toEqual(AGENT_REFUSED);
    expect((await t.api('GET', `/projects/${project.id}/environments?name=with-agent`)).body).toEqual([]);
    const update = await t.api('PUT', `/projects/${project.id}/environments/${env.id}`, { body: { cluster_agent_id: 3, external_url: 'https://x.example.com' } });
    expect(update.status).toBe(400);
    expect(update.body).toEqual(AGENT_REFUSED);
    expect((await t.api('GET', `/projects/${project.id}/environments/${env.id}`)).body.external_url).toBeNull();
    expect((await t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'x', cluster_agent_id: 'abc' } })).status).toBe(400);
  });

  it('validates a Kubernetes namespace over REST as the Environment model does', async () => {
    const post = (kubernetes_namespace: string) => t.api('POST', `/projects/${project.id}/environments`, { body: { name: 'ns-env', kubernetes_namespace } });
    const plain = await post('my-namespace');
    expect(plain.status).toBe(400);
    expect(plain.body).toEqual({ message: { kubernetes_namespace: [WITHOUT_AGENT] } });
    expect((await post('My_NS-')).body).toEqual({ message: { kubernetes_namespace: [NAMESPACE_FORMAT, WITHOUT_AGENT] } });
    expect((await post('a'.repeat(64))).body).toEqual({ message: { kubernetes_namespace: ['is too long (maximum is 63 characters)', WITHOUT_AGENT] } });
    const put = await t.api('PUT', `/projects/${project.id}/environments/${env.id}`, { body: { kubernetes_namespace: 'prod' } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ message: { kubernetes_namespace: [WITHOUT_AGENT] } });
    // A blank namespace is none (nullify_if_blank): accepted, and the entity shows no namespace or agent without an agent.
    const blank = await post('');
    expect(blank.status, blank.text).toBe(201);
    expect(Object.keys(blank.body)).not.toContain('kubernetes_namespace');
    expect(Object.keys(blank.body)).not.toContain('cluster_agent');
    const blankUpdate = await t.api('PUT', `/projects/${project.id}/environments/${env.id}`, { body: { kubernetes_namespace: '  ', tier: 'staging' } });
    expect(blankUpdate.status, blankUpdate.text).toBe(200);
    expect(blankUpdate.body.tier).toBe('staging');
  });

  it('reports the refused agent and the namespace in the mutations’ errors', async () => {
    const create = await t.graphql(
      `mutation($p: ID!) { environmentCreate(input: { projectPath: $p, name: "agent-env", clusterAgentId: "gid://gitlab/Clusters::Agent/1" }) { errors environment { id } } }`,
      { p: project.path_with_namespace },
    );
    expect(create.body.errors).toBeUndefined();
    expect(create.body.data.environmentCreate).toEqual({ errors: ['Unauthorized to access the cluster agent in this project'], environment: null });
    const namespaced = await t.graphql(`mutation($p: ID!) { environmentCreate(input: { projectPath: $p, name: "gql-ns-env", kubernetesNamespace: "-x" }) { errors environment { id } } }`, {
      p: project.path_with_namespace,
    });
    expect(namespaced.body.data.environmentCreate).toEqual({ errors: [`Kubernetes namespace ${NAMESPACE_FORMAT}`, `Kubernetes namespace ${WITHOUT_AGENT}`], environment: null });
    const id = `gid://gitlab/Environment/${env.id}`;
    const update = await t.graphql(`mutation($id: EnvironmentID!) { environmentUpdate(input: { id: $id, clusterAgentId: "gid://gitlab/Clusters::Agent/2" }) { errors } }`, { id });
    expect(update.body.data.environmentUpdate).toEqual({ errors: ['Unauthorized to access the cluster agent in this project'] });
    const wrongType = await t.graphql(`mutation($id: EnvironmentID!) { environmentUpdate(input: { id: $id, clusterAgentId: "gid://gitlab/Project/2" }) { errors } }`, { id });
    expect(wrongType.body.errors?.[0].message).toMatch(/does not represent an instance of Clusters::Agent/);
    const cleared = await t.graphql(`mutation($id: EnvironmentID!) { environmentUpdate(input: { id: $id, clusterAgentId: null, kubernetesNamespace: "" }) { errors environment { kubernetesNamespace } } }`, { id });
    expect(cleared.body.data.environmentUpdate).toEqual({ errors: [], environment: { kubernetesNamespace: null } });
    const read = await t.graphql(`query($p: ID!) { project(fullPath: $p) { environment(name: "production") { name kubernetesNamespace } } }`, { p: project.path_with_namespace });
    expect(read.body.data.project.environment).toEqual({ name: 'production', kubernetesNamespace: null });
  });

  it('refuses an agent given through @gitbeaker/rest', async () => {
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    await expect(api.Environments.create(project.id, 'gitbeaker-env', { clusterAgentId: 4 } as never)).rejects.toThrow("400 Bad request - cluster agent doesn't exist or cannot be associated with this environment");
    expect(await api.Environments.create(project.id, 'gitbeaker-env')).toMatchObject({ name: 'gitbeaker-env' });
  });
});
