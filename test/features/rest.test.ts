/**
 * GitLab's Features API (lib/api/features.rb: administrators only, Flipper's gates) and the experiments listing
 * (ee/lib/api/experiments.rb: the team group's members and administrators), as raw HTTP with exact bodies.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createGroup, createProject, createUser, unique, type TestUser } from '../support/factories.js';

const TEAM = unique('experiments-team');
const t = suiteServer({ experimentsTeamGroup: TEAM });

let admin: TestUser;
let member: TestUser;
let subgroupMember: TestUser;
let other: TestUser;

beforeAll(async () => {
  [admin, member, subgroupMember, other] = await Promise.all([createUser(t, { admin: true }), createUser(t), createUser(t), createUser(t)]);
  const team = await createGroup(t, t.rootToken, { path: TEAM });
  const sub = await createGroup(t, t.rootToken, { parentId: team.id });
  await addMember(t, t.rootToken, 'groups', team.id, member.id, 10);
  await addMember(t, t.rootToken, 'groups', sub.id, subgroupMember.id, 30);
});

const DEFINITION_KEYS = ['name', 'introduced_by_url', 'rollout_issue_url', 'milestone', 'type', 'group', 'default_enabled'];
const CI_RUNNER_TEMPLATES = {
  name: 'ci_runner_templates',
  introduced_by_url: 'https://gitlab.com/gitlab-org/gitlab/-/merge_requests/58357',
  rollout_issue_url: 'https://gitlab.com/gitlab-org/gitlab/-/issues/326725',
  milestone: '14.0',
  type: 'experiment',
  group: 'group::activation',
  default_enabled: false,
};

const set = (name: string, body: Record<string, unknown>, token: string | null = admin.token) => t.api('POST', `/features/${name}`, { token, body });

describe('POST /features/:name', () => {
  it('sets a percentage of time, creating the flag, and answers it with 201', async () => {
    const name = unique('flag').replace(/-/g, '_');
    const res = await set(name, { value: 30 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ name, state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_time', value: 30 }], definition: null });
  });

  it('sets a percentage of actors, and enabling the whole flag clears it', async () => {
    const name = unique('flag');
    expect((await set(name, { value: '25', key: 'percentage_of_actors' })).body).toEqual({
      name, state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_actors', value: 25 }], definition: null,
    });
    expect((await set(name, { value: 'true' })).body).toEqual({ name, state: 'on', gates: [{ key: 'boolean', value: true }], definition: null });
    // A percentage of a fully enabled flag is refused, in GitLab's words.
    const refused = await set(name, { value: 10, key: 'percentage_of_actors' });
    expect([refused.status, refused.body]).toEqual([400, { message: '400 Bad request - Cannot enable percentage of actors for a fully-enabled flag' }]);
    expect((await set(name, { value: false })).body).toEqual({ name, state: 'off', gates: [{ key: 'boolean', value: false }], definition: null });
  });

  it('enables and disables actors: users, projects, groups, namespaces and feature groups', async () => {
    const name = unique('flag');
    const group = await createGroup(t, t.rootToken);
    const project = await createProject(t, t.rootToken, { namespaceId: group.id });
    let res = await set(name, { value: true, user: `${member.username},${other.username}`, project: project.path_with_namespace });
    expect(res.status, res.text).toBe(201);
    expect(res.body.state).toBe('conditional');
    expect(res.body.gates).toEqual([{ key: 'boolean', value: false }, { key: 'actors', value: [`User:${member.id}`, `User:${other.id}`, `Project:${project.id}`] }]);
    res = await set(name, { value: 'true', group: group.full_path, namespace: member.username, feature_group: 'gitlab_team_members' });
    expect(res.body.gates).toEqual([
      { key: 'boolean', value: false },
      { key: 'actors', value: [`User:${member.id}`, `User:${other.id}`, `Project:${project.id}`, `Group:${group.id}`, expect.stringMatching(/^Namespaces::UserNamespace:\d+$/)] },
      { key: 'groups', value: ['gitlab_team_members'] },
    ]);
    res = await set(name, { value: 'false', user: other.username });
    expect(res.body.gates[1].value).not.toContain(`User:${other.id}`);
    // Opting out and back in.
    res = await set(name, { value: 'opt_out', user: other.username });
    expect(res.body.gates[1].value).toContain(`User:${other.id}:opt_out`);
    const blocked = await set(name, { value: 'true', user: other.username });
    expect([blocked.status, blocked.body]).toEqual([400, { message: `400 Bad request - Opt-out exists for User:${other.id} - remove opt-out before enabling` }]);
    res = await set(name, { value: 'remove_opt_out', user: other.username });
    expect(res.body.gates[1].value).not.toContain(`User:${other.id}:opt_out`);
  });

  it("refuses bad input in GitLab's words, storing nothing", async () => {
    const name = unique('flag');
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, { error: 'value is missing' }],
      [{ value: 101 }, { message: '400 Bad request - Percentage must be between 0 and 100' }],
      [{ value: '100.5', key: 'percentage_of_actors' }, { message: '400 Bad request - Percentage must be between 0 and 100' }],
      [{ value: '-5', key: 'percentage_of_time' }, { message: '400 Bad request - Not a percentage' }],
      [{ value: 'maybe' }, { message: `400 Bad request - Cannot set '${name}' to "maybe"` }],
      [{ value: 30, key: 'percentage_of_everything' }, { message: `400 Bad request - Cannot set '${name}' ("percentage_of_everything") to "30"` }],
      [{ value: true, key: 'percentage_of_actors', user: other.username }, { error: 'key, user are mutually exclusive' }],
      [{ value: true, user: 'nobody-at-all' }, { message: '400 Bad request - nobody-at-all is not found!' }],
      [{ value: true, project: 'no/such-project' }, { message: '400 Bad request - no/such-project is not found!' }],
      [{ value: true, group: member.username }, { message: `400 Bad request - ${member.username} is not found!` }],
      [{ value: true, repository: 'no/such.git' }, { message: '400 Bad request - no/such.git is not found!' }],
      [{ value: true, feature_group: 'ghosts' }, { message: '400 Bad request - Group :ghosts has not been registered' }],
      [{ value: 'sometimes', user: other.username }, { message: `400 Bad request - Cannot set '${name}' to "sometimes" for User:${other.id}` }],
      [{ value: [1] }, { error: 'value is invalid' }],
    ];
    for (const [body, expected] of cases) {
      const res = await set(name, body);
      expect([body, res.status, res.body]).toEqual([body, 400, expected]);
    }
    expect((await t.api('GET', '/features', { token: admin.token })).body.map((f: { name: string }) => f.name)).not.toContain(name);
  });

  it('keeps one percentage per flag when sets of a new flag race', async () => {
    const name = unique('raced');
    const answers = await Promise.all([5, 10, 15, 20, 25, 30].map((value) => set(name, { value, key: 'percentage_of_actors' })));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const rows = await t.server.database.prisma.featureGate.findMany({ where: { featureKey: name } });
    expect(rows).toHaveLength(1);
    expect((await t.api('GET', '/features', { token: admin.token })).body.filter((f: { name: string }) => f.name === name)).toHaveLength(1);
  });

  it('answers at /features//:name as well, as python-gitlab sends it (Rails squeezes repeated slashes)', async () => {
    const res = await t.api('POST', '/features//squeezed_flag', { token: admin.token, body: { value: true } });
    expect([res.status, res.body.name]).toEqual([201, 'squeezed_flag']);
  });

  it('is for administrators only: 403 for others, 401 anonymous', async () => {
    expect((await set('anything', { value: true }, other.token)).status).toBe(403);
    expect((await set('anything', { value: true }, member.token)).body).toEqual({ message: '403 Forbidden' });
    expect((await set('anything', { value: true }, null)).body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('GET /features, GET /features/definitions, DELETE /features/:name', () => {
  it('lists persisted flags with their definitions, and deletes one with 204 (also when absent)', async () => {
    await set('ci_runner_templates', { value: 5, key: 'percentage_of_actors' });
    const list = await t.api('GET', '/features', { token: admin.token });
    expect(list.status).toBe(200);
    const flag = list.body.find((f: { name: string }) => f.name === 'ci_runner_templates');
    expect(flag).toEqual({ name: 'ci_runner_templates', state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_actors', value: 5 }], definition: CI_RUNNER_TEMPLATES });
    expect(Object.keys(flag.definition)).toEqual(DEFINITION_KEYS);

    const deleted = await t.api('DELETE', '/features/ci_runner_templates', { token: admin.token });
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect((await t.api('GET', '/features', { token: admin.token })).body.map((f: { name: string }) => f.name)).not.toContain('ci_runner_templates');
    expect((await t.api('DELETE', '/features/never_set', { token: admin.token })).status).toBe(204);
  });

  it('lists every definition', async () => {
    const res = await t.api('GET', '/features/definitions', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.map((d: { name: string }) => d.name)).toEqual([
      'ci_runner_templates',
      'new_project_sast_enabled',
      'null_hypothesis',
      'require_verification_for_namespace_creation',
      'video_tutorials_continuous_onboarding_experiment_percentage',
    ]);
    expect(res.body[0]).toEqual(CI_RUNNER_TEMPLATES);
  });

  it('answers 403 to non-administrators and 401 to anonymous callers', async () => {
    for (const path of ['/features', '/features/definitions']) {
      expect((await t.api('GET', path, { token: member.token })).status).toBe(403);
      expect((await t.api('GET', path, { token: null })).status).toBe(401);
    }
    expect((await t.api('DELETE', '/features/x', { token: member.token })).status).toBe(403);
    expect((await t.api('DELETE', '/features/x', { token: null })).status).toBe(401);
  });
});

describe('GET /experiments', () => {
  it('answers every experiment with its definition and current status, as Entities::Experiment', async () => {
    await set('video_tutorials_continuous_onboarding_experiment_percentage', { value: 1, key: 'percentage_of_actors' });
    const res = await t.api('GET', '/experiments', { token: member.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((e: { key: string }) => e.key)).toEqual([
      'ci_runner_templates',
      'new_project_sast_enabled',
      'null_hypothesis',
      'require_verification_for_namespace_creation',
      'video_tutorials_continuous_onboarding',
    ]);
    expect(res.body[0]).toEqual({ key: 'ci_runner_templates', definition: CI_RUNNER_TEMPLATES, current_status: { state: 'off', gates: [{ key: 'boolean', value: false }] } });
    expect(res.body[4].current_status).toEqual({ state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_actors', value: 1 }] });
    expect(res.body[4].definition.name).toBe('video_tutorials_continuous_onboarding_experiment_percentage');
    expect(Object.keys(res.body[4])).toEqual(['key', 'definition', 'current_status']);
  });

  it('lets team members (subgroup members included) and administrators read it; others 403, anonymous 401', async () => {
    expect((await t.api('GET', '/experiments', { token: subgroupMember.token })).status).toBe(403);
    expect((await t.api('GET', '/experiments', { token: admin.token })).status).toBe(200);
    expect((await t.api('GET', '/experiments', { token: member.token })).status).toBe(200);
    const refused = await t.api('GET', '/experiments', { token: other.token });
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }]);
    const anonymous = await t.api('GET', '/experiments', { token: null });
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });
});
