/** Test data with unique names, created through the public API as the root administrator. */
import { randomBytes } from 'node:crypto';
import type { TestServer } from './server.js';

/** A 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export interface TestUser {
  id: number;
  username: string;
  token: string;
}

/** A user with a personal access token (scopes `api` unless given). */
export async function createUser(t: TestServer, options: { scopes?: string[]; admin?: boolean; external?: boolean } = {}): Promise<TestUser> {
  const username = unique('user');
  const user = await t.api('POST', '/users', {
    body: { username, name: `User ${username}`, email: `${username}@example.com`, password: 'correct-horse-battery', admin: options.admin ?? false, external: options.external ?? false },
  });
  if (user.status !== 201) throw new Error(`createUser: ${user.status} ${user.text}`);
  const token = await t.api('POST', `/users/${user.body.id}/personal_access_tokens`, {
    body: { name: 'test', scopes: options.scopes ?? ['api'] },
  });
  if (token.status !== 201) throw new Error(`createUser token: ${token.status} ${token.text}`);
  return { id: user.body.id, username, token: token.body.token };
}

export async function createGroup(t: TestServer, token: string, options: { parentId?: number; visibility?: string; path?: string } = {}): Promise<any> {
  const path = options.path ?? unique('group');
  const res = await t.api('POST', '/groups', {
    token,
    body: { name: path, path, parent_id: options.parentId, visibility: options.visibility ?? 'private' },
  });
  if (res.status !== 201) throw new Error(`createGroup: ${res.status} ${res.text}`);
  return res.body;
}

export async function createProject(t: TestServer, token: string, options: { namespaceId?: number; visibility?: string; name?: string } = {}): Promise<any> {
  const res = await t.api('POST', '/projects', {
    token,
    body: { name: options.name ?? unique('project'), namespace_id: options.namespaceId, visibility: options.visibility ?? 'private' },
  });
  if (res.status !== 201) throw new Error(`createProject: ${res.status} ${res.text}`);
  return res.body;
}

export async function addMember(t: TestServer, token: string, kind: 'groups' | 'projects', id: number, userId: number, accessLevel: number): Promise<void> {
  const res = await t.api('POST', `/${kind}/${id}/members`, { token, body: { user_id: userId, access_level: accessLevel } });
  if (res.status !== 201) throw new Error(`addMember: ${res.status} ${res.text}`);
}

/** A REST call that must succeed: its body, or an error naming the call and GitLab's answer. */
export async function apiOk(t: TestServer, token: string | null, method: string, path: string, body?: object): Promise<any> {
  const res = await t.api(method, path, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}
