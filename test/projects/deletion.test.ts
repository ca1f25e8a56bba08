/** DELETE /projects/:id: accepted at once, hidden at once, every row, file and repository removed by the background job. */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { suiteServer } from '../support/server.js';
import { createRunner, eventually, projectWithConfig, requestJob, RUNNER_INFO, runnerCall } from '../runners/support.js';

const t = suiteServer();
let owner: TestUser;
let maintainer: TestUser;

beforeAll(async () => {
  [owner, maintainer] = await Promise.all([createUser(t), createUser(t)]);
});

const CONFIG = 'build:\n  script: echo hi\n  artifacts:\n    paths: [out]\n';

/** Rows of any table whose project columns name the project (every `…projectId` column, whichever module owns it). */
async function rowsNaming(projectId: number): Promise<Record<string, number>> {
  const db = t.server.database.prisma;
  const columns = await db.$queryRaw<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name ILIKE '%projectid' AND data_type = 'integer'`;
  const found: Record<string, number> = {};
  for (const { table_name, column_name } of columns) {
    const [{ count }] = await db.$queryRawUnsafe<{ count: bigint }[]>(`SELECT count(*) AS count FROM "${table_name}" WHERE "${column_name}" = $1`, projectId);
    if (Number(count) > 0) found[`${table_name}.${column_name}`] = Number(count);
  }
  const [{ count }] = await db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM "projects" WHERE "id" = ${projectId}`;
  if (Number(count) > 0) found['projects.id'] = Number(count);
  return found;
}

async function destroyed(projectId: number) {
  await eventually(async () => {
    const rows = await t.server.database.prisma.$queryRaw<{ status: string }[]>`SELECT "status" FROM "jobs" WHERE "uniqueKey" = ${`projects.destroy:${projectId}`}`;
    return rows[0]?.status === 'done';
  });
}

function repositoryPath(projectId: number) {
  return t.server.app.repositories.path({ id: projectId, repositoryStorage: 'default' });
}

/** Whatever a removal leaves beside the repository's place (renamed `+deleted` folders). */
function besideRepository(projectId: number) {
  const path = repositoryPath(projectId);
  return existsSync(dirname(path)) ? readdirSync(dirname(path)).filter((name) => name.startsWith(path.split('/').pop() as string)) : [];
}

