import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createGroup, createUser } from '../support/factories.js';

// Hostile shapes of parameters that once crashed coercion (500) for anyone, with no token: objects whose `toString`
// is not a function where a scalar is expected, and lists with null items. Each is the client's mistake: GitLab's 400.
const t = suiteServer();

async function get(path: string, token: string | null = t.rootToken) {
  const res = await fetch(`${t.url}/api/v4${path}`, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** A GET with a JSON body (fetch sends none), as curl -d with -X GET does. */
function getWithBody(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  const headers = { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) };
  return new Promise((resolve, reject) => {
    const req = request(`${t.url}/api/v4${path}`, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('parameters that are objects or hold nulls where scalars are expected', () => {
  it('answers 400 "<param> is invalid" to an object with a toString key in the query, for scalars, enums and pages', async () => {
    for (const token of [t.rootToken, null]) {
      expect(await get('/projects?archived[toString]=x', token)).toEqual({ status: 400, body: { error: 'archived is invalid' } });
      expect(await get('/projects?visibility[toString]=x', token)).toEqual({ status: 400, body: { error: 'visibility is invalid' } });
      expect(await get('/projects?per_page[toString]=x', token)).toEqual({ status: 400, body: { error: 'per_page is invalid' } });
      expect(await get('/projects?page[valueOf]=1', token)).toEqual({ status: 400, body: { error: 'page is invalid' } });
    }
  });

  it('answers 400 to an object with toString and valueOf in a JSON body', async () => {
    const owner = await createUser(t);
    const group = await createGroup(t, owner.token);
    const res = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: { auto_devops_enabled: { toString: 'x', valueOf: 1 } } });
    expect(res).toMatchObject({ status: 400, body: { error: 'auto_devops_enabled is invalid' } });
    const form = await t.api('PUT', `/groups/${group.id}`, { token: owner.token, body: 'description[toString]=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form).toMatchObject({ status: 400, body: { error: 'description is invalid' } });
  });

  it('answers 400 "sudo is invalid" to a sudo parameter that is an object, whoever asks', async () => {
    for (const token of [t.rootToken, null]) expect(await get('/version?sudo[toString]=x', token)).toEqual({ status: 400, body: { error: 'sudo is invalid' } });
    const json = await getWithBody('/version', { sudo: { toString: 'x' } });
    expect(json).toEqual({ status: 400, body: { error: 'sudo is invalid' } });
    // A list of names is still one identifier, as before.
    expect((await get('/version?sudo[]=root')).status).toBe(200);
  });

  it('keeps pagination links when the query holds a nested parameter with a toString key', async () => {
    const res = await fetch(`${t.url}/api/v4/projects?per_page=1&foo[][toString]=x&foo[]=y`, { headers: { 'PRIVATE-TOKEN': t.rootToken } });
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toContain('foo%5B%5D=y');
  });

  it('answers 400 "<param> is invalid" to a list with null items', async () => {
    const user = await createUser(t);
    const token = await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'x', scopes: [null] } });
    expect(token).toMatchObject({ status: 400, body: { error: 'scopes is invalid' } });
    const groups = await getWithBody('/groups', { skip_groups: [null] });
    expect(groups).toEqual({ status: 400, body: { error: 'skip_groups is invalid' } });
    // Nulls are refused, not the lists: the same lists without them pass.
    expect((await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'x', scopes: ['api'] } })).status).toBe(201);
    expect((await getWithBody('/groups', { skip_groups: [1] })).status).toBe(200);
  });
});
