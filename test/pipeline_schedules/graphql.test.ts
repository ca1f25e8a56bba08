/** Pipeline schedules over GraphQL, with GitLab's names: Project.pipelineSchedules and the pipelineSchedule* mutations. */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let owner: TestUser;
let maintainer: TestUser;
let reporter: TestUser;
let project: { id: number; path_with_namespace: string };

beforeAll(async () => {
  [owner, maintainer, reporter] = await Promise.all([1, 2, 3].map(() => createUser(t)));
  project = await createProject(t, owner.token);
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo\n' }] },
  });
  expect(commit.status).toBe(201);
  await addMember(t, owner.token, 'projects', project.id, maintainer.id, 40);
  await addMember(t, owner.token, 'projects', project.id, reporter.id, 20);
});

const FIELDS = `id description ref refForDisplay forTag cron cronTimezone nextRunAt realNextRun active
  owner { username } lastPipeline { id source } variables { count nodes { id key value variableType raw } }
  userPermissions { adminPipelineSchedule playPipelineSchedule takeOwnershipPipelineSchedule updatePipelineSchedule }`;

async function create(token: string, input: Record<string, unknown>) {
  const res = await t.graphql(
    `mutation($input: PipelineScheduleCreateInput!) { pipelineScheduleCreate(input: $input) { errors pipelineSchedule { ${FIELDS} } } }`,
    { input: { projectPath: project.path_with_namespace, description: 'gql', cron: '0 4 * * *', ref: 'main', ...input } },
    token,
  );
  return res.body;
}

