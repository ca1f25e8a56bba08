/**
 * GitLab's Error Tracking settings API (lib/api/error_tracking/project_settings.rb) over raw HTTP and @gitbeaker/rest:
 * the entity, PUT creating and PATCH changing the setting, GitLab's 404 without one, Maintainers only (developers
 * 403, strangers and anonymous callers 404 on private projects), bad input 400, and the collector refusing events
 * until integrated error tracking is active, and again once it is turned off.
 */
import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { addMember, createProject, createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();

let maintainer: TestUser;
let developer: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  [maintainer, developer, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t)]);
});

const path = (id: number) => `/projects/${id}/error_tracking/settings`;

async function collect(projectId: number, key: string) {
  const res = await fetch(`${t.url}/api/v4/error_tracking/collector/api/${projectId}/store/?sentry_key=${key}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ event_id: 'fc6d8c0c43fc4630ad850ee518f1b9d0', platform: 'node', level: 'error', message: 'boom' }),
  });
  return { status: res.status, body: await res.json() };
}

describe('error tracking settings', () => {
  it('answers 404 without a setting; PUT creates it, PATCH changes it, GET shows GitLab entity', async () => {
    const project = await createProject(t, maintainer.token);
    const token = maintainer.token;
    expect(await t.api('GET', path(project.id), { token })).toMatchObject({ status: 404, body: { message: '404 Error Tracking Setting Not Found' } });
    expect(await t.api('PATCH', path(project.id), { token, body: { active: true } })).toMatchObject({ status: 404, body: { message: '404 Error Tracking Setting Not Found' } });

    const put = await t.api('PUT', path(project.id), { token, body: { active: true, integrated: true } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ active: true, project_name: null, sentry_external_url: null, api_url: null, integrated: true });
    expect((await t.api('GET', path(project.id), { token })).body).toEqual(put.body);

    // PATCH leaves `integrated` alone when it is omitted.
    const patched = await t.api('PATCH', path(project.id), { token, body: { active: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ active: false, project_name: null, sentry_external_url: null, api_url: null, integrated: true });
    const both = await t.api('PATCH', `${path(project.id)}?active=true&integrated=false`, { token });
    expect(both.body).toMatchObject({ active: true, integrated: false });
    // PUT on an existing setting updates it.
    expect((await t.api('PUT', path(project.id), { token, body: { active: true, integrated: true } })).body).toMatchObject({ active: true, integrated: true });
    expect(await t.api('GET', `/projects/${encodeURIComponent(project.path_with_namespace)}/error_tracking/settings`, { token })).toMatchObject({ status: 200, body: { active: true, integrated: true } });
  });

  it('works through @gitbeaker/rest', async () => {
    const project = await createProject(t, maintainer.token);
    const api = new Gitlab({ host: t.url, token: maintainer.token });
    expect(await api.ErrorTrackingSettings.create(project.id, true, true)).toEqual({ active: true, project_name: null, sentry_external_url: null, api_url: null, integrated: true });
    expect(await api.ErrorTrackingSettings.edit(project.id, false)).toMatchObject({ active: false, integrated: true });
    expect(await api.ErrorTrackingSettings.show(project.id)).toMatchObject({ active: false, integrated: true });
  });

  it('refuses bad input with 400', async () => {
    const project = await createProject(t, maintainer.token);
    const token = maintainer.token;
    const put = await t.api('PUT', path(project.id), { token, body: { active: true } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: 'integrated is missing' });
    const missing = await t.api('PATCH', path(project.id), { token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'active is missing' });
    const invalid = await t.api('PUT', path(project.id), { token, body: { active: 'maybe', integrated: true } });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ error: 'active is invalid' });
    expect((await t.api('GET', path(project.id), { token })).status).toBe(404);
  });

  it('is for Maintainers: developers 403, strangers 404 on a private project (anonymous: 404 reading, 401 writing), 403 on a public one', async () => {
    const project = await createProject(t, maintainer.token, { visibility: 'private' });
    await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
    await t.api('PUT', path(project.id), { token: maintainer.token, body: { active: true, integrated: true } });
    for (const [method, body] of [['GET', undefined], ['PATCH', { active: false }], ['PUT', { active: false, integrated: false }]] as const) {
      expect(await t.api(method, path(project.id), { token: developer.token, body })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
      expect(await t.api(method, path(project.id), { token: stranger.token, body })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      // Anonymous writes are refused before the project is looked up, as everywhere in the API.
      const anonymous = method === 'GET' ? { status: 404, body: { message: '404 Project Not Found' } } : { status: 401, body: { message: '401 Unauthorized' } };
      expect(await t.api(method, path(project.id), { token: null, body })).toMatchObject(anonymous);
    }
    // Nothing the refused callers sent changed it.
    expect((await t.api('GET', path(project.id), { token: maintainer.token })).body).toMatchObject({ active: true, integrated: true });

    const open = await createProject(t, maintainer.token, { visibility: 'public' });
    expect(await t.api('GET', path(open.id), { token: stranger.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await t.api('PUT', path(open.id), { token: stranger.token, body: { active: true, integrated: true } })).status).toBe(403);
    expect((await t.api('GET', path(open.id), { token: maintainer.token })).status).toBe(404);
  });

  it('the collector takes events only while integrated error tracking is active', async () => {
    const project = await createProject(t, maintainer.token);
    const token = maintainer.token;
    const key = (await t.api('POST', `/projects/${project.id}/error_tracking/client_keys`, { token })).body.public_key as string;
    const notFound = { status: 404, body: { message: '404 Not Found' } };
    expect(await collect(project.id, key)).toEqual(notFound);

    await t.api('PUT', path(project.id), { token, body: { active: true, integrated: false } });
    expect(await collect(project.id, key)).toEqual(notFound);
    await t.api('PATCH', path(project.id), { token, body: { active: true, integrated: true } });
    expect(await collect(project.id, key)).toEqual({ status: 200, body: {} });
    await t.api('PATCH', path(project.id), { token, body: { active: false } });
    expect(await collect(project.id, key)).toEqual(notFound);

    const res = await t.graphql(`query($p: ID!) { project(fullPath: $p) { sentryErrors { errors { count } } } }`, { p: project.path_with_namespace }, token);
    expect(res.body.data.project.sentryErrors.errors.count).toBe(1);
  });
});
