/**
 * A realistic `.gitlab-ci.yml` pushed with the git CLI and run by the built-in shell runner (two jobs at once), as a
 * team would write it for gitlab.com: a cache, a dotenv report handing a version on, coverage, an environment whose
 * deploy job holds a resource group and whose `on_stop` job stops it, a release on tags, and interruptible jobs that a
 * newer push cancels. Each is asserted as the API shows it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gitlab } from '@gitbeaker/rest';
import { describe, expect, it } from 'vitest';
import { cloneUrl, gitSandbox } from '../support/git.js';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';
import { eventually, jobLog, jobsOf, settledJobs, withShellRunner } from './support.js';

const t = suiteServer({ ciLongPollingMs: 2000 });
withShellRunner(t);
const git = gitSandbox();

const CONFIG = `
stages: [build, test, deploy, release]

default:
  interruptible: true

build:
  stage: build
  cache:
    key: deps-$CI_COMMIT_REF_SLUG
    paths: [.cache/]
  script:
    - mkdir -p .cache
    - if [ -f .cache/from ]; then echo "cache from pipeline $(cat .cache/from)"; else echo "cache empty"; fi
    - echo "$CI_PIPELINE_ID" > .cache/from
    - echo "VERSION=1.2.$CI_PIPELINE_IID" > build.env
    - echo "Coverage 87.5%"
  coverage: '/Coverage \\d+\\.\\d+%/'
  artifacts:
    reports:
      dotenv: build.env

test:
  stage: test
  needs: [build]
  script:
    - echo "testing version $VERSION"
    - if [ -n "$SLOW" ]; then sleep 60; fi

deploy:
  stage: deploy
  interruptible: false
  resource_group: production
  rules:
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
  environment:
    name: production
    url: https://example.com/$CI_COMMIT_SHORT_SHA
    on_stop: stop
  script:
    - echo "deploying $VERSION to $CI_ENVIRONMENT_NAME at $CI_ENVIRONMENT_URL"

stop:
  stage: deploy
  interruptible: false
  rules:
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
      when: manual
  environment:
    name: production
    action: stop
  script:
    - echo "stopping $CI_ENVIRONMENT_NAME"

release:
  stage: release
  rules:
    - if: $CI_COMMIT_TAG
  script:
    - echo "releasing $CI_COMMIT_TAG"
  release:
    tag_name: $CI_COMMIT_TAG
    name: Release $CI_COMMIT_TAG
    description: Version $CI_COMMIT_TAG
`;

type Job = Awaited<ReturnType<typeof jobsOf>>[number];

/** The pipeline of a pushed sha on a ref, once it exists. */
function pipelineOf(projectId: number, sha: string, ref: string): Promise<{ id: number; iid: number; status: string }> {
  return eventually(async () => {
    const list = await t.api('GET', `/projects/${projectId}/pipelines?sha=${sha}&ref=${encodeURIComponent(ref)}`);
    return list.body[0] ?? false;
  }, 30_000);
}

const settled = (projectId: number, pipelineId: number) => settledJobs(t, projectId, pipelineId, 90_000);

const byName = (jobs: Job[], name: string) => jobs.find((j) => j.name === name)!;
const log = (projectId: number, jobId: number) => jobLog(t, projectId, jobId);

