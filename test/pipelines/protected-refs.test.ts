/**
 * Pipeline and job writes on protected and unprotected refs, by every role (GitLab's Ci::PipelinePolicy and
 * Ci::BuildPolicy `protected_ref`, and Chain::Validate::Abilities for creation): on a branch only Maintainers may push
 * and merge to (the default branch's protection), Developers may not create, retry, cancel or play anything. This
 * server has no protected tags, so a tag is written to as an unprotected branch is.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

const CI = 'build:\n  script: echo\ndeploy:\n  script: echo\n  when: manual\n';
const ROLES = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
type Role = (typeof ROLES)[number];
const LEVELS: Record<Exclude<Role, 'owner'>, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40 };
const REFS = { protected: { ref: 'main', tag: false }, unprotected: { ref: 'feature', tag: false }, tag: { ref: 'v1', tag: true } } as const;
type RefKind = keyof typeof REFS;

/** GitLab's refusal of a pipeline on a ref the user may not update (Chain::Validate::Abilities), in a 400. */
const refRefused = (ref: string) => ({
  status: 400,
  body: { message: { base: [`You do not have sufficient permission to run a pipeline on '${ref}'. Please select a different branch or contact your administrator for assistance.`] } },
});

let project: { id: number; path_with_namespace: string };
const users = {} as Record<Role, TestUser>;
/**
 * For each ref kind and role, a pipeline (its `build` job failed, its `deploy` job manual): one of its own for each
 * role whose writes succeed, one shared by those refused (a refused write changes nothing).
 */
const fixtures = {} as Record<RefKind, Record<Role, { pipelineId: number; buildId: number; deployId: number }>>;

/** Whether GitLab lets the role write to pipelines and jobs of the ref: Developers and up, Maintainers on a protected one. */
const writes = (role: Role, kind: RefKind) => (kind === 'protected' ? ['maintainer', 'owner'] : ['developer', 'maintainer', 'owner']).includes(role);

beforeAll(async () => {
  const [owner, ...members] = await Promise.all(ROLES.map(() => createUser(t)));
  users.owner = owner;
  project = await createProject(t, owner.token);
  for (const [i, role] of (['guest', 'reporter', 'developer', 'maintainer'] as const).entries()) {
    users[role] = members[i];
    await addMember(t, owner.token, 'projects', project.id, members[i].id, LEVELS[role]);
  }
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
  });
  expect(commit.status).toBe(201);
  expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'feature', ref: 'main' } })).status).toBe(201);
  expect((await t.api('POST', `/projects/${project.id}/repository/tags`, { token: owner.token, body: { tag_name: 'v1', ref: 'main' } })).status).toBe(201);
  // The default branch is protected on its first push: Maintainers push and merge.
  const protection = await t.api('GET', `/projects/${project.id}/protected_branches/main`, { token: owner.token });
  expect(protection.body).toMatchObject({ push_access_levels: [{ access_level: 40 }], merge_access_levels: [{ access_level: 40 }] });

  const prisma = t.server.database.prisma;
  const pipelineOn = async (ref: string, creator: TestUser) => {
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: creator.token, body: { ref } });
    expect(created.status).toBe(201);
    const jobs = await prisma.ciJob.findMany({ where: { pipelineId: created.body.id }, orderBy: { id: 'asc' } });
    const build = jobs.find((j) => j.name === 'build')!;
    const deploy = jobs.find((j) => j.name === 'deploy')!;
    expect(deploy.status).toBe('manual');
    await prisma.ciJob.update({ where: { id: build.id }, data: { status: 'failed', finishedAt: new Date() } });
    return { pipelineId: created.body.id as number, buildId: build.id, deployId: deploy.id };
  };
  for (const kind of Object.keys(REFS) as RefKind[]) {
    fixtures[kind] = {} as Record<Role, { pipelineId: number; buildId: number; deployId: number }>;
    const refused = await pipelineOn(REFS[kind].ref, owner);
    for (const role of ROLES) {
      // Developers run theirs where they may (erasing a job is theirs when they ran it).
      fixtures[kind][role] = writes(role, kind) ? await pipelineOn(REFS[kind].ref, role === 'developer' ? users.developer : owner) : refused;
    }
  }
}, 120_000);

