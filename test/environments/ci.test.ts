/**
 * Environments made by CI: a `.gitlab-ci.yml` with `environment:` run by the built-in shell runner. The deploy job
 * creates the environment (name and url expanded) and a deployment that follows the job; its payload carries the
 * CI_ENVIRONMENT_* variables; stopping the environment plays the `on_stop` job, whose success stops it;
 * `auto_stop_in` sets `auto_stop_at` and the recurring job stops it when due; Deployment Hook events reach project
 * hooks; the engine refuses a bad `environment:` in GitLab's words.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentSlug } from '../../src/modules/environments/rules.js';
import { commit, eventually, jobsOf, projectWithConfig, pushPipeline, withShellRunner } from '../runners/support.js';
import { createProject } from '../support/factories.js';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ ciLongPollingMs: 2000, allowLocalRequestsFromWebHooks: true });
withShellRunner(t);

const SETTLED = ['success', 'failed', 'canceled', 'skipped', 'manual'];

async function settled(projectId: number, pipelineId: number) {
  return eventually(async () => {
    const jobs = await jobsOf(t, projectId, pipelineId);
    return jobs.every((j) => SETTLED.includes(j.status)) && jobs;
  }, 60_000);
}

const byName = <T extends { name: string }>(jobs: T[], name: string) => jobs.find((j) => j.name === name) as T;

/** A local HTTP endpoint recording what project hooks send it. */
const received: { event: string | undefined; body: any }[] = [];
const receiver = createServer((req: IncomingMessage, res) => {
  let text = '';
  req.on('data', (chunk) => (text += chunk));
  req.on('end', () => {
    received.push({ event: req.headers['x-gitlab-event'] as string | undefined, body: JSON.parse(text || 'null') });
    res.end('ok');
  });
});
const listening = new Promise<number>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve((receiver.address() as AddressInfo).port)));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const CONFIG = `
stages: [deploy]
deploy:
  stage: deploy
  variables:
    APP: shop
  script:
    - echo "env=$CI_ENVIRONMENT_NAME slug=$CI_ENVIRONMENT_SLUG url=$CI_ENVIRONMENT_URL action=$CI_ENVIRONMENT_ACTION tier=$CI_ENVIRONMENT_TIER"
  environment:
    name: review/$APP-$CI_COMMIT_REF_SLUG
    url: https://$CI_ENVIRONMENT_SLUG.example.com
    on_stop: stop
    auto_stop_in: 1 week
stop:
  stage: deploy
  when: manual
  script: echo "stopping $CI_ENVIRONMENT_NAME"
  environment:
    name: review/$APP-$CI_COMMIT_REF_SLUG
    action: stop
  variables:
    APP: shop
`;

