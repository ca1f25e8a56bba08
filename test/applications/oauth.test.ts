/**
 * OAuth 2 against the real server with fetch: the password, authorization code (with the authorize page and PKCE)
 * and refresh grants, Doorkeeper's shapes and errors, token info and revocation, and issued tokens used as API
 * credentials on REST, GraphQL over HTTP and graphql-ws, within their scopes, until deleted, revoked, refreshed or expired.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { suiteServer } from '../support/server.js';
import { createUser, type TestUser } from '../support/factories.js';

const t = suiteServer();
const PASSWORD = 'correct-horse-battery';
const CALLBACK = 'https://client.example.com/oauth/callback';

interface App {
  id: number;
  application_id: string;
  secret: string;
}

let user: TestUser;
let app: App;

async function createApp(body: Record<string, unknown> = {}): Promise<App> {
  const res = await t.api('POST', '/applications', { body: { name: 'Client', redirect_uri: CALLBACK, scopes: 'api read_api read_user', ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  user = await createUser(t);
  app = await createApp();
});

async function post(path: string, body: Record<string, string> | string, headers: Record<string, string> = {}) {
  const form = typeof body === 'string' ? body : new URLSearchParams(body).toString();
  const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: form, redirect: 'manual' });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

const token = (body: Record<string, string> | string, headers?: Record<string, string>) => post('/oauth/token', body, headers);

async function passwordToken(scope?: string, client: App | null = null) {
  const res = await token({ grant_type: 'password', username: user.username, password: PASSWORD, ...(scope ? { scope } : {}), ...(client ? { client_id: client.application_id, client_secret: client.secret } : {}) });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

const bearer = (accessToken: string) => ({ Authorization: `Bearer ${accessToken}` });

async function rest(path: string, accessToken: string, method = 'GET', body?: unknown) {
  return t.api(method, path, { token: null, headers: bearer(accessToken), body });
}

async function graphql(query: string, accessToken: string) {
  const res = await fetch(`${t.url}/api/graphql`, { method: 'POST', headers: { ...bearer(accessToken), 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: res.status, body: (await res.json()) as any };
}

/** One operation over graphql-ws with the token in connectionParams; the result, or the socket's close code. */
function overWebSocket(query: string, accessToken: string): Promise<{ data?: any; errors?: any[]; closed?: number }> {
  return new Promise((resolve) => {
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/api/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${accessToken}` },
      retryAttempts: 0,
      lazy: true,
    });
    let result: { data?: any; errors?: any[]; closed?: number } = {};
    client.subscribe(
      { query },
      {
        next: (value) => (result = value as typeof result),
        error: (error) => {
          const code = (error as { code?: number }).code;
          resolve(code !== undefined ? { closed: code } : { errors: Array.isArray(error) ? error : [error] });
          void client.dispose();
        },
        complete: () => {
          resolve(result);
          void client.dispose();
        },
      },
    );
  });
}

/** The authorize page, its consent form posted: the redirect's Location, or the page answered. */
async function authorize(params: Record<string, string>, consent: Record<string, string> = { login: user.username, password: PASSWORD, decision: 'authorize' }) {
  return post('/oauth/authorize', { ...params, ...consent });
}

function authorizeParams(extra: Record<string, string> = {}): Record<string, string> {
  return { client_id: app.application_id, redirect_uri: CALLBACK, response_type: 'code', state: 'xyz 123', ...extra };
}

async function code(extra: Record<string, string> = {}): Promise<string> {
  const res = await authorize(authorizeParams(extra));
  expect(res.status, res.text).toBe(302);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
  expect(location.searchParams.get('state')).toBe('xyz 123');
  return location.searchParams.get('code')!;
}

const exchange = (c: string, extra: Record<string, string> = {}, client: App = app) =>
  token({ grant_type: 'authorization_code', code: c, redirect_uri: CALLBACK, client_id: client.application_id, client_secret: client.secret, ...extra });

describe('grant_type=password', () => {
  it("answers Doorkeeper's token response, and the token acts as the user on REST", async () => {
    const res = await token({ grant_type: 'password', username: user.username, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.json).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'api' });
    expect(res.json.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(Math.abs(res.json.created_at - Date.now() / 1000)).toBeLessThan(60);
    const me = await rest('/user', res.json.access_token);
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(user.username);
    // The access_token parameter works as GitLab reads it too.
    expect((await t.api('GET', `/user?access_token=${res.json.access_token}`, { token: null })).body.username).toBe(user.username);
  });

  it('takes the e-mail address as login, and client credentials within the application scopes', async () => {
    const byEmail = await token({ grant_type: 'password', username: `${user.username}@example.com`, password: PASSWORD, scope: 'read_user' });
    expect(byEmail.status, byEmail.text).toBe(200);
    expect(byEmail.json.scope).toBe('read_user');
    const withClient = await passwordToken('read_api', app);
    expect(withClient.scope).toBe('read_api');
    const info = await fetch(`${t.url}/oauth/token/info`, { headers: bearer(withClient.access_token) });
    expect(((await info.json()) as any).application).toEqual({ uid: app.application_id });
  });

  it('refuses wrong passwords, unknown users, bad clients and scopes', async () => {
    const grant = { grant_type: 'password', username: user.username, password: PASSWORD };
    const wrong = await token({ ...grant, password: 'nope' });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({
      error: 'invalid_grant',
      error_description:
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
    });
    expect((await token({ ...grant, username: 'nobody-here' })).json.error).toBe('invalid_grant');
    const badClient = await token({ ...grant, client_id: app.application_id, client_secret: 'gloas-wrong' });
    expect(badClient.status).toBe(401);
    expect(badClient.json.error).toBe('invalid_client');
    expect(badClient.headers.get('www-authenticate')).toMatch(/^Bearer realm="Doorkeeper", error="invalid_client"/);
    expect((await token({ ...grant, client_id: 'unknown' })).status).toBe(401);
    const scope = await token({ ...grant, scope: 'api pizza' });
    expect(scope.status).toBe(400);
    expect(scope.json).toEqual({ error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' });
    // Beyond what the application may be granted.
    expect((await token({ ...grant, scope: 'sudo', client_id: app.application_id, client_secret: app.secret })).json.error).toBe('invalid_scope');
    expect((await token({ grant_type: 'password', username: user.username })).json).toEqual({ error: 'invalid_request', error_description: 'Missing required parameter: password.' });
  });

  it('refuses blocked users', async () => {
    const blocked = await createUser(t);
    const issued = await token({ grant_type: 'password', username: blocked.username, password: PASSWORD });
    expect((await rest('/user', issued.json.access_token)).status).toBe(200);
    expect((await t.api('POST', `/users/${blocked.id}/block`)).status).toBe(201);
    expect((await token({ grant_type: 'password', username: blocked.username, password: PASSWORD })).json.error).toBe('invalid_grant');
    // Tokens issued before stop working at once, as personal access tokens do.
    const refused = await rest('/user', issued.json.access_token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
  });
});

describe('grant types and attacker input', () => {
  it('unsupported and missing grant types', async () => {
    expect((await token({ grant_type: 'client_credentials' })).json).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'The authorization grant type is not supported by the authorization server.',
    });
    expect((await token({})).json).toEqual({ error: 'invalid_request', error_description: 'Missing required parameter: grant_type.' });
  });

  it('never a 500: NUL bytes, arrays, wrong content types, malformed Basic, huge and broken bodies', async () => {
    const nul = await token(`grant_type=password&username=${user.username}&password=%00`);
    expect(nul.status).toBe(400);
    const nested = await token(`grant_type[]=password&username=${user.username}&password=${PASSWORD}`);
    expect(nested.status).toBe(400);
    expect(nested.json.error).toBe('invalid_request');
    const asText = await post('/oauth/token', 'grant_type=password', { 'Content-Type': 'text/plain' });
    expect(asText.status).toBe(400);
    expect(asText.json.error).toBe('invalid_request');
    const json = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', username: user.username, password: { $ne: 1 } }) });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toBe('invalid_request');
    const broken = await fetch(`${t.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":' });
    expect(broken.status).toBe(400);
    const basic = await token({ grant_type: 'refresh_token', refresh_token: 'x' }, { Authorization: 'Basic !!!' });
    expect(basic.status).toBe(401);
    expect(basic.json.error).toBe('invalid_client');
    const huge = await token({ grant_type: 'password', username: 'x'.repeat(11 * 1024 * 1024), password: 'y' });
    expect(huge.status).toBe(413);
    const longPassword = await token({ grant_type: 'password', username: user.username, password: 'p'.repeat(100_000) });
    expect(longPassword.status).toBe(400);
    for (const path of ['/oauth/revoke', '/oauth/authorize']) {
      const res = await post(path, 'token=%00&client_id=%00');
      expect(res.status, path).toBeLessThan(500);
    }
    expect((await fetch(`${t.url}/oauth/token/info?access_token[]=x`)).status).toBe(401);
  });
});