describe('a realistic .gitlab-ci.yml on the built-in runner', () => {
  it('caches, hands a dotenv version on, reports coverage, deploys to an environment and stops it, releases a tag, and cancels an interrupted pipeline', async () => {
    const project = await createProject(t, t.rootToken);
    const work = git.folder();
    const remote = cloneUrl(t.url, project.path_with_namespace, t.rootToken);
    await git.ok(work, ['init', '-q', '-b', 'main']);
    writeFileSync(join(work, '.gitlab-ci.yml'), CONFIG);
    writeFileSync(join(work, 'app.txt'), 'one\n');
    await git.ok(work, ['add', '.']);
    await git.ok(work, ['commit', '-qm', 'First']);
    await git.ok(work, ['push', '-q', remote, 'main']);
    const first = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();

    // The first pipeline: an empty cache, the version from build's dotenv in test, coverage, a deployment.
    const one = await pipelineOf(project.id, first, 'main');
    let jobs = await settled(project.id, one.id);
    expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]))).toEqual({ build: 'success', test: 'success', deploy: 'success', stop: 'manual' });
    expect(await log(project.id, byName(jobs, 'build').id)).toContain('cache empty');
    expect(await log(project.id, byName(jobs, 'test').id)).toContain(`testing version 1.2.${one.iid}`);
    expect(byName(jobs, 'build').coverage).toBe(87.5);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${one.id}`)).body.coverage).toBe('87.50');
    const deployLog = await log(project.id, byName(jobs, 'deploy').id);
    expect(deployLog).toContain(`deploying 1.2.${one.iid} to production at https://example.com/${first.slice(0, 8)}`);
    const environments = await t.api('GET', `/projects/${project.id}/environments?name=production`);
    expect(environments.body).toHaveLength(1);
    const environment = environments.body[0];
    expect(environment).toMatchObject({ name: 'production', state: 'available', external_url: `https://example.com/${first.slice(0, 8)}` });
    const deployments = await t.api('GET', `/projects/${project.id}/deployments?environment=production`);
    expect(deployments.body.map((d: { status: string; sha: string; deployable: { name: string } }) => [d.status, d.sha, d.deployable.name])).toEqual([['success', first, 'deploy']]);
    const groups = await t.api('GET', `/projects/${project.id}/resource_groups/production`);
    expect(groups.status).toBe(200);

    // A second push: build restores the first pipeline's cache.
    writeFileSync(join(work, 'app.txt'), 'two\n');
    await git.ok(work, ['commit', '-qam', 'Second']);
    await git.ok(work, ['push', '-q', remote, 'main']);
    const second = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    const two = await pipelineOf(project.id, second, 'main');
    jobs = await settled(project.id, two.id);
    expect(await log(project.id, byName(jobs, 'build').id)).toContain(`cache from pipeline ${one.id}`);
    expect(await log(project.id, byName(jobs, 'test').id)).toContain(`testing version 1.2.${two.iid}`);

    // Its on_stop job stops the environment.
    const stop = byName(jobs, 'stop');
    expect((await t.api('POST', `/projects/${project.id}/jobs/${stop.id}/play`)).status).toBe(200);
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/environments/${environment.id}`)).body.state === 'stopped', 60_000);
    expect(await log(project.id, stop.id)).toContain('stopping production');

    // A tag: its pipeline releases it, through the API with the job's token.
    await git.ok(work, ['tag', 'v1.0.0']);
    await git.ok(work, ['push', '-q', remote, 'v1.0.0']);
    const tagged = await pipelineOf(project.id, second, 'v1.0.0');
    jobs = await settled(project.id, tagged.id);
    expect(byName(jobs, 'release').status).toBe('success');
    expect(jobs.map((j) => j.name).sort()).toEqual(['build', 'release', 'test']);
    const api = new Gitlab({ host: t.url, token: t.rootToken });
    const release = await api.ProjectReleases.show(project.id, 'v1.0.0');
    expect(release).toMatchObject({ tag_name: 'v1.0.0', name: 'Release v1.0.0', description: 'Version v1.0.0' });

    // Interruptible jobs: a newer push cancels the older pipeline while its test job runs (auto-cancel, on by default).
    await t.api('POST', `/projects/${project.id}/variables`, { token: t.rootToken, body: { key: 'SLOW', value: '1' } });
    writeFileSync(join(work, 'app.txt'), 'three\n');
    await git.ok(work, ['commit', '-qam', 'Third']);
    await git.ok(work, ['push', '-q', remote, 'main']);
    const third = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    const three = await pipelineOf(project.id, third, 'main');
    await eventually(async () => byName(await jobsOf(t, project.id, three.id), 'test').status === 'running', 60_000);
    await t.api('DELETE', `/projects/${project.id}/variables/SLOW`, { token: t.rootToken });
    writeFileSync(join(work, 'app.txt'), 'four\n');
    await git.ok(work, ['commit', '-qam', 'Fourth']);
    await git.ok(work, ['push', '-q', remote, 'main']);
    const fourth = (await git.ok(work, ['rev-parse', 'HEAD'])).trim();
    const four = await pipelineOf(project.id, fourth, 'main');
    jobs = await settled(project.id, three.id);
    expect((await t.api('GET', `/projects/${project.id}/pipelines/${three.id}`)).body.status).toBe('canceled');
    expect(byName(jobs, 'test').status).toBe('canceled');
    jobs = await settled(project.id, four.id);
    expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]))).toEqual({ build: 'success', test: 'success', deploy: 'success', stop: 'manual' });
    // The environment is available again with the newest deployment.
    expect((await t.api('GET', `/projects/${project.id}/environments/${environment.id}`)).body.state).toBe('available');
  }, 240_000);
});