describe('environments from CI', () => {
  it('deploys, follows the job, shows the variables, and stops through on_stop', async () => {
    const project = await createProject(t, t.rootToken);
    const port = await listening;
    const hook = await t.api('POST', `/projects/${project.id}/hooks`, { body: { url: `http://127.0.0.1:${port}/hook`, deployment_events: true, push_events: false } });
    expect(hook.status, hook.text).toBe(201);
    const sha = await commit(t, project.id, { '.gitlab-ci.yml': CONFIG });
    const pipeline = await pushPipeline(t, project.id, sha);

    const jobs = await settled(project.id, pipeline.id);
    expect(Object.fromEntries(jobs.map((j) => [j.name, j.status]))).toEqual({ deploy: 'success', stop: 'manual' });
    const name = 'review/shop-main';
    const slug = environmentSlug(name);
    const envs = (await t.api('GET', `/projects/${project.id}/environments`)).body;
    expect(envs).toHaveLength(1);
    const env = envs[0];
    expect(env).toMatchObject({ name, slug, external_url: `https://${slug}.example.com`, state: 'available', tier: 'development' });
    const stopAt = new Date(env.auto_stop_at).getTime();
    expect(Math.abs(stopAt - (Date.now() + 7 * 24 * 3600 * 1000))).toBeLessThan(120_000);

    const deploy = byName(jobs, 'deploy');
    const log = (await t.api('GET', `/projects/${project.id}/jobs/${deploy.id}/trace`)).text;
    expect(log).toContain(`env=${name} slug=${slug} url=https://${slug}.example.com action=start tier=development`);

    const deployments = (await t.api('GET', `/projects/${project.id}/deployments`)).body;
    expect(deployments).toHaveLength(1);
    expect(deployments[0]).toMatchObject({ iid: 1, ref: 'main', sha, status: 'success', environment: { id: env.id, name }, deployable: { id: deploy.id, name: 'deploy', status: 'success' } });
    const one = await t.api('GET', `/projects/${project.id}/environments/${env.id}`);
    expect(one.body.last_deployment).toMatchObject({ id: deployments[0].id, status: 'success' });

    // Deployment Hook events for running and success, with GitLab's payload.
    const events = await eventually(() => {
      const mine = received.filter((r) => r.event === 'Deployment Hook' && r.body.project.id === project.id);
      return mine.length >= 2 && mine;
    });
    expect(events.map((e) => e.body.status).sort()).toEqual(['running', 'success']);
    expect(events.find((e) => e.body.status === 'success')!.body).toMatchObject({
      object_kind: 'deployment',
      deployment_id: deployments[0].id,
      deployable_id: deploy.id,
      environment: name,
      environment_slug: slug,
      environment_tier: 'development',
      environment_external_url: `https://${slug}.example.com`,
      short_sha: sha.slice(0, 8),
      ref: 'main',
      commit_title: 'CI',
      user: { username: 'root' },
    });

    // Stopping plays the on_stop job; the environment is stopping until it succeeds.
    const stopping = await t.api('POST', `/projects/${project.id}/environments/${env.id}/stop`);
    expect(stopping.status).toBe(200);
    expect(stopping.body.state).toBe('stopping');
    expect(stopping.body.auto_stop_at).toBeNull();
    const after = await settled(project.id, pipeline.id);
    expect(byName(after, 'stop').status).toBe('success');
    expect((await t.api('GET', `/projects/${project.id}/jobs/${byName(after, 'stop').id}/trace`)).text).toContain(`stopping ${name}`);
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/environments/${env.id}`)).body.state === 'stopped');
    expect((await t.api('DELETE', `/projects/${project.id}/environments/${env.id}`)).status).toBe(204);
  }, 180_000);

  it('stops an environment whose auto_stop_in passed', async () => {
    const config = `
deploy:
  script: echo deploy
  environment:
    name: production
    deployment_tier: staging
    auto_stop_in: 1 minute
`;
    const { project, pipeline } = await projectWithConfig(t, config);
    const jobs = await settled(project.id, pipeline.id);
    expect(jobs[0].status).toBe('success');
    const [env] = (await t.api('GET', `/projects/${project.id}/environments`)).body;
    expect(env).toMatchObject({ name: 'production', tier: 'staging', state: 'available', external_url: null });
    expect(env.auto_stop_at).not.toBeNull();
    // The time passes; the recurring job is made due and woken.
    await t.server.database.prisma.environment.update({ where: { id: env.id }, data: { autoStopAt: new Date(Date.now() - 1000) } });
    await t.server.database.prisma.$executeRaw`UPDATE "jobs" SET "runAt" = now() WHERE "uniqueKey" = 'recurring:environments.auto_stop' AND "status" = 'queued'`;
    t.server.app.jobs.wake();
    await eventually(async () => (await t.api('GET', `/projects/${project.id}/environments/${env.id}`)).body.state === 'stopped');
  }, 180_000);

  it('fails a job whose deployment fails, and retries deploy again', async () => {
    const { project, pipeline } = await projectWithConfig(t, 'deploy:\n  script: exit 3\n  environment: staging\n');
    const [job] = await settled(project.id, pipeline.id);
    expect(job.status).toBe('failed');
    const [deployment] = (await t.api('GET', `/projects/${project.id}/deployments`)).body;
    expect(deployment).toMatchObject({ iid: 1, status: 'failed', environment: { name: 'staging' } });
    const retried = await t.api('POST', `/projects/${project.id}/jobs/${job.id}/retry`);
    expect(retried.status).toBe(201);
    await eventually(async () => {
      const list = (await t.api('GET', `/projects/${project.id}/deployments`)).body;
      return list.length === 2 && list[1].status === 'failed' && list;
    }, 60_000);
  }, 180_000);

  it('refuses a bad environment in GitLab words', async () => {
    const project = await createProject(t, t.rootToken);
    const lint = async (content: string) => (await t.api('POST', `/projects/${project.id}/ci/lint`, { body: { content } })).body;
    expect((await lint('deploy:\n  script: x\n  environment:\n    name: prod\n    action: go\n')).errors).toEqual(['jobs:deploy:environment action should be start, stop, prepare, verify, or access']);
    expect((await lint('deploy:\n  script: x\n  environment:\n    name: prod\n    on_stop: halt\n')).errors).toEqual(['deploy job: on_stop job halt is not defined']);
  });
});
