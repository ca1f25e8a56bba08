/**
 * Push options over smart HTTP, with the real git CLI: receive-pack advertises `push-options`; `-o ci.skip` makes
 * the push's pipeline a skipped one (GitLab's Chain::Skip); each `-o ci.variable="KEY=value"` becomes a pipeline
 * variable that reaches the job; unknown options are ignored.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../support/factories.js';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { createRunner, jobsOf, pushPipeline, requestJob } from '../runners/support.js';
import { parsePushOptions, pushOptionVariables } from '../../src/git/push-options.js';

const t = suiteServer();
const git = gitSandbox();

const CONFIG = 'build:\n  script: echo "$FOO"\n';

describe('git push -o', () => {
  let project: any;
  let work: string;
  let n = 0;

  /** A new commit in the clone; its sha. */
  async function commit(): Promise<string> {
    n += 1;
    writeFileSync(join(work, `file-${n}.txt`), `${n}\n`);
    await git.ok(work, ['add', '.']);
    await git.ok(work, ['commit', '--quiet', '-m', `Change ${n}`]);
    return (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
  }

  beforeAll(async () => {
    project = await createProject(t, t.rootToken);
    work = git.folder();
    await git.ok(git.root, ['clone', '--quiet', cloneUrl(t.url, project.path_with_namespace, t.rootToken), work]);
    writeFileSync(join(work, '.gitlab-ci.yml'), CONFIG);
  });

  it('is advertised by receive-pack', async () => {
    const res = await fetch(`${t.url}/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${t.rootToken}`).toString('base64')}` },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('push-options');
  });

  it('skips the pipeline with ci.skip: the pipeline exists, skipped, without jobs', async () => {
    const sha = await commit();
    const pushed = await git.run(work, ['push', '-o', 'ci.skip', 'origin', 'HEAD:main']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).not.toContain('does not support push options');
    const pipeline = await pushPipeline(t, project.id, sha);
    expect(pipeline).toMatchObject({ status: 'skipped', sha, ref: 'main' });
    expect(await jobsOf(t, project.id, pipeline.id)).toEqual([]);
    // The next push without options runs as usual.
    const next = await commit();
    await git.ok(work, ['push', '--quiet', 'origin', 'HEAD:main']);
    expect((await pushPipeline(t, project.id, next)).status).not.toBe('skipped');
  });

  it('passes ci.variable definitions to the pipeline and its jobs, ignoring malformed and unknown options', async () => {
    const runner = await createRunner(t, { project_id: project.id });
    // Drain the jobs of the earlier pushes.
    for (const p of (await t.api('GET', `/projects/${project.id}/pipelines`)).body) await t.api('POST', `/projects/${project.id}/pipelines/${p.id}/cancel`);
    const sha = await commit();
    const options = ['ci.variable=FOO=bar', 'ci.variable=EQUALS=a=b', 'ci.variable=EMPTY=', 'ci.variable==nokey', 'ci.variable=NOVALUE', 'unknown.option=1', 'ci.unknown', 'nonsense', 'mr.title=x'];
    const pushed = await git.run(work, ['push', ...options.flatMap((o) => ['-o', o]), 'origin', 'HEAD:feature']);
    expect(pushed.code, pushed.stderr).toBe(0);
    const pipeline = await pushPipeline(t, project.id, sha);
    expect(pipeline).toMatchObject({ status: 'pending', ref: 'feature' });
    const variables = await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/variables`);
    expect(variables.body).toEqual([
      { variable_type: 'env_var', key: 'FOO', value: 'bar' },
      { variable_type: 'env_var', key: 'EQUALS', value: 'a=b' },
      { variable_type: 'env_var', key: 'EMPTY', value: '' },
    ]);
    const job = await requestJob(t, runner.token);
    expect(job.job_info.project_id).toBe(project.id);
    expect(job.git_info.sha).toBe(sha);
    expect(job.variables).toContainEqual({ key: 'FOO', value: 'bar', public: false, masked: false });
  });
});

describe('parsePushOptions (Gitlab::PushOptions)', () => {
  it('keeps the known namespaces and keys, values or true, several values for multi-value keys', () => {
    expect(parsePushOptions(['ci.skip', 'ci.variable=A=1', 'ci.variable=B=2', 'ci.variable=A=1', 'mr.create', 'merge_request.target=main', 'foo.bar', 'ci', 'ci.input=x=1'])).toEqual({
      ci: { skip: true, variable: ['A=1', 'B=2'], input: ['x=1'] },
      merge_request: { create: true, target: 'main' },
    });
    expect(parsePushOptions(['nothing', 'x.y=z'])).toBeNull();
    expect(pushOptionVariables(parsePushOptions(['ci.variable=K=1', 'ci.variable=K=2']))).toEqual([{ key: 'K', value: '2', variableType: 'env_var' }]);
  });
});