describe('every pipeline and job write, by every role, on protected and unprotected refs', () => {
  for (const kind of Object.keys(REFS) as RefKind[]) {
    for (const role of ROLES) {
      it(`answers a ${role} as GitLab does on ${kind === 'tag' ? 'a tag' : `a ${kind} branch`}`, async () => {
        const { ref } = REFS[kind];
        const { pipelineId, buildId, deployId } = fixtures[kind][role];
        const token = users[role].token;
        const post = (path: string, body?: unknown) => t.api('POST', `/projects/${project.id}${path}`, { token, body });
        const allowed = writes(role, kind);
        const member = role !== 'guest' && role !== 'reporter';
        const pipeline = `/pipelines/${pipelineId}`;
        // Chain order: create_pipeline (Developers and up, else 403), then the ref (400).
        const create = await post('/pipeline', { ref });
        if (allowed) expect(create).toMatchObject({ status: 201, body: { ref, tag: REFS[kind].tag } });
        else if (member) expect(create).toMatchObject(refRefused(ref));
        else expect(create).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });

        const outcomes = {
          play: (await post(`/jobs/${deployId}/play`)).status,
          retryJob: (await post(`/jobs/${buildId}/retry`)).status,
          erase: (await post(`/jobs/${buildId}/erase`)).status,
          cancelJob: (await post(`/jobs/${deployId}/cancel`)).status,
          retry: (await post(`${pipeline}/retry`)).status,
          cancel: (await post(`${pipeline}/cancel`)).status,
          destroy: (await t.api('DELETE', `/projects/${project.id}${pipeline}`, { token })).status,
        };
        // Erasing: admin_build (Maintainers), or the Developer who ran the job on an unprotected ref.
        expect(outcomes).toEqual({
          play: allowed ? 200 : 403,
          retryJob: allowed ? 201 : 403,
          erase: allowed ? 201 : 403,
          cancelJob: allowed ? 201 : 403,
          retry: allowed ? 201 : 403,
          cancel: allowed ? 200 : 403,
          // Deleting a pipeline is the Owner's, whatever the ref (ProjectPolicy's destroy_pipeline).
          destroy: role === 'owner' ? 204 : 403,
        });
      });
    }
  }
});

describe('the rules behind the matrix', () => {
  it("refuses a Developer erasing a job another user ran, even on an unprotected ref", async () => {
    const { buildId } = fixtures.unprotected.reporter;
    expect(await t.api('POST', `/projects/${project.id}/jobs/${buildId}/erase`, { token: users.developer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('refuses to erase an unfinished job with 403 Job is not erasable!, once erasing is allowed', async () => {
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: users.maintainer.token, body: { ref: 'feature' } });
    const [build] = (await t.api('GET', `/projects/${project.id}/pipelines/${created.body.id}/jobs`, { token: users.maintainer.token })).body;
    expect(build.status).toBe('pending');
    const erase = await t.api('POST', `/projects/${project.id}/jobs/${build.id}/erase`, { token: users.maintainer.token });
    expect(erase).toMatchObject({ status: 403, body: { message: '403 Forbidden - Job is not erasable!' } });
  });

  it('lets a Developer write on a protected branch whose rule lets Developers merge', async () => {
    const rule = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: users.owner.token, body: { name: 'release/*', push_access_level: 40, merge_access_level: 30 } });
    expect(rule.status).toBe(201);
    expect((await t.api('POST', `/projects/${project.id}/repository/branches`, { token: users.owner.token, body: { branch: 'release/1', ref: 'main' } })).status).toBe(201);
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: users.developer.token, body: { ref: 'release/1' } });
    expect(created).toMatchObject({ status: 201, body: { ref: 'release/1' } });
    expect((await t.api('POST', `/projects/${project.id}/pipelines/${created.body.id}/cancel`, { token: users.developer.token })).status).toBe(200);
  });

  it('refuses the same writes through GraphQL mutations, which share the services', async () => {
    const { pipelineId, deployId, buildId } = fixtures.protected.developer;
    const path = project.path_with_namespace;
    const token = users.developer.token;
    const create = await t.graphql(`mutation($path: ID!) { pipelineCreate(input: { projectPath: $path, ref: "main" }) { pipeline { id } errors } }`, { path }, token);
    // The pipeline's validation error is the payload's, in GitLab's words, as GitLab's mutation answers it.
    expect(create.body.errors).toBeUndefined();
    expect(create.body.data?.pipelineCreate).toEqual({ pipeline: null, errors: refRefused('main').body.message.base });
    for (const [field, id] of [['pipelineRetry', pipelineId], ['pipelineCancel', pipelineId], ['jobPlay', deployId], ['jobRetry', buildId], ['jobCancel', deployId], ['jobErase', buildId]] as const) {
      const kind = field.startsWith('job') ? 'job' : 'pipeline';
      const res = await t.graphql(`mutation($path: ID, $id: ID!) { ${field}(input: { projectPath: $path, id: $id }) { ${kind} { id } errors } }`, { path, id: `gid://gitlab/${kind === 'job' ? 'Ci::Build' : 'Ci::Pipeline'}/${id}` }, token);
      expect([field, res.body.errors?.[0]?.extensions?.code]).toEqual([field, 'FORBIDDEN']);
    }
  });

  it('runs a trigger pipeline on a protected branch only when its owner may update the branch', async () => {
    const { body: trigger } = await t.api('POST', `/projects/${project.id}/triggers`, { token: users.maintainer.token, body: { description: 'deploys' } });
    const run = (ref: string) => t.api('POST', `/projects/${project.id}/trigger/pipeline`, { token: null, body: { token: trigger.token, ref } });
    expect((await run('main')).status).toBe(201);
    // The Maintainer who owns it steps down to Developer: the protected branch refuses the trigger, the others take it.
    expect((await t.api('PUT', `/projects/${project.id}/members/${users.maintainer.id}`, { token: users.owner.token, body: { access_level: 30 } })).status).toBe(200);
    try {
      expect(await run('main')).toMatchObject(refRefused('main'));
      expect((await run('feature')).status).toBe(201);
    } finally {
      await t.api('PUT', `/projects/${project.id}/members/${users.maintainer.id}`, { token: users.owner.token, body: { access_level: 40 } });
    }
  });
});
