/**
 * The OAuth 2 endpoints, outside /api/v4 as in GitLab (Doorkeeper's routes), mounted at `/oauth`:
 *
 * - `POST /oauth/token`: `password`, `authorization_code` (PKCE: S256 or plain) and `refresh_token` grants; client
 *   credentials as `client_id`/`client_secret` parameters or HTTP Basic.
 * - `GET /oauth/authorize`: a small page of our own (plain HTML, no script, no external asset, a strict CSP) where the
 *   user signs in with their username (or e-mail) and password and authorizes or denies the application. There are
 *   no browser sessions here, so the form carries the credentials; `POST /oauth/authorize` checks them and sends
 *   the browser back to the exact redirect URI with `code` (or `error`) and `state`.
 * - `GET /oauth/token/info` and `POST /oauth/revoke` (RFC 7009).
 *
 * Parameters come from the query string or the body (JSON or form), strings only: anything else counts as absent.
 * Errors are Doorkeeper's JSON (oauth-errors.ts); the edge (src/http) has already refused bodies that are too large
 * or malformed (NUL bytes, bad encodings) in GitLab's words.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import { readBasicCredentials } from '../../auth/credentials.js';
import { createContext, type App } from '../../context.js';
import { escapeHtml } from '../../markdown.js';
import type { ApplicationsService, AuthorizationRequest, ClientCredentials } from './service.js';
import { AuthorizationProblem, NATIVE_REDIRECT_URI, OAUTH_SCOPES } from './service.js';
import { ciSigningKey } from '../../ci/id-tokens.js';
import { OAuthError, oauthErrors } from './oauth-errors.js';

/** Responses carrying tokens are never stored (RFC 6749 §5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** Parameters of the authorization request the consent form carries along. */
const AUTHORIZE_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

function stringParam(req: Request, name: string): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? body[name] : undefined;
  if (typeof fromBody === 'string') return fromBody;
  const fromQuery = (req.query as Record<string, unknown>)[name];
  return typeof fromQuery === 'string' ? fromQuery : undefined;
}

/** HTTP Basic first, then parameters (Doorkeeper's from_basic, from_params). */
function clientCredentials(req: Request): ClientCredentials {
  const basic = readBasicCredentials(req.headers.authorization);
  if (basic === 'malformed') throw oauthErrors.invalidClient();
  if (basic) return { clientId: basic.login || undefined, clientSecret: basic.password || undefined };
  return { clientId: stringParam(req, 'client_id') || undefined, clientSecret: stringParam(req, 'client_secret') || undefined };
}

function sendOAuthError(res: Response, error: OAuthError): void {
  res.status(error.status).set({ ...NO_STORE, ...error.headers }).json(error.body);
}

/** What a handler answers, sent once the request's events have been handled on this replica. */
type Reply = (res: Response) => void;

/**
 * Runs a handler with a request context of no viewer. It answers only once what it published (a token revoked or
 * rotated) has been handled here (Context.settle), so the caller's next request with the old token is refused.
 */
function handler(app: App, run: (service: ApplicationsService, req: Request) => Promise<Reply>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = createContext(app, null);
    let reply: Reply;
    try {
      reply = await run(ctx.services.applications, req);
    } catch (error) {
      if (!(error instanceof OAuthError)) return next(error);
      reply = (r) => sendOAuthError(r, error);
    }
    await ctx.settle();
    reply(res);
  };
}


/** Where a form on the page may send the browser: here, and (through our redirect) the client's redirect URI. */
function formTargets(redirectUri: string | undefined): string {
  if (!redirectUri || redirectUri === NATIVE_REDIRECT_URI) return "'self'";
  try {
    const url = new URL(redirectUri);
    if (url.protocol === 'http:' || url.protocol === 'https:') return `'self' ${url.origin}`;
    return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? `'self' ${url.protocol}` : "'self'";
  } catch {
    return "'self'";
  }
}

