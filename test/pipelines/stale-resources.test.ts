/**
 * Stale resource group locks (GitLab's Ci::ResourceGroup#stale_processables with
 * AssignResourceFromResourceGroupService): a resource still held by a job that completed without giving it back (the
 * release missed, as when GitLab's `doom!` skips the state machine) is taken back once the job has been complete for
 * five minutes, when the group is next looked at; while the resource is held and jobs wait, the group is looked at
 * again every minute. Driven through the runner protocol by a project runner.
 */
import { describe, expect, it } from 'vitest';
import { commit, createRunner, eventually, jobsOf, pushPipeline, requestJob } from '../runners/support.js';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ ciLongPollingMs: 0 });

const CONFIG = (marker: string) => `
deploy:
  resource_group: production
  script: echo ${marker}
`;

describe('stale resource group locks', () => {
  it('are released once their job has been complete for five minutes, and the next job gets the resource', async () => {
    const project = await createProject(t, t.rootToken);
    const runner = await createRunner(t, { project_id: project.id });
    const first = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': CONFIG('one') }));
    const holder = await requestJob(t, runner.token);
    const second = await pushPipeline(t, project.id, await commit(t, project.id, { '.gitlab-ci.yml': CONFIG('two') }));
    const waiting = await eventually(async () => {
      const job = (await jobsOf(t, project.id, second.id))[0];
      return job.status === 'waiting_for_resource' && job;
    });
    const prisma = t.server.database.prisma;
    // The holder ends without going through the pipeline's processing: its resource is not given back.
    await prisma.$executeRaw`UPDATE "ci_builds" SET "status" = 'failed', "failureReason" = 'data_integrity_failure', "updatedAt" = now() WHERE "id" = ${holder.id}`;
    const current = () => t.api('GET', `/projects/${project.id}/resource_groups/production/current_job`);
    expect((await current()).body).toMatchObject({ id: holder.id, status: 'failed', pipeline: { id: first.id } });

    // Looked at now (a change of process mode asks for it), the lock is not stale yet: the group is looked at again
    // in a minute, and the waiting job still waits.
    const respawns = () => prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "jobs" WHERE "kind" = 'pipelines.assign_resource' AND "status" = 'queued' AND "runAt" > now()`;
    expect((await t.api('PUT', `/projects/${project.id}/resource_groups/production`, { body: { process_mode: 'oldest_first' } })).status).toBe(200);
    await eventually(async () => Number((await respawns())[0].n) === 1);
    expect((await jobsOf(t, project.id, second.id))[0].status).toBe('waiting_for_resource');
    expect((await current()).body).toMatchObject({ id: holder.id });

    // Complete for more than five minutes: the next look frees the resource and hands it to the waiting job.
    await prisma.$executeRaw`UPDATE "ci_builds" SET "updatedAt" = now() - interval '6 minutes' WHERE "id" = ${holder.id}`;
    expect((await t.api('PUT', `/projects/${project.id}/resource_groups/production`, { body: { process_mode: 'unordered' } })).status).toBe(200);
    const next = await requestJob(t, runner.token);
    expect(next.id).toBe(waiting.id);
    expect((await current()).body).toMatchObject({ id: waiting.id, status: 'running', pipeline: { id: second.id } });
  });
});
