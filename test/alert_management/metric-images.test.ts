/** REST metric images of alerts (GitLab's lib/api/alert_management_alerts.rb), through @gitbeaker/rest and raw HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { suiteServer } from '../support/server.js';
import { PNG, addMember, createProject, createUser, type TestUser } from '../support/factories.js';
import { createHttpIntegration, notify } from './support.js';

const t = suiteServer();
let maintainer: TestUser;
let developer: TestUser;
let reporter: TestUser;
let stranger: TestUser;
let project: any;
let iid: number;

beforeAll(async () => {
  [maintainer, developer, reporter, stranger] = await Promise.all([createUser(t), createUser(t), createUser(t), createUser(t)]);
  project = await createProject(t, maintainer.token);
  await addMember(t, maintainer.token, 'projects', project.id, developer.id, 30);
  await addMember(t, maintainer.token, 'projects', project.id, reporter.id, 20);
  const integration = await createHttpIntegration(t, maintainer.token, project.path_with_namespace);
  iid = (await notify(t, integration.url, { title: 'with images' }, { bearer: integration.token })).body[0].iid;
});

const base = () => `/projects/${project.id}/alert_management_alerts/${iid}/metric_images`;

async function upload(token: string, file: Blob | null, fields: Record<string, string> = {}, name = 'graph.png') {
  const form = new FormData();
  if (file) form.append('file', file, name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(`${t.url}/api/v4${base()}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': token }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

describe('alert metric images', () => {
  it('are uploaded, listed, changed and removed through @gitbeaker/rest, with files served like uploads', async () => {
    const api = new Gitlab({ host: t.url, token: developer.token });
    const created = await api.AlertManagement.uploadMetricImage(project.id, iid, { content: new Blob([PNG], { type: 'image/png' }), filename: 'latency graph.png' }, { url: 'https://grafana.example.com/d/1', urlText: 'Latency' });
    expect(Object.keys(created).sort()).toEqual(['created_at', 'file_path', 'filename', 'id', 'url', 'url_text']);
    expect(created).toMatchObject({ filename: 'latency_graph.png', url: 'https://grafana.example.com/d/1', url_text: 'Latency', file_path: `/uploads/-/system/alert_metric_image/file/${created.id}/latency_graph.png` });

    const file = await fetch(`${t.url}${created.file_path}`, { headers: { 'PRIVATE-TOKEN': reporter.token } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    expect((await fetch(`${t.url}${created.file_path}`, { headers: { 'PRIVATE-TOKEN': stranger.token } })).status).toBe(404);
    expect((await fetch(`${t.url}${created.file_path}`)).status).toBe(404);

    const list = await new Gitlab({ host: t.url, token: reporter.token }).AlertManagement.allMetricImages(project.id, iid);
    expect(list).toEqual([created]);

    const edited = await api.AlertManagement.editMetricImage(project.id, iid, created.id, { url: 'https://grafana.example.com/d/2', urlText: 'Errors' });
    expect(edited).toMatchObject({ id: created.id, url: 'https://grafana.example.com/d/2', url_text: 'Errors', filename: 'latency_graph.png' });

    await api.AlertManagement.removeMetricImage(project.id, iid, created.id);
    expect(await api.AlertManagement.allMetricImages(project.id, iid)).toEqual([]);
    expect((await fetch(`${t.url}${created.file_path}`, { headers: { 'PRIVATE-TOKEN': maintainer.token } })).status).toBe(404);
  });

  it('refuse a missing file, a file over 1 MB, a non-image and a bad URL; nothing is stored', async () => {
    const none = await upload(developer.token, null);
    expect(none).toEqual({ status: 400, body: { error: 'file is missing' } });
    const big = await upload(developer.token, new Blob([Buffer.alloc(1024 * 1024 + 1)], { type: 'image/png' }));
    expect(big).toEqual({ status: 400, body: { message: 'File is too large' } });
    const text = await upload(developer.token, new Blob(['hello']), {}, 'notes.txt');
    expect(text.status).toBe(400);
    const url = await upload(developer.token, new Blob([PNG], { type: 'image/png' }), { url: 'javascript:alert(1)' });
    expect(url.status).toBe(400);
    expect(url.body.message).toEqual({ url: ['is not a valid URL'] });
    expect((await t.api('GET', base(), { token: developer.token })).body).toEqual([]);
  });

  it('need Developer to change and Reporter to read; hidden alerts and images are 404', async () => {
    expect((await upload(reporter.token, new Blob([PNG], { type: 'image/png' }))).status).toBe(403);
    expect((await t.api('GET', base(), { token: stranger.token })).status).toBe(404);
    expect((await t.api('GET', `/projects/${project.id}/alert_management_alerts/99999/metric_images`, { token: reporter.token })).status).toBe(404);
    const made = await upload(developer.token, new Blob([PNG], { type: 'image/png' }));
    expect(made.status).toBe(201);
    expect((await t.api('PUT', `${base()}/${made.body.id}`, { token: reporter.token, body: { url_text: 'x' } })).status).toBe(403);
    expect((await t.api('DELETE', `${base()}/${made.body.id}`, { token: reporter.token })).status).toBe(403);
    const missing = await t.api('PUT', `${base()}/999999`, { token: developer.token, body: { url_text: 'x' } });
    expect(missing).toMatchObject({ status: 404, body: { message: '404 Metric image Not Found' } });
    expect((await t.api('DELETE', `${base()}/${made.body.id}`, { token: developer.token })).status).toBe(204);
  });
});