function csp(redirectUri?: string): string {
  return [
    "default-src 'none'",
    "style-src 'sha256-" + STYLE_HASH + "'",
    `form-action ${formTargets(redirectUri)}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = 'body{font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}' +
  'label{display:block;margin:.75rem 0 .25rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
  'button{margin:1rem .5rem 0 0;padding:.5rem 1rem}.error{color:#a00}code{word-break:break-all}';
/** The page's one style element, allowed by its hash (no inline style otherwise, no script at all). */
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

function sendPage(res: Response, status: number, title: string, body: string, redirectUri?: string): void {
  res
    .status(status)
    .set({ ...NO_STORE, 'Content-Security-Policy': csp(redirectUri), 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' })
    .type('html')
    .send(
      `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
        `<title>${escapeHtml(title)}</title>\n<link rel="icon" href="data:,">\n<style>${STYLE}</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`,
    );
}

function errorPage(res: Response, error: OAuthError): void {
  sendPage(res, error.status === 401 ? 401 : 400, 'An error has occurred', `<h1>An error has occurred</h1>\n<p class="error" id="error" data-error="${escapeHtml(error.error)}">${escapeHtml(error.description)}</p>`);
}

function consentPage(res: Response, request: AuthorizationRequest, params: Record<string, string | undefined>, status = 200, problem?: string): void {
  const hidden = AUTHORIZE_PARAMS.map((name) => (params[name] === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(params[name]!)}">`)).join('\n');
  const scopes = request.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
  const body =
    `<h1>Authorize ${escapeHtml(request.application.name)} to use your account?</h1>\n` +
    `<p>An application called <strong>${escapeHtml(request.application.name)}</strong> is requesting access to your account. It will be able to:</p>\n<ul>${scopes}</ul>\n` +
    `<p>You will be sent back to <code>${escapeHtml(request.redirectUri)}</code>.</p>\n` +
    (problem ? `<p class="error" id="error">${escapeHtml(problem)}</p>\n` : '') +
    `<form method="post" action="/oauth/authorize">\n${hidden}\n` +
    `<label for="login">Username or primary email</label><input type="text" id="login" name="login" autocomplete="username" required>\n` +
    `<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>\n` +
    `<button type="submit" name="decision" value="authorize">Authorize</button><button type="submit" name="decision" value="deny" formnovalidate>Deny</button>\n</form>`;
  sendPage(res, status, `Authorize ${request.application.name}`, body, request.redirectUri);
}

/** The redirect URI with these parameters added to its query (the out-of-band URI shows the code on a page instead). */
function redirectTo(res: Response, uri: string, params: Record<string, string | undefined>): void {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(key, value);
  res.status(302).set(NO_STORE).location(url.toString()).end();
}

function authorizeParams(req: Request): Record<string, string | undefined> {
  return Object.fromEntries(AUTHORIZE_PARAMS.map((name) => [name, stringParam(req, name)]));
}

/** An authorization request, or the answer to its problem (a page, or the client's redirect URI with `error`). */
async function checkedRequest(service: ApplicationsService, params: Record<string, string | undefined>): Promise<AuthorizationRequest | Reply> {
  try {
    return await service.authorizationRequest(params);
  } catch (error) {
    if (!(error instanceof AuthorizationProblem)) throw error;
    const { redirect } = error;
    if (!redirect || redirect.uri === NATIVE_REDIRECT_URI) return (res) => errorPage(res, error.error);
    return (res) => redirectTo(res, redirect.uri, { error: error.error.error, error_description: error.error.description, state: redirect.state });
  }
}

export function oauthHttp(app: App): Router {
  const router = Router();

  router.post(
    '/token',
    handler(app, async (service, req) => {
      const client = clientCredentials(req);
      const grantType = stringParam(req, 'grant_type');
      const scope = stringParam(req, 'scope');
      let token;
      switch (grantType) {
        case undefined:
        case '':
          throw oauthErrors.missing('grant_type');
        case 'password':
          token = await service.passwordGrant({ username: stringParam(req, 'username'), password: stringParam(req, 'password'), scope }, client);
          break;
        case 'authorization_code':
          token = await service.codeGrant({ code: stringParam(req, 'code'), redirectUri: stringParam(req, 'redirect_uri'), codeVerifier: stringParam(req, 'code_verifier') }, client);
          break;
        case 'refresh_token':
          token = await service.refreshGrant({ refreshToken: stringParam(req, 'refresh_token'), scope }, client);
          break;
        default:
          throw oauthErrors.unsupportedGrantType();
      }
      return (res) => res.status(200).set(NO_STORE).json(token);
    }),
  );

  router.get(
    '/token/info',
    handler(app, async (service, req) => {
      // The token as the API reads it (Authorization: Bearer, access_token); only OAuth tokens have info here.
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? stringParam(req, 'access_token');
      const info = await service.tokenInfo(bearer);
      return (res) => res.status(200).set(NO_STORE).json(info);
    }),
  );

  router.post(
    '/revoke',
    handler(app, async (service, req) => {
      await service.revoke({ token: stringParam(req, 'token'), tokenTypeHint: stringParam(req, 'token_type_hint') }, clientCredentials(req));
      return (res) => res.status(200).set(NO_STORE).json({});
    }),
  );

  router.get(
    '/authorize',
    handler(app, async (service, req) => {
      const params = authorizeParams(req);
      const request = await checkedRequest(service, params);
      if (typeof request === 'function') return request;
      return (res) => consentPage(res, request, params);
    }),
  );

  router.post(
    '/authorize',
    handler(app, async (service, req) => {
      const params = authorizeParams(req);
      const request = await checkedRequest(service, params);
      if (typeof request === 'function') return request;
      if (stringParam(req, 'decision') === 'deny') {
        const denied = oauthErrors.accessDenied();
        if (request.redirectUri === NATIVE_REDIRECT_URI) return (res) => errorPage(res, denied);
        return (res) => redirectTo(res, request.redirectUri, { error: denied.error, error_description: denied.description, state: request.state });
      }
      const login = stringParam(req, 'login');
      const password = stringParam(req, 'password');
      const user = login && password ? await service.userByPassword(login, password) : null;
      if (!user) return (res) => consentPage(res, request, params, 401, 'Invalid login or password.');
      const code = await service.createGrant(request, user.id);
      if (request.redirectUri === NATIVE_REDIRECT_URI) {
        return (res) =>
          sendPage(res, 200, 'Authorization code', `<h1>Authorization code</h1>\n<p>Copy this code and paste it into the application:</p>\n<p><code id="authorization_code">${escapeHtml(code)}</code></p>`);
      }
      return (res) => redirectTo(res, request.redirectUri, { code, state: request.state });
    }),
  );

  return router;
}

/** Rails' `expires_in 24.hours, public: true, must_revalidate: true, 'no-transform': true`. */
const DISCOVERY_CACHE = 'max-age=86400, public, must-revalidate, no-transform';

/**
 * GitLab's OpenID Connect discovery (JwksController over Doorkeeper::OpenidConnect's): the provider document at
 * `/.well-known/openid-configuration`, and the public keys that verify what the instance signs (its CI/CD ID
 * tokens) at `/oauth/discovery/keys` and `/-/jwks`. The document names only endpoints this server has: no
 * userinfo or introspection endpoint, as there is none here.
 */
export function discoveryHttp(app: App): Router {
  const router = Router();
  const base = app.config.externalUrl.replace(/\/+$/, '');
  const keys = (_req: Request, res: Response, next: NextFunction) => {
    ciSigningKey(app.db).then(
      (signing) => res.status(200).set('Cache-Control', DISCOVERY_CACHE).json({ keys: [signing.jwk] }),
      next,
    );
  };
  router.get('/oauth/discovery/keys', keys);
  router.get('/-/jwks', keys);
  router.get('/.well-known/openid-configuration', (_req, res) => {
    res.status(200).json({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/oauth/discovery/keys`,
      scopes_supported: OAUTH_SCOPES,
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment'],
      grant_types_supported: ['authorization_code', 'password', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claim_types_supported: ['normal'],
      code_challenge_methods_supported: ['plain', 'S256'],
    });
  });
  return router;
}
