/** The package tests' shared fixtures: what the store holds on disk, and a CI job whose token publishes. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { commit, createRunner, pushPipeline, requestJob } from '../runners/support.js';
import { createProject } from '../support/factories.js';
import type { TestServer } from '../support/server.js';

/** The SHA-256 names of the package store's files (content-addressed), the partial ones aside. */
export async function filesOnDisk(t: TestServer): Promise<string[]> {
  const root = t.server.app.packages.root;
  const out: string[] = [];
  for (const a of await readdir(root)) {
    if (a === 'tmp') continue;
    for (const b of await readdir(join(root, a))) out.push(...(await readdir(join(root, a, b))));
  }
  return out;
}

/** A private project with a push pipeline whose job a runner took: the job's token acts for it. */
export async function runningJob(t: TestServer) {
  const project: { id: number } = await createProject(t, t.rootToken, { visibility: 'private' });
  const sha = await commit(t, project.id, { '.gitlab-ci.yml': 'build:\n  script: echo build\n' });
  const pipeline = await pushPipeline(t, project.id, sha);
  const runner = await createRunner(t, { project_id: project.id });
  const job: { id: number; token: string } = await requestJob(t, runner.token);
  return { project, pipeline, job };
}
