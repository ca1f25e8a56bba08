/** What the CI job token tests share: a project with a pipeline, and a job made running with a token of its own. */
import { expect } from 'vitest';
import { digestToken } from '../../src/auth/secrets.js';
import type { TestServer } from '../support/server.js';
import { createProject } from '../support/factories.js';

/** A project (in the namespace when given) whose commit holds a CI configuration, a pipeline for it, and its first job. */
export async function projectWithPipeline(t: TestServer, token: string, namespaceId?: number) {
  const project = await createProject(t, token, { namespaceId });
  const commit = await t.api('POST', `/projects/${project.id}/repository/commits`, {
    token,
    body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: echo\n' }] },
  });
  expect(commit.status).toBe(201);
  const pipeline = await t.api('POST', `/projects/${project.id}/pipeline`, { token, body: { ref: 'main' } });
  expect(pipeline.status).toBe(201);
  const [job] = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.body.id}/jobs`, { token })).body;
  return { project, pipeline: pipeline.body, job };
}

/** What a runner's request for the job would do to it: running, with a job token (the runner protocol's own module sets this). */
export async function running(t: TestServer, jobId: number): Promise<string> {
  const token = `glcbt-test-${jobId}-${Math.random().toString(36).slice(2)}`;
  await t.server.database.prisma.ciJob.update({ where: { id: jobId }, data: { status: 'running', startedAt: new Date(), tokenDigest: digestToken(token) } });
  return token;
}