describe('DELETE /projects/:id', () => {
  it('answers 202, hides the project at once, and leaves no row, artifact, log or repository behind', async () => {
    const { project, pipeline } = await projectWithConfig(t, CONFIG, { token: owner.token });
    const id = project.id;
    await addMember(t, owner.token, 'projects', id, maintainer.id, 40);
    // A job that ran: its log and an uploaded artifact.
    const runner = await createRunner(t, { project_id: id });
    const job = await requestJob(t, runner.token);
    const patched = await runnerCall(t, 'PATCH', `/jobs/${job.id}/trace`, 'hello log\n', { 'Content-Type': 'text/plain', 'JOB-TOKEN': job.token, 'Content-Range': '0-9' });
    expect(patched.status).toBe(202);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.from('not really a zip'))]), 'artifacts.zip');
    const uploaded = await fetch(`${t.url}/api/v4/jobs/${job.id}/artifacts?artifact_type=archive&artifact_format=zip`, { method: 'POST', body: form, headers: { 'JOB-TOKEN': job.token } });
    expect(uploaded.status).toBe(201);
    await runnerCall(t, 'PUT', `/jobs/${job.id}`, { token: job.token, info: RUNNER_INFO, state: 'success' });
    expect(existsSync(join(t.server.app.artifacts.root, String(id)))).toBe(true);
    // Settings and records of other modules.
    const other = await createProject(t, owner.token);
    const extras = [
      t.api('POST', `/projects/${id}/variables`, { token: owner.token, body: { key: 'SECRET', value: 'value-1234' } }),
      t.api('POST', `/projects/${id}/triggers`, { token: owner.token, body: { description: 'deploy' } }),
      t.api('POST', `/projects/${id}/pipeline_schedules`, { token: owner.token, body: { description: 'nightly', ref: 'main', cron: '0 1 * * *' } }),
      t.api('POST', `/projects/${id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: other.id } }),
      t.api('POST', `/projects/${other.id}/job_token_scope/allowlist`, { token: owner.token, body: { target_project_id: id } }),
      t.api('POST', `/projects/${id}/star`, { token: maintainer.token }),
    ];
    const made = await Promise.all(extras);
    for (const res of made) expect(res.status, res.text).toBe(201);
    const triggerToken: string = made[1].body.token;
    expect(Object.keys(await rowsNaming(id)).length).toBeGreaterThan(8);
    expect(existsSync(repositoryPath(id))).toBe(true);

    expect(await t.api('DELETE', `/projects/${id}`, { token: maintainer.token })).toMatchObject({ status: 403 });
    const res = await t.api('DELETE', `/projects/${id}`, { token: owner.token });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: '202 Accepted' });
    // Gone for every reader before the job has run, and a second DELETE finds nothing.
    expect(await t.api('GET', `/projects/${id}`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await t.api('GET', `/projects/${encodeURIComponent(project.path_with_namespace)}/pipelines/${pipeline.id}`, { token: owner.token })).toMatchObject({ status: 404 });
    expect(await t.api('DELETE', `/projects/${id}`, { token: owner.token })).toMatchObject({ status: 404 });
    expect(await t.api('POST', `/projects/${id}/trigger/pipeline`, { token: null, body: { token: triggerToken, ref: 'main' } })).toMatchObject({ status: 404 });
    const listed = await t.api('GET', '/projects?owned=true&per_page=100', { token: owner.token });
    expect(listed.body.map((p: { id: number }) => p.id)).not.toContain(id);
    const gql = await t.graphql('query($p: ID!) { project(fullPath: $p) { id } }', { p: project.path_with_namespace }, owner.token);
    expect(gql.body.data).toEqual({ project: null });

    await destroyed(id);
    expect(await rowsNaming(id)).toEqual({});
    expect(existsSync(repositoryPath(id))).toBe(false);
    expect(besideRepository(id)).toEqual([]);
    expect(existsSync(join(t.server.app.artifacts.root, String(id)))).toBe(false);
    // What belonged to others stays: the other project and its own settings.
    expect((await t.api('GET', `/projects/${other.id}`, { token: owner.token })).status).toBe(200);
    // The path is free again.
    const again = await t.api('POST', '/projects', { token: owner.token, body: { name: project.name, path: project.path } });
    expect(again.status, again.text).toBe(201);
  });

  it('deletes through gitbeaker and GraphQL', async () => {
    const api = new Gitlab({ host: t.url, token: owner.token });
    const a = await createProject(t, owner.token);
    await api.Projects.remove(a.id);
    expect((await t.api('GET', `/projects/${a.id}`, { token: owner.token })).status).toBe(404);
    const b = await createProject(t, owner.token);
    const res = await t.graphql('mutation($p: ID!) { projectDelete(input: { fullPath: $p }) { message errors } }', { p: b.path_with_namespace }, owner.token);
    expect(res.body.data).toEqual({ projectDelete: { message: '202 Accepted', errors: [] } });
    await destroyed(a.id);
    await destroyed(b.id);
    expect(await rowsNaming(a.id)).toEqual({});
    expect(await rowsNaming(b.id)).toEqual({});
  });

  it('finishes on a retry after a kill in the middle, and a job run twice does no harm', async () => {
    const { project } = await projectWithConfig(t, CONFIG, { token: owner.token });
    const id = project.id;
    // What a worker killed during the disk step leaves: the project marked, its repository renamed but not removed.
    await t.server.database.prisma.project.update({ where: { id }, data: { pendingDelete: true } });
    const half = `${repositoryPath(id)}.0badc0de+deleted`;
    mkdirSync(join(half, 'objects'), { recursive: true });
    await t.server.app.repositories.remove({ id, repositoryStorage: 'default' });
    mkdirSync(join(half, 'objects'), { recursive: true });
    expect(besideRepository(id)).toEqual([half.split('/').pop()]);
    expect(Object.keys(await rowsNaming(id)).length).toBeGreaterThan(0);

    await t.server.app.jobs.enqueue('projects.destroy', { projectId: id }, { uniqueKey: `projects.destroy:${id}` });
    await destroyed(id);
    expect(await rowsNaming(id)).toEqual({});
    expect(besideRepository(id)).toEqual([]);

    await t.server.app.jobs.enqueue('projects.destroy', { projectId: id }, { uniqueKey: `projects.destroy-again:${id}` });
    await eventually(async () => {
      const rows = await t.server.database.prisma.$queryRaw<{ status: string }[]>`SELECT "status" FROM "jobs" WHERE "uniqueKey" = ${`projects.destroy-again:${id}`}`;
      return rows[0]?.status === 'done';
    });
  });

  it('keeps forks of a deleted project, no longer forks', async () => {
    const source = await createProject(t, owner.token, { visibility: 'public' });
    const fork = await t.api('POST', `/projects/${source.id}/fork`, { token: maintainer.token });
    expect(fork.status, fork.text).toBe(201);
    await t.api('DELETE', `/projects/${source.id}`, { token: owner.token });
    // The fork's reader no longer sees its source, even before the job ran.
    expect((await t.api('GET', `/projects/${fork.body.id}`, { token: maintainer.token })).body).not.toHaveProperty('forked_from_project');
    await destroyed(source.id);
    const after = await t.api('GET', `/projects/${fork.body.id}`, { token: maintainer.token });
    expect(after.status).toBe(200);
    expect(after.body).not.toHaveProperty('forked_from_project');
  });
});

describe('DELETE /groups/:id', () => {
  /** Rows of any table whose namespace or group columns name one of the groups. */
  async function rowsNamingGroups(ids: number[]): Promise<Record<string, number>> {
    const db = t.server.database.prisma;
    const columns = await db.$queryRaw<{ table_name: string; column_name: string }[]>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND data_type = 'integer'
        AND (column_name ILIKE '%namespaceid' OR column_name ILIKE '%groupid' OR column_name = 'parentId')`;
    const found: Record<string, number> = {};
    for (const { table_name, column_name } of columns) {
      const [{ count }] = await db.$queryRawUnsafe<{ count: bigint }[]>(`SELECT count(*) AS count FROM "${table_name}" WHERE "${column_name}" = ANY($1::int[])`, ids);
      if (Number(count) > 0) found[`${table_name}.${column_name}`] = Number(count);
    }
    const [{ count }] = await db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM "namespaces" WHERE "id" = ANY(${ids}::int[])`;
    if (Number(count) > 0) found['namespaces.id'] = Number(count);
    return found;
  }

  it('answers 202, hides its projects at once, and removes the group, its subgroups and their projects with their repositories', async () => {
    const groupOwner = await createUser(t);
    const outsider = await createUser(t);
    const group = (await t.api('POST', '/groups', { token: groupOwner.token, body: { name: 'doomed', path: `doomed-${groupOwner.id}` } })).body;
    const sub = (await t.api('POST', '/groups', { token: groupOwner.token, body: { name: 'sub', path: 'sub', parent_id: group.id } })).body;
    const top = await createProject(t, groupOwner.token, { namespaceId: group.id });
    const deep = (await projectWithConfig(t, CONFIG, { token: groupOwner.token })).project;
    expect((await t.api('PUT', `/projects/${deep.id}/transfer`, { token: groupOwner.token, body: { namespace: sub.id } })).status).toBe(200);
    await addMember(t, groupOwner.token, 'groups', sub.id, maintainer.id, 40);
    expect((await t.api('POST', `/groups/${sub.id}/variables`, { token: groupOwner.token, body: { key: 'GROUP_SECRET', value: 'value-1234' } })).status).toBe(201);
    // Another group shares itself with the doomed subgroup: the link goes, the other group stays.
    const other = (await t.api('POST', '/groups', { token: groupOwner.token, body: { name: 'other', path: `other-${groupOwner.id}` } })).body;
    expect((await t.api('POST', `/groups/${other.id}/share`, { token: groupOwner.token, body: { group_id: sub.id, group_access: 30 } })).status).toBe(201);
    expect(existsSync(repositoryPath(deep.id))).toBe(true);

    // A Maintainer of the subgroup sees both groups (the parent through the subgroup) but deletes neither.
    expect(await t.api('DELETE', `/groups/${group.id}`, { token: maintainer.token })).toMatchObject({ status: 403 });
    expect(await t.api('DELETE', `/groups/${sub.id}`, { token: maintainer.token })).toMatchObject({ status: 403 });
    expect(await t.api('DELETE', `/groups/${group.id}`, { token: outsider.token })).toMatchObject({ status: 404 });
    const res = await t.api('DELETE', `/groups/${group.id}`, { token: groupOwner.token });
    expect(res).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    expect((await t.api('GET', `/projects/${top.id}`, { token: groupOwner.token })).status).toBe(404);

    await eventually(async () => (await t.api('GET', `/groups/${group.id}`, { token: groupOwner.token })).status === 404);
    expect((await t.api('GET', `/groups/${sub.id}`, { token: groupOwner.token })).status).toBe(404);
    for (const id of [top.id, deep.id]) {
      expect(await rowsNaming(id)).toEqual({});
      expect(existsSync(repositoryPath(id))).toBe(false);
    }
    expect(await rowsNamingGroups([group.id, sub.id])).toEqual({});
    expect((await t.api('GET', `/groups/${other.id}`, { token: groupOwner.token })).body.shared_with_groups).toEqual([]);
    // The path is free again.
    expect((await t.api('POST', '/groups', { token: groupOwner.token, body: { name: 'doomed', path: group.path } })).status).toBe(201);
  });

  it('deletes through gitbeaker and GraphQL', async () => {
    const gitbeaker = new Gitlab({ host: t.url, token: owner.token });
    const first = (await t.api('POST', '/groups', { token: owner.token, body: { name: 'gb', path: `gb-${owner.id}-${Date.now()}` } })).body;
    await gitbeaker.Groups.remove(first.id);
    await eventually(async () => (await t.api('GET', `/groups/${first.id}`, { token: owner.token })).status === 404);
    const second = (await t.api('POST', '/groups', { token: owner.token, body: { name: 'gq', path: `gq-${owner.id}-${Date.now()}` } })).body;
    const gql = await t.graphql('mutation($p: ID!) { groupDelete(input: { fullPath: $p }) { message errors } }', { p: second.full_path }, owner.token);
    expect(gql.body).toEqual({ data: { groupDelete: { message: '202 Accepted', errors: [] } } });
    await eventually(async () => (await t.api('GET', `/groups/${second.id}`, { token: owner.token })).status === 404);
  });
});
