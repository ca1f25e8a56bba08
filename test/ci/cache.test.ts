/**
 * `cache:` end to end: validation with GitLab's messages, the payload's `cache` array through the raw runner
 * protocol, and the built-in shell runner's local cache (a cache written by one job restored in the next stage and
 * the next pipeline; `policy: pull` uploads nothing; `key:files` follows the files' last commit), and two jobs
 * overlapping with a concurrency of 2.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShellRunner } from '../../src/runner/runner.js';
import { suiteServer } from '../support/server.js';
import { commit, createRunner, jobLog, projectWithConfig, pushPipeline, requestJob, settledJobs } from '../runners/support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
let runner: ShellRunner;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cache-test-'));
  const { token } = await createRunner(t, { runner_type: 'instance_type', description: 'built-in shell' });
  runner = new ShellRunner({ url: t.url, token, cloneUrl: t.url, concurrency: 2, buildsDir: dir, checkIntervalMs: 100, updateIntervalMs: 200 });
  runner.start();
});
afterAll(async () => {
  await runner?.stop();
  await rm(dir, { recursive: true, force: true });
});

const settled = (projectId: number, pipelineId: number) => settledJobs(t, projectId, pipelineId);
const log = (projectId: number, jobId: number) => jobLog(t, projectId, jobId);
const byName = <T extends { name: string }>(jobs: T[], name: string) => jobs.find((j) => j.name === name) as T;

const lint = async (projectId: number, content: string) => (await t.api('POST', `/projects/${projectId}/ci/lint`, { body: { content } })).body;

describe('cache:', () => {
  it('is validated with GitLab messages', async () => {
    const { project } = await projectWithConfig(t, 'job:\n  script: echo\n');
    const bad = async (cache: string) => (await lint(project.id, `job:\n  script: echo\n  cache:\n${cache}`)).errors;
    expect(await bad('    paths: vendor\n')).toEqual(['jobs:job:cache:paths config should be an array of strings']);
    expect(await bad('    key:\n      files: [a, b, c]\n')).toEqual(['jobs:job:cache:key:files config has too many items (maximum is 2)']);
    expect(await bad('    policy: sometimes\n')).toEqual(['jobs:job:cache policy should be pull-push, push, or pull']);
    expect(await bad('    when: never\n')).toEqual(['jobs:job:cache when should be on_success, on_failure or always']);
    expect(await bad('    - key: a\n    - key: b\n    - key: c\n    - key: d\n    - key: e\n')).toEqual(['jobs:job:cache no more than 4 caches can be created']);
    expect((await lint(project.id, 'job:\n  script: echo\n  cache:\n    - key: a\n      paths: [x]\n    - paths: [y]\n')).valid).toBe(true);
  });

  it('goes to runners as GitLab sends it', async () => {
    const { token } = await createRunner(t, { runner_type: 'instance_type', tag_list: ['raw-cache'], run_untagged: false });
    const { project, sha } = await projectWithConfig(
      t,
      `job:\n  tags: [raw-cache]\n  script: echo\n  cache:\n    - key: deps\n      paths: [vendor/]\n      policy: pull\n      fallback_keys: [old]\n    - key:\n        files: [lock.txt]\n        prefix: p\n      untracked: true\n      when: always\n      unprotect: true\n    - paths: [x]\n`,
      { files: { 'lock.txt': 'v1' } },
    );
    const job = await requestJob(t, token);
    const keyOfFiles = (await import('node:crypto')).createHash('sha1').update(sha).digest('hex');
    // main is protected: keys carry `-protected` unless `unprotect`.
    expect(job.cache).toEqual([
      { key: 'deps-protected', untracked: false, paths: ['vendor/'], policy: 'pull', when: 'on_success', fallback_keys: ['old-protected'] },
      { key: `p-${keyOfFiles}-non_protected`, untracked: true, paths: [], policy: 'pull-push', when: 'always', fallback_keys: [] },
      { key: 'default-protected', untracked: false, paths: ['x'], policy: 'pull-push', when: 'on_success', fallback_keys: [] },
    ]);
    expect(project.id).toBeGreaterThan(0);
  });

  it('is written by one job and restored in the next stage and pipeline; pull does not upload', async () => {
    const config = `stages: [a, b]
write:
  stage: a
  script:
    - mkdir -p .cache && echo "cached $CI_PIPELINE_ID" >> .cache/x
  cache:
    key:
      files: [lock.txt]
    paths: [.cache/]
read:
  stage: b
  script:
    - cat .cache/x
    - echo extra > .cache/y
  cache:
    key:
      files: [lock.txt]
    paths: [.cache/]
    policy: pull
`;
    const { project, pipeline } = await projectWithConfig(t, config, { files: { 'lock.txt': 'v1' } });
    const jobs = await settled(project.id, pipeline.id);
    expect(jobs.map((j) => [j.name, j.status])).toEqual(expect.arrayContaining([['write', 'success'], ['read', 'success']]));
    const writeLog = await log(project.id, byName(jobs, 'write').id);
    expect(writeLog).toContain('Checking cache for ');
    expect(writeLog).toContain('Creating cache ');
    expect(writeLog).toContain('Created cache');
    const readLog = await log(project.id, byName(jobs, 'read').id);
    expect(readLog).toContain('Successfully extracted cache');
    expect(readLog).toContain(`cached ${pipeline.id}`);
    expect(readLog).toMatch(/Not uploading cache \S+ due to policy/);

    // The next pipeline (same lock file: same key) finds the cache, and appends to it.
    const sha2 = await commit(t, project.id, { 'other.txt': 'x' });
    const second = await pushPipeline(t, project.id, sha2);
    const jobs2 = await settled(project.id, second.id);
    const read2 = await log(project.id, byName(jobs2, 'read').id);
    expect(read2).toContain(`cached ${pipeline.id}\ncached ${second.id}`);

    // A changed lock file: a new key, an empty cache.
    const sha3 = await commit(t, project.id, { 'lock.txt': 'v2' });
    const third = await pushPipeline(t, project.id, sha3);
    const jobs3 = await settled(project.id, third.id);
    const write3 = await log(project.id, byName(jobs3, 'write').id);
    expect(write3).toContain('WARNING: file does not exist');
    expect(await log(project.id, byName(jobs3, 'read').id)).not.toContain(`cached ${pipeline.id}`);
  });

  it('expands variables in policy and key, and falls back to CACHE_FALLBACK_KEY unless it ends in -protected', async () => {
    const config = `stages: [a, b]
variables:
  POLICY: pull
  NAME: base
write:
  stage: a
  script:
    - mkdir -p .c && echo "from write" > .c/x
  cache:
    key: $NAME
    unprotect: true
    paths: [.c/]
read:
  stage: b
  variables:
    CACHE_FALLBACK_KEY: base-non_protected
  script:
    - cat .c/x
  cache:
    key: missing
    unprotect: true
    paths: [.c/]
    policy: $POLICY
guarded:
  stage: b
  variables:
    CACHE_FALLBACK_KEY: base-protected
  script:
    - test ! -e .c/x
  cache:
    key: missing2
    paths: [.c/]
    policy: pull
`;
    const { project, pipeline } = await projectWithConfig(t, config);
    const jobs = await settled(project.id, pipeline.id);
    expect(jobs.map((j) => [j.name, j.status]).sort()).toEqual([['guarded', 'success'], ['read', 'success'], ['write', 'success']]);
    expect(await log(project.id, byName(jobs, 'write').id)).toContain('Creating cache base-non_protected...');
    const readLog = await log(project.id, byName(jobs, 'read').id);
    expect(readLog).toContain('Checking cache for missing-non_protected...');
    expect(readLog).toContain('Checking cache for base-non_protected...');
    expect(readLog).toContain('from write');
    expect(readLog).toContain('Not uploading cache missing-non_protected due to policy');
    const guardedLog = await log(project.id, byName(jobs, 'guarded').id);
    expect(guardedLog).toContain('CACHE_FALLBACK_KEY "base-protected" not allowed to end in "-protected"');
    expect(guardedLog).not.toContain('Checking cache for base-protected');
  });

  it('runs two jobs at once with a concurrency of 2', async () => {
    // Each job waits (briefly) for the other to have started: they can only both pass when they overlap.
    const marker = join(dir, `overlap-${process.pid}-${Date.now()}`);
    const job = (me: string, other: string) => `${me}:
  script:
    - touch ${marker}-${me}
    - for i in $(seq 1 100); do [ -e ${marker}-${other} ] && break; sleep 0.1; done
    - test -e ${marker}-${other}
`;
    const config = job('one', 'two') + job('two', 'one');
    const { project, pipeline } = await projectWithConfig(t, config);
    const jobs = await settled(project.id, pipeline.id);
    expect(jobs.map((j) => j.status)).toEqual(['success', 'success']);
  });
});