describe('pipeline schedules over GraphQL', () => {
  it('creates with variables, lists by status and ids, and shows permissions per viewer', async () => {
    const body = await create(owner.token, { cronTimezone: 'Europe/Berlin', variables: [{ key: 'A', value: '1', variableType: 'ENV_VAR' }, { key: 'B', value: '2', variableType: 'FILE' }] });
    expect(body.errors).toBeUndefined();
    const schedule = body.data.pipelineScheduleCreate.pipelineSchedule;
    expect(schedule).toMatchObject({
      description: 'gql',
      ref: 'refs/heads/main',
      refForDisplay: 'main',
      forTag: false,
      cronTimezone: 'Europe/Berlin',
      active: true,
      owner: { username: owner.username },
      lastPipeline: null,
      userPermissions: { adminPipelineSchedule: true, playPipelineSchedule: true, takeOwnershipPipelineSchedule: true, updatePipelineSchedule: true },
    });
    expect(schedule.id).toMatch(/^gid:\/\/gitlab\/Ci::PipelineSchedule\/\d+$/);
    expect(schedule.realNextRun).toBe(schedule.nextRunAt);
    expect(schedule.variables.nodes.map((v: { key: string; variableType: string }) => [v.key, v.variableType])).toEqual([['A', 'ENV_VAR'], ['B', 'FILE']]);
    expect(schedule.variables.nodes[0].id).toMatch(/^gid:\/\/gitlab\/Ci::PipelineScheduleVariable\/\d+$/);
    await create(owner.token, { active: false });

    const query = `query($path: ID!, $status: PipelineScheduleStatus, $ids: [ID!]) { project(fullPath: $path) { pipelineSchedules(status: $status, ids: $ids) { count nodes { id active variables { count } userPermissions { updatePipelineSchedule adminPipelineSchedule playPipelineSchedule } } } } }`;
    const active = await t.graphql(query, { path: project.path_with_namespace, status: 'ACTIVE' }, owner.token);
    expect(active.body.data.project.pipelineSchedules.nodes.map((n: { active: boolean }) => n.active)).toEqual([true]);
    const byId = await t.graphql(query, { path: project.path_with_namespace, ids: [schedule.id] }, owner.token);
    expect(byId.body.data.project.pipelineSchedules.count).toBe(1);
    const asMaintainer = await t.graphql(query, { path: project.path_with_namespace, ids: [schedule.id] }, maintainer.token);
    expect(asMaintainer.body.data.project.pipelineSchedules.nodes[0]).toMatchObject({ variables: { count: 2 }, userPermissions: { updatePipelineSchedule: false, adminPipelineSchedule: true, playPipelineSchedule: true } });
    const asReporter = await t.graphql(query, { path: project.path_with_namespace, ids: [schedule.id] }, reporter.token);
    expect(asReporter.body.data.project.pipelineSchedules.nodes[0]).toMatchObject({ variables: null, userPermissions: { updatePipelineSchedule: false, adminPipelineSchedule: false, playPipelineSchedule: false } });
  });

  it('updates variables (create, change, destroy), takes ownership, plays and deletes', async () => {
    const created = (await create(owner.token, { variables: [{ key: 'KEEP', value: '1', variableType: 'ENV_VAR' }, { key: 'DROP', value: '2', variableType: 'ENV_VAR' }] })).data.pipelineScheduleCreate.pipelineSchedule;
    const [keep, drop] = created.variables.nodes;
    const update = await t.graphql(
      `mutation($input: PipelineScheduleUpdateInput!) { pipelineScheduleUpdate(input: $input) { pipelineSchedule { cron nextRunAt variables { nodes { key value } } } } }`,
      {
        input: {
          id: created.id,
          cron: '15 * * * *',
          variables: [
            { id: keep.id, key: 'KEEP', value: 'changed', variableType: 'ENV_VAR' },
            { id: drop.id, key: 'DROP', value: '2', variableType: 'ENV_VAR', destroy: true },
            { key: 'NEW', value: '3', variableType: 'FILE' },
          ],
        },
      },
      owner.token,
    );
    expect(update.body.errors).toBeUndefined();
    const updated = update.body.data.pipelineScheduleUpdate.pipelineSchedule;
    expect(updated.variables.nodes).toEqual([{ key: 'KEEP', value: 'changed' }, { key: 'NEW', value: '3' }]);
    expect(new Date(updated.nextRunAt).getUTCMinutes()).toBe(15);

    const denied = await t.graphql(`mutation($id: ID!) { pipelineScheduleUpdate(input: { id: $id, description: "x" }) { pipelineSchedule { id } } }`, { id: created.id }, maintainer.token);
    expect(denied.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const taken = await t.graphql(`mutation($id: ID!) { pipelineScheduleTakeOwnership(input: { id: $id }) { pipelineSchedule { owner { username } } } }`, { id: created.id }, maintainer.token);
    expect(taken.body.data.pipelineScheduleTakeOwnership.pipelineSchedule.owner.username).toBe(maintainer.username);

    const played = await t.graphql(`mutation($id: ID!) { pipelineSchedulePlay(input: { id: $id }) { errors pipelineSchedule { id } } }`, { id: created.id }, maintainer.token);
    expect(played.body.data.pipelineSchedulePlay).toEqual({ errors: [], pipelineSchedule: { id: created.id } });

    const hidden = await t.graphql(`mutation($id: ID!) { pipelineScheduleDelete(input: { id: $id }) { errors } }`, { id: created.id }, (await createUser(t)).token);
    expect(hidden.body.errors?.[0]).toMatchObject({ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action", extensions: { code: 'NOT_FOUND' } });
    const deleted = await t.graphql(`mutation($id: ID!) { pipelineScheduleDelete(input: { id: $id }) { errors } }`, { id: created.id }, maintainer.token);
    expect(deleted.body.data.pipelineScheduleDelete.errors).toEqual([]);
    const gone = await t.graphql(`query($path: ID!, $id: ID!) { project(fullPath: $path) { pipelineSchedule(id: $id) { id } } }`, { path: project.path_with_namespace, id: created.id }, owner.token);
    expect(gone.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it("answers invalid input in the payload's errors, in Rails' full messages", async () => {
    const body = await create(owner.token, { cron: 'nope', cronTimezone: 'Nowhere' });
    expect(body.errors).toBeUndefined();
    expect(body.data.pipelineScheduleCreate).toEqual({ errors: ['Cron is invalid syntax', 'Cron timezone is invalid syntax'], pipelineSchedule: null });
    const dup = await create(owner.token, { variables: [{ key: 'X', value: '1', variableType: 'ENV_VAR' }, { key: 'X', value: '2', variableType: 'ENV_VAR' }] });
    expect(dup.errors).toBeUndefined();
    expect(dup.data.pipelineScheduleCreate).toEqual({ errors: ['Variables has already been taken'], pipelineSchedule: null });
    const anonymous = await t.graphql(`query($path: ID!) { project(fullPath: $path) { pipelineSchedules { count } } }`, { path: project.path_with_namespace }, null);
    expect(anonymous.body.data.project).toBeNull();
  });

  it('keeps variables with relay mutations: clientMutationId echoed, a taken key in errors, a missing variable raised', async () => {
    const schedule = (await create(owner.token, { variables: [{ key: 'TAKEN', value: '1', variableType: 'ENV_VAR' }] })).data.pipelineScheduleCreate.pipelineSchedule;
    const add = `mutation($id: ID!, $key: String!, $c: String) {
      pipelineScheduleVariableCreate(input: { id: $id, key: $key, value: "v", clientMutationId: $c }) { clientMutationId errors pipelineScheduleVariable { key value variableType } }
    }`;
    const added = await t.graphql(add, { id: schedule.id, key: 'FRESH', c: 'add-fresh' }, owner.token);
    expect(added.body.errors).toBeUndefined();
    expect(added.body.data.pipelineScheduleVariableCreate).toEqual({ clientMutationId: 'add-fresh', errors: [], pipelineScheduleVariable: { key: 'FRESH', value: 'v', variableType: 'ENV_VAR' } });
    const taken = await t.graphql(add, { id: schedule.id, key: 'TAKEN', c: 'add-taken' }, owner.token);
    expect(taken.body.errors).toBeUndefined();
    expect(taken.body.data.pipelineScheduleVariableCreate).toEqual({ clientMutationId: 'add-taken', errors: ['Key has already been taken'], pipelineScheduleVariable: null });

    const changed = await t.graphql(
      `mutation($id: ID!) { pipelineScheduleVariableUpdate(input: { id: $id, key: "FRESH", value: "w", variableType: FILE }) { errors pipelineScheduleVariable { key value variableType } } }`,
      { id: schedule.id },
      owner.token,
    );
    expect(changed.body.data.pipelineScheduleVariableUpdate).toEqual({ errors: [], pipelineScheduleVariable: { key: 'FRESH', value: 'w', variableType: 'FILE' } });
    const remove = `mutation($id: ID!) { pipelineScheduleVariableDelete(input: { id: $id, key: "FRESH" }) { errors pipelineScheduleVariable { key value } } }`;
    const removed = await t.graphql(remove, { id: schedule.id }, owner.token);
    expect(removed.body.data.pipelineScheduleVariableDelete).toEqual({ errors: [], pipelineScheduleVariable: { key: 'FRESH', value: 'w' } });
    const again = await t.graphql(remove, { id: schedule.id }, owner.token);
    expect(again.body.data.pipelineScheduleVariableDelete).toBeNull();
    expect(again.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');

    const played = await t.graphql(
      `mutation($id: ID!) { pipelineSchedulePlay(input: { id: $id, clientMutationId: "play-1" }) { clientMutationId errors message } }`,
      { id: schedule.id },
      reporter.token,
    );
    expect(played.body.data.pipelineSchedulePlay).toBeNull();
    expect(played.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