describe('the authorize page and grant_type=authorization_code', () => {
  it('shows a sign-in and consent page with a strict CSP and escaped values', async () => {
    const res = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(authorizeParams({ state: '"><script>alert(1)</script>' }))}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://client.example.com");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('Authorize Client to use your account?');
    expect(html).toContain('<form method="post" action="/oauth/authorize">');
    expect(html).not.toContain('<script');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    for (const scope of ['api', 'read_api', 'read_user']) expect(html).toContain(`<code>${scope}</code>`);
    expect(html).not.toMatch(/https?:\/\/(?!client\.example\.com)[^"<\s]+/);
  });

  it('exchanges a code once, for the same client and redirect URI, as the user who signed in', async () => {
    const c = await code({ scope: 'read_user' });
    expect(c).toMatch(/^[0-9a-f]{64}$/);
    const res = await exchange(c);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'read_user' });
    expect((await rest('/user', res.json.access_token)).body.username).toBe(user.username);
    // Reused: refused.
    const again = await exchange(c);
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
  });

  it('refuses a wrong redirect URI, client or secret, and an expired code', async () => {
    const other = await createApp({ name: 'Other' });
    const c = await code();
    expect((await exchange(c, { redirect_uri: 'https://client.example.com/other' })).json.error).toBe('invalid_grant');
    expect((await exchange(c, {}, other)).json.error).toBe('invalid_grant');
    const wrongSecret = await exchange(c, { client_secret: other.secret });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json.error).toBe('invalid_client');
    const noSecret = await token({ grant_type: 'authorization_code', code: c, redirect_uri: CALLBACK, client_id: app.application_id });
    expect(noSecret.json.error).toBe('invalid_client');
    // Client credentials over HTTP Basic work as well as parameters.
    const basic = await token({ grant_type: 'authorization_code', code: c, redirect_uri: CALLBACK }, { Authorization: `Basic ${Buffer.from(`${app.application_id}:${app.secret}`).toString('base64')}` });
    expect(basic.status, basic.text).toBe(200);
    // A code is good for ten minutes.
    const late = await code();
    await t.server.database.prisma.oauthAccessGrant.updateMany({ where: { revokedAt: null, applicationId: app.id }, data: { createdAt: new Date(Date.now() - 601_000) } });
    expect((await exchange(late)).json.error).toBe('invalid_grant');
  });

  it('never redirects to a redirect URI that is not exactly the client’s; echoes state on errors it sends back', async () => {
    for (const redirect of ['https://client.example.com/oauth/callback/', 'https://evil.example.com/oauth/callback', 'https://client.example.com/oauth/callback?x=1']) {
      const res = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(authorizeParams({ redirect_uri: redirect }))}`, { redirect: 'manual' });
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain("The requested redirect uri is malformed or doesn&#39;t match client redirect URI.");
      const posted = await authorize(authorizeParams({ redirect_uri: redirect }));
      expect(posted.status).toBe(400);
      expect(posted.headers.get('location')).toBeNull();
    }
    const unknown = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(authorizeParams({ client_id: 'nope' }))}`, { redirect: 'manual' });
    expect(unknown.status).toBe(401);
    const badScope = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(authorizeParams({ scope: 'sudo' }))}`, { redirect: 'manual' });
    expect(badScope.status).toBe(302);
    const location = new URL(badScope.headers.get('location')!);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.', state: 'xyz 123' });
    const responseType = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(authorizeParams({ response_type: 'token' }))}`, { redirect: 'manual' });
    expect(new URL(responseType.headers.get('location')!).searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('denial and wrong passwords', async () => {
    const denied = await authorize(authorizeParams(), { decision: 'deny' });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('xyz 123');
    expect(location.searchParams.get('code')).toBeNull();
    const wrong = await authorize(authorizeParams(), { login: user.username, password: 'wrong', decision: 'authorize' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Invalid login or password.');
    expect(wrong.headers.get('location')).toBeNull();
    // The form keeps the request's parameters for another try, and no password.
    expect(wrong.text).toContain(`name="client_id" value="${app.application_id}"`);
    expect(wrong.text).not.toContain('value="wrong"');
  });

  it('PKCE: S256 and plain verifiers must match', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const s256 = await code({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await exchange(s256, { code_verifier: 'wrong-verifier-wrong-verifier-wrong-verifier' })).json.error).toBe('invalid_grant');
    // A wrong verifier does not use the code up.
    const good = await exchange(s256, { code_verifier: verifier });
    expect(good.status, good.text).toBe(200);
    const withoutVerifier = await code({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await exchange(withoutVerifier)).json.error).toBe('invalid_grant');
    const plain = await code({ code_challenge: verifier });
    expect((await exchange(plain, { code_verifier: challenge })).json.error).toBe('invalid_grant');
    expect((await exchange(plain, { code_verifier: verifier })).status).toBe(200);
    // A verifier for a code issued without a challenge is refused.
    expect((await exchange(await code(), { code_verifier: verifier })).json.error).toBe('invalid_grant');
    const method = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(authorizeParams({ code_challenge: challenge, code_challenge_method: 'S512' }))}`, { redirect: 'manual' });
    expect(new URL(method.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('a public client exchanges its code with PKCE and no secret', async () => {
    const mobile = await createApp({ name: 'Mobile', confidential: false, redirect_uri: 'com.example.app:/cb', scopes: 'read_user' });
    const verifier = randomBytes(32).toString('base64url');
    const res = await authorize({ client_id: mobile.application_id, redirect_uri: 'com.example.app:/cb', response_type: 'code', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
    expect(res.status, res.text).toBe(302);
    const c = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const tokens = await token({ grant_type: 'authorization_code', code: c, redirect_uri: 'com.example.app:/cb', client_id: mobile.application_id, code_verifier: verifier });
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.json.scope).toBe('read_user');
  });
});

describe('refresh tokens', () => {
  it('rotate: the new pair works, the old access and refresh tokens do not', async () => {
    const first = await exchange(await code());
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: app.application_id, client_secret: app.secret });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(first.json.refresh_token);
    expect(refreshed.json.scope).toBe(first.json.scope);
    expect((await rest('/user', refreshed.json.access_token)).status).toBe(200);
    const old = await rest('/user', first.json.access_token);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    const reused = await token({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: app.application_id, client_secret: app.secret });
    expect(reused.json.error).toBe('invalid_grant');
  });

  it("needs the token's own client, and narrows scopes only", async () => {
    const first = await exchange(await code());
    const other = await createApp({ name: 'Other' });
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: other.application_id, client_secret: other.secret })).json.error).toBe('invalid_grant');
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token })).json.error).toBe('invalid_grant');
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: app.application_id, client_secret: app.secret, scope: 'sudo' })).json.error).toBe('invalid_scope');
    const narrowed = await token({ grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: app.application_id, client_secret: app.secret, scope: 'read_user' });
    expect(narrowed.json.scope).toBe('read_user');
    // Password-grant tokens without a client refresh without one.
    const own = await passwordToken();
    expect((await token({ grant_type: 'refresh_token', refresh_token: own.refresh_token })).status).toBe(200);
  });
});

describe('issued tokens as API credentials', () => {
  it('REST, GraphQL and graphql-ws within the scopes granted', async () => {
    const readUser = await passwordToken('read_user');
    expect((await rest('/user', readUser.access_token)).status).toBe(200);
    const projects = await rest('/projects', readUser.access_token);
    expect(projects.status).toBe(403);
    expect(projects.body.error).toBe('insufficient_scope');
    expect((await graphql('{ currentUser { username } }', readUser.access_token)).body.data.currentUser.username).toBe(user.username);
    const gqlProjects = await graphql('{ projects { nodes { id } } }', readUser.access_token);
    expect(gqlProjects.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
    expect((await overWebSocket('{ currentUser { username } }', readUser.access_token)).data.currentUser.username).toBe(user.username);
    const wsProjects = await overWebSocket('{ projects { nodes { id } } }', readUser.access_token);
    expect(wsProjects.errors?.[0]?.extensions?.code).toBe('INSUFFICIENT_SCOPE');

    const readApi = await passwordToken('read_api');
    expect((await rest('/projects', readApi.access_token)).status).toBe(200);
    const create = await rest('/projects', readApi.access_token, 'POST', { name: 'nope' });
    expect(create.status).toBe(403);
    const mutation = 'mutation { oauthApplicationCreate(input: { name: "x", redirectUri: "https://a.example.com/cb", scopes: "api" }) { errors } }';
    expect((await graphql(mutation, readApi.access_token)).body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');

    const api = await passwordToken('api');
    const created = await rest('/projects', api.access_token, 'POST', { name: 'made-with-oauth' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.owner?.username ?? created.body.namespace.path).toBe(user.username);
    // An OAuth token is not a personal access token.
    expect((await rest('/personal_access_tokens/self', api.access_token)).status).toBe(404);
    // Nor does it make its user an administrator.
    expect((await rest('/applications', api.access_token)).status).toBe(403);
  });

  it('token info, then revoke: refused everywhere at once, a live graphql-ws socket closed', async () => {
    const issued = await passwordToken('api read_user');
    const info = await fetch(`${t.url}/oauth/token/info`, { headers: bearer(issued.access_token) });
    expect(info.status).toBe(200);
    const body = (await info.json()) as any;
    expect(body).toMatchObject({ resource_owner_id: user.id, scope: ['api', 'read_user'], scopes: ['api', 'read_user'], application: { uid: null }, created_at: issued.created_at });
    expect(body.expires_in).toBeGreaterThan(7100);
    expect(body.expires_in_seconds).toBe(body.expires_in);
    // Remembered by the credential cache before it is revoked.
    expect((await rest('/user', issued.access_token)).status).toBe(200);
    const ws = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${issued.access_token}` }, retryAttempts: 0 });
    const closed = new Promise<number>((resolve) => ws.on('closed', (event) => resolve((event as { code: number }).code)));
    ws.subscribe({ query: 'subscription { activityEventRecorded { action } }' }, { next: () => {}, error: () => {}, complete: () => {} });
    await new Promise((resolve) => ws.on('connected', resolve));

    const revoked = await post('/oauth/revoke', { token: issued.access_token });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({});
    expect((await rest('/user', issued.access_token)).status).toBe(401);
    expect((await graphql('{ currentUser { username } }', issued.access_token)).status).toBe(401);
    expect(await closed).toBe(4401);
    expect((await overWebSocket("{ currentUser { username } }", issued.access_token)).closed).toBe(4403);
    const after = await fetch(`${t.url}/oauth/token/info`, { headers: bearer(issued.access_token) });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ error: 'invalid_token', error_description: 'The access token was revoked' });
    // Revoking again, or an unknown token, is 200 as RFC 7009 says.
    expect((await post('/oauth/revoke', { token: issued.access_token })).status).toBe(200);
    expect((await post('/oauth/revoke', { token: 'unknown' })).status).toBe(200);
    expect((await post('/oauth/revoke', {})).json.error).toBe('invalid_request');
    await ws.dispose();
  });

  it("a confidential application's token is revoked by that application only, by access or refresh token", async () => {
    const exchanged = await exchange(await code());
    expect(exchanged.status, exchanged.text).toBe(200);
    const tokens = exchanged.json;
    const refused = await post('/oauth/revoke', { token: tokens.access_token });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' });
    expect((await post('/oauth/revoke', { token: tokens.access_token, client_id: app.application_id, client_secret: 'gloas-x' })).status).toBe(401);
    expect((await rest('/user', tokens.access_token)).status).toBe(200);
    const ok = await post('/oauth/revoke', { token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: app.application_id, client_secret: app.secret });
    expect(ok.status).toBe(200);
    expect((await rest('/user', tokens.access_token)).status).toBe(401);
  });

  it('expired tokens stop working', async () => {
    const old = await passwordToken();
    const digest = createHash('sha256').update(old.access_token).digest('hex');
    await t.server.database.prisma.oauthAccessToken.update({ where: { digest }, data: { createdAt: new Date(Date.now() - 7201_000) } });
    const res = await rest('/user', old.access_token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' });
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await graphql('{ currentUser { username } }', old.access_token)).status).toBe(401);
    const info = await fetch(`${t.url}/oauth/token/info`, { headers: bearer(old.access_token) });
    expect(await info.json()).toEqual({ error: 'invalid_token', error_description: 'The access token expired' });
    // Its refresh token still gives a new pair (Doorkeeper refreshes expired tokens).
    expect((await token({ grant_type: 'refresh_token', refresh_token: old.refresh_token })).status).toBe(200);
  });

  it('the out-of-band redirect URI shows the code on a page', async () => {
    const native = await createApp({ name: 'CLI', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read_user' });
    const res = await authorize({ client_id: native.application_id, redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', response_type: 'code' });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const c = /<code id="authorization_code">([0-9a-f]{64})<\/code>/.exec(res.text)![1]!;
    const tokens = await token({ grant_type: 'authorization_code', code: c, redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', client_id: native.application_id, client_secret: native.secret });
    expect(tokens.status, tokens.text).toBe(200);
  });

  it('deleting the application stops its tokens at once; renewing its secret stops the old secret, not issued tokens', async () => {
    const doomed = await createApp({ name: 'Doomed' });
    const params = { client_id: doomed.application_id, redirect_uri: CALLBACK, response_type: 'code' };
    const issue = async (client: App) => {
      const res = await authorize({ ...params, client_id: client.application_id });
      const c = new URL(res.headers.get('location')!).searchParams.get('code')!;
      return (await exchange(c, {}, client)).json;
    };
    const first = await issue(doomed);
    expect((await rest('/user', first.access_token)).status).toBe(200);
    expect((await graphql('{ currentUser { username } }', first.access_token)).status).toBe(200);
    const unusedCode = new URL((await authorize(params)).headers.get('location')!).searchParams.get('code')!;

    // Renewal (GitLab's renew-secret is Doorkeeper's renew_secret): the old secret no longer authenticates the client.
    const renewed = (await t.api('POST', `/applications/${doomed.id}/renew-secret`)).body as App;
    expect((await exchange(unusedCode, {}, doomed)).json.error).toBe('invalid_client');
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: doomed.application_id, client_secret: doomed.secret })).status).toBe(401);
    expect((await rest('/user', first.access_token)).status).toBe(200);
    const second = (await exchange(unusedCode, {}, renewed)).json;
    expect((await rest('/user', second.access_token)).status).toBe(200);

    // Deletion: every token of the application is refused at once, remembered or not, on every transport.
    const ws = createClient({ url: `${t.url.replace('http', 'ws')}/api/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${second.access_token}` }, retryAttempts: 0 });
    const closed = new Promise<number>((resolve) => ws.on('closed', (event) => resolve((event as { code: number }).code)));
    ws.subscribe({ query: 'subscription { activityEventRecorded { action } }' }, { next: () => {}, error: () => {}, complete: () => {} });
    await new Promise((resolve) => ws.on('connected', resolve));
    expect((await t.api('DELETE', `/applications/${doomed.id}`)).status).toBe(204);
    for (const issued of [first, second]) {
      expect((await rest('/user', issued.access_token)).status).toBe(401);
      expect((await graphql('{ currentUser { username } }', issued.access_token)).status).toBe(401);
      expect((await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: doomed.application_id, client_secret: renewed.secret })).status).toBe(401);
    }
    expect(await closed).toBe(4401);
    await ws.dispose();
    expect(await t.server.database.prisma.oauthAccessToken.count({ where: { applicationId: doomed.id } })).toBe(0);
  });
});
