/**
 * Instance-wide OAuth applications (GitLab's `lib/api/applications.rb` over Doorkeeper's oauth_applications) and
 * the OAuth 2 provider that makes them usable: authorization codes (with PKCE), access and refresh tokens, in
 * Doorkeeper's rules as GitLab configures it (tokens live 2 hours, codes 10 minutes and once, refresh rotates).
 *
 * Every secret is stored as its SHA-256 digest: client secrets (`gloas-…`, shown on creation and renewal only),
 * codes, access and refresh tokens. Renewing a secret does what Doorkeeper's `renew_secret` does in GitLab: the
 * old secret stops authenticating the client (no more codes exchanged or tokens refreshed with it), while access
 * tokens already issued keep working until they expire or are revoked. Deleting an application deletes its tokens.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { CREDENTIALS_REVOKED, type CredentialsRevoked } from '../../auth/credentials.js';
import { TOKEN_SCOPES } from '../../auth/scopes.js';
import { digestToken, verifyPassword } from '../../auth/secrets.js';
import { argumentRefused, invalid, notFound } from '../../errors.js';
import { equalsIgnoringCase } from '../../db/text.js';
import type { ServiceBase } from '../module.js';
import { OAuthError, oauthErrors } from './oauth-errors.js';

export type ApplicationRow = Awaited<ReturnType<PrismaClient['oauthApplication']['findUniqueOrThrow']>>;
/** An application, with its clear secret when it was just created or renewed. */
export type IssuedApplication = ApplicationRow & { secret?: string };
export type AccessTokenRow = Awaited<ReturnType<PrismaClient['oauthAccessToken']['findUniqueOrThrow']>>;

/** The scopes GitLab's Doorkeeper knows (`Gitlab::Auth.all_available_scopes` and the OpenID Connect ones). */
export const OAUTH_SCOPES: readonly string[] = [...TOKEN_SCOPES, 'openid', 'profile', 'email'];
/** Doorkeeper's default scopes in GitLab (`Gitlab::Auth::DEFAULT_SCOPES`): what a password grant gets without `scope`. */
const DEFAULT_SCOPES = ['api'];
/** GitLab's prefix of application secrets. */
export const SECRET_PREFIX = 'gloas-';
/** Doorkeeper's `access_token_expires_in` in GitLab. */
export const ACCESS_TOKEN_LIFETIME_S = 7200;
/** Doorkeeper's `authorization_code_expires_in`. */
export const CODE_LIFETIME_S = 600;
const MAX_NAME = 255;
const MAX_REDIRECT_URI = 2000;
/** GitLab's `forbid_redirect_uri`: schemes that would run in the browser. */
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript']);
/** The out-of-band redirect URI (the code is shown to the user rather than sent anywhere). */
export const NATIVE_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';
/** Applications listed at most (GitLab's list is not paginated). */
const MAX_LISTED = 10_000;

/** Doorkeeper's UniqueToken: 32 random bytes, hex. */
const randomToken = () => randomBytes(32).toString('hex');

function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The scopes in a space-separated string, once each. */
export function splitScopes(text: string): string[] {
  return [...new Set(text.split(/\s+/).filter(Boolean))];
}

/** Doorkeeper's RedirectUriValidator, with GitLab's forbidden schemes: the problem with one URI, or null. */
function redirectUriProblem(uri: string): string | null {
  if (uri === NATIVE_REDIRECT_URI) return null;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase();
  if (!scheme) return 'must be an absolute URI.';
  if (FORBIDDEN_SCHEMES.has(scheme)) return 'is forbidden by the server.';
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'must be a valid URI.';
  }
  if ((scheme === 'http' || scheme === 'https') && !parsed.hostname) return 'must be a valid URI.';
  if (uri.includes('#')) return 'cannot contain a fragment.';
  return null;
}

/** The redirect URIs of an application (Doorkeeper keeps several, separated by new lines). */
export function redirectUris(app: Pick<ApplicationRow, 'redirectUri'>): string[] {
  return app.redirectUri.split(/\s+/).filter(Boolean);
}

export interface ApplicationInput {
  name: string;
  redirectUri: string;
  scopes: string;
  confidential?: boolean | null;
}

/** What a client sent to authenticate itself: `client_id`/`client_secret` parameters or HTTP Basic. */
export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** An issued access token, in Doorkeeper's token response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
}

/** An authorization request (`GET /oauth/authorize`), checked. */
export interface AuthorizationRequest {
  application: ApplicationRow;
  redirectUri: string;
  scopes: string[];
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'plain' | 'S256';
}

/** A problem with an authorization request: shown on a page (`redirect: false`) or sent back to the client. */
export class AuthorizationProblem extends Error {
  constructor(
    readonly error: OAuthError,
    /** Where the error goes back to, with `state`, once the redirect URI is known to be the client's. */
    readonly redirect: { uri: string; state?: string } | null,
  ) {
    super(error.description);
  }
}

export interface TokenInfo {
  resource_owner_id: number;
  scope: string[];
  expires_in: number;
  application: { uid: string | null };
  created_at: number;
  scopes: string[];
  expires_in_seconds: number;
}

const expiresAt = (row: { createdAt: Date; expiresIn: number }) => row.createdAt.getTime() + row.expiresIn * 1000;

export class ApplicationsService {
  constructor(private readonly base: ServiceBase) {}

  // --- The Applications API (administrators) -------------------------------------------------------------------

  /** Instance-wide applications, by ID (GitLab's list is not paginated). */
  async list(): Promise<ApplicationRow[]> {
    await this.base.access.authorize('read_oauth_applications', null);
    return this.base.db.oauthApplication.findMany({ orderBy: { id: 'asc' }, take: MAX_LISTED });
  }

  async create(input: ApplicationInput): Promise<IssuedApplication> {
    await this.base.access.authorize('create_oauth_application', null);
    const scopes = this.validScopes(input.scopes);
    const fields: Record<string, string[]> = {};
    if (!input.name.trim()) fields.name = ["can't be blank"];
    else if (input.name.length > MAX_NAME) fields.name = [`is too long (maximum is ${MAX_NAME} characters)`];
    const uris = input.redirectUri.split(/\s+/).filter(Boolean);
    if (!uris.length) fields.redirectUri = ["can't be blank"];
    else if (input.redirectUri.length > MAX_REDIRECT_URI) fields.redirectUri = [`is too long (maximum is ${MAX_REDIRECT_URI} characters)`];
    else {
      const problem = uris.map(redirectUriProblem).find((p) => p !== null);
      if (problem) fields.redirectUri = [problem];
    }
    if (Object.keys(fields).length) throw invalid(fields);
    const secret = `${SECRET_PREFIX}${randomToken()}`;
    const row = await this.base.db.oauthApplication.create({
      data: { name: input.name, redirectUri: uris.join('\n'), scopes, confidential: input.confidential ?? true, uid: randomToken(), secretDigest: digestToken(secret) },
    });
    return { ...row, secret };
  }

  /** `scopes` is required and not blank, each of them one the server knows (Doorkeeper's scopes_match_configured). */
  private validScopes(text: string): string[] {
    const scopes = splitScopes(text);
    if (!scopes.length) throw argumentRefused('scopes', 'is empty');
    if (scopes.some((s) => !OAUTH_SCOPES.includes(s))) throw invalid({ scopes: ["doesn't match configured on the server."] });
    return scopes;
  }

  private async find(id: number): Promise<ApplicationRow> {
    const row = await this.base.db.oauthApplication.findUnique({ where: { id } });
    if (!row) throw notFound('Application');
    return row;
  }

  /** A new secret: the old one stops authenticating the client at once; issued tokens keep working (Doorkeeper's renew_secret). */
  async renewSecret(id: number): Promise<IssuedApplication> {
    await this.base.access.authorize('renew_oauth_application_secret', { id });
    await this.find(id);
    const secret = `${SECRET_PREFIX}${randomToken()}`;
    const row = await this.base.db.oauthApplication.update({ where: { id }, data: { secretDigest: digestToken(secret) } });
    return { ...row, secret };
  }

  /** Deletes the application with its codes and tokens, which stop working at once on every replica. */
  async destroy(id: number): Promise<ApplicationRow> {
    await this.base.access.authorize('destroy_oauth_application', { id });
    const row = await this.find(id);
    return this.base.db.$transaction(async (tx) => {
      await tx.oauthApplication.delete({ where: { id } });
      const news: CredentialsRevoked = { oauthApplicationId: id };
      await this.base.publish(CREDENTIALS_REVOKED, news, tx);
      return row;
    });
  }

  // --- OAuth 2 (the /oauth endpoints) ---------------------------------------------------------------------------

  /**
   * The client the credentials authenticate (Doorkeeper's Client.authenticate); null when they name none. A
   * confidential client needs its current secret; a public one may omit it, but a wrong one fails.
   */
  async authenticateClient(credentials: ClientCredentials): Promise<ApplicationRow | null> {
    const { clientId, clientSecret } = credentials;
    if (!clientId) {
      if (clientSecret) throw oauthErrors.invalidClient();
      return null;
    }
    const app = await this.base.db.oauthApplication.findUnique({ where: { uid: clientId } });
    if (!app) throw oauthErrors.invalidClient();
    if (!clientSecret) {
      if (app.confidential) throw oauthErrors.invalidClient();
      return app;
    }
    if (!digestsEqual(digestToken(clientSecret), app.secretDigest)) throw oauthErrors.invalidClient();
    return app;
  }

  /** Requested scopes within what is allowed (Doorkeeper's ScopeChecker); the default when none are requested. */
  private grantedScopes(requested: string | undefined, allowed: readonly string[], fallback: readonly string[]): string[] {
    const scopes = requested === undefined || !requested.trim() ? [...fallback] : splitScopes(requested);
    if (!scopes.length || scopes.some((s) => !allowed.includes(s) || !OAUTH_SCOPES.includes(s))) throw oauthErrors.invalidScope();
    return scopes;
  }

  private async issue(db: Prisma.TransactionClient | PrismaClient, data: { applicationId: number | null; userId: number; scopes: string[] }): Promise<TokenResponse> {
    const accessToken = randomToken();
    const refreshToken = randomToken();
    const row = await db.oauthAccessToken.create({
      data: {
        applicationId: data.applicationId,
        resourceOwnerId: data.userId,
        scopes: data.scopes,
        digest: digestToken(accessToken),
        refreshTokenDigest: digestToken(refreshToken),
        expiresIn: ACCESS_TOKEN_LIFETIME_S,
      },
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      refresh_token: refreshToken,
      scope: row.scopes.join(' '),
      created_at: Math.floor(row.createdAt.getTime() / 1000),
    };
  }

  /** The active user with this username or e-mail address and password (Gitlab::Auth.find_with_user_password); null otherwise. */
  async userByPassword(login: string, password: string): Promise<{ id: number } | null> {
    const user = await this.base.db.user.findFirst({
      where: { OR: [{ username: equalsIgnoringCase(login) }, { email: equalsIgnoringCase(login) }] },
      select: { id: true, state: true, passwordDigest: true },
    });
    // Checked even when there is no such user, so the answer takes as long either way.
    const matches = await verifyPassword(password, user?.passwordDigest ?? null);
    return user && matches && user.state === 'active' ? { id: user.id } : null;
  }

  /** `grant_type=password`: the user's own credentials; client credentials are optional (GitLab skips them for this grant). */
  async passwordGrant(params: { username?: string; password?: string; scope?: string }, client: ClientCredentials): Promise<TokenResponse> {
    if (!params.username) throw oauthErrors.missing('username');
    if (!params.password) throw oauthErrors.missing('password');
    const app = await this.authenticateClient(client);
    const user = await this.userByPassword(params.username, params.password);
    if (!user) throw oauthErrors.invalidGrant();
    const scopes = this.grantedScopes(params.scope, app ? app.scopes : OAUTH_SCOPES, app ? DEFAULT_SCOPES.filter((s) => app.scopes.includes(s)) : DEFAULT_SCOPES);
    return this.issue(this.base.db, { applicationId: app?.id ?? null, userId: user.id, scopes });
  }

  /** `grant_type=authorization_code`: a code issued to this client, once, for the same redirect URI, with its PKCE verifier. */
  async codeGrant(params: { code?: string; redirectUri?: string; codeVerifier?: string }, client: ClientCredentials): Promise<TokenResponse> {
    if (!params.code) throw oauthErrors.missing('code');
    const app = await this.authenticateClient(client);
    if (!app) throw oauthErrors.invalidClient();
    const { db } = this.base;
    const grant = await db.oauthAccessGrant.findUnique({ where: { codeDigest: digestToken(params.code) } });
    if (!grant || grant.applicationId !== app.id || grant.revokedAt || expiresAt(grant) <= Date.now()) throw oauthErrors.invalidGrant();
    if (params.redirectUri !== grant.redirectUri) throw oauthErrors.invalidGrant();
    if (grant.codeChallenge) {
      if (!params.codeVerifier || !verifierMatches(params.codeVerifier, grant.codeChallenge, grant.codeChallengeMethod)) throw oauthErrors.invalidGrant();
    } else if (params.codeVerifier) throw oauthErrors.invalidGrant();
    return db.$transaction(async (tx) => {
      // Single use, even when two requests race with the same code: only one of them revokes it.
      const used = await tx.oauthAccessGrant.updateMany({ where: { id: grant.id, revokedAt: null }, data: { revokedAt: new Date() } });
      if (used.count !== 1) throw oauthErrors.invalidGrant();
      return this.issue(tx, { applicationId: app.id, userId: grant.resourceOwnerId, scopes: grant.scopes });
    });
  }

  /**
   * `grant_type=refresh_token`: a new access and refresh token of the same user, application and scopes (or fewer);
   * the old pair is revoked at once (Doorkeeper without `revoke_previous_refresh_token_on_use`).
   */
  async refreshGrant(params: { refreshToken?: string; scope?: string }, client: ClientCredentials): Promise<TokenResponse> {
    if (!params.refreshToken) throw oauthErrors.missing('refresh_token');
    const app = await this.authenticateClient(client);
    const { db } = this.base;
    const old = await db.oauthAccessToken.findUnique({ where: { refreshTokenDigest: digestToken(params.refreshToken) } });
    if (!old || old.revokedAt) throw oauthErrors.invalidGrant();
    // A token of an application is refreshed by that application only (Doorkeeper's client_match).
    if (old.applicationId !== null && old.applicationId !== app?.id) throw oauthErrors.invalidGrant();
    if (old.applicationId === null && app) throw oauthErrors.invalidGrant();
    const scopes = this.grantedScopes(params.scope, old.scopes, old.scopes);
    return db.$transaction(async (tx) => {
      const revoked = await tx.oauthAccessToken.updateMany({ where: { id: old.id, revokedAt: null }, data: { revokedAt: new Date() } });
      if (revoked.count !== 1) throw oauthErrors.invalidGrant();
      const news: CredentialsRevoked = { oauthTokenIds: [old.id] };
      await this.base.publish(CREDENTIALS_REVOKED, news, tx);
      return this.issue(tx, { applicationId: old.applicationId, userId: old.resourceOwnerId, scopes });
    });
  }

  /**
   * Checks an authorization request in Doorkeeper's order. An unknown client or a redirect URI that is not exactly
   * one of the client's is shown to the user, never redirected to; later problems go back to the client.
   */
  async authorizationRequest(params: Record<string, string | undefined>): Promise<AuthorizationRequest> {
    const clientId = params.client_id;
    if (!clientId) throw new AuthorizationProblem(oauthErrors.missing('client_id'), null);
    const application = await this.base.db.oauthApplication.findUnique({ where: { uid: clientId } });
    if (!application) throw new AuthorizationProblem(oauthErrors.invalidClient(), null);
    const uris = redirectUris(application);
    // Without redirect_uri, the client's only one (RFC 6749 §3.1.2.3).
    const redirectUri = params.redirect_uri ?? (uris.length === 1 ? uris[0] : undefined);
    if (!redirectUri || !uris.includes(redirectUri)) throw new AuthorizationProblem(oauthErrors.invalidRedirectUri(), null);
    const back = { uri: redirectUri, state: params.state };
    if (!params.response_type) throw new AuthorizationProblem(oauthErrors.missing('response_type'), back);
    if (params.response_type !== 'code') throw new AuthorizationProblem(oauthErrors.unsupportedResponseType(), back);
    let scopes: string[];
    try {
      // Without `scope`, what the application was registered with.
      scopes = this.grantedScopes(params.scope, application.scopes, application.scopes);
    } catch (error) {
      throw new AuthorizationProblem(error as OAuthError, back);
    }
    const method = params.code_challenge_method ?? (params.code_challenge ? 'plain' : undefined);
    if (params.code_challenge_method && !params.code_challenge) throw new AuthorizationProblem(oauthErrors.missing('code_challenge'), back);
    if (method !== undefined && method !== 'plain' && method !== 'S256') throw new AuthorizationProblem(oauthErrors.invalidCodeChallengeMethod(), back);
    return { application, redirectUri, scopes, state: params.state, codeChallenge: params.code_challenge, codeChallengeMethod: method };
  }

  /** The code of an authorization the user gave: single use, valid CODE_LIFETIME_S. */
  async createGrant(request: AuthorizationRequest, userId: number): Promise<string> {
    const code = randomToken();
    await this.base.db.oauthAccessGrant.create({
      data: {
        applicationId: request.application.id,
        resourceOwnerId: userId,
        codeDigest: digestToken(code),
        redirectUri: request.redirectUri,
        scopes: request.scopes,
        expiresIn: CODE_LIFETIME_S,
        codeChallenge: request.codeChallenge ?? null,
        codeChallengeMethod: request.codeChallengeMethod ?? null,
      },
    });
    return code;
  }

  /** `GET /oauth/token/info`: the token's owner, scopes and remaining lifetime, for a token that works. */
  async tokenInfo(token: string | undefined): Promise<TokenInfo> {
    const row = token ? await this.base.db.oauthAccessToken.findUnique({ where: { digest: digestToken(token) }, include: { application: { select: { uid: true } } } }) : null;
    if (!row) throw oauthErrors.invalidToken('unknown');
    if (row.revokedAt) throw oauthErrors.invalidToken('revoked');
    const left = Math.floor((expiresAt(row) - Date.now()) / 1000);
    if (left <= 0) throw oauthErrors.invalidToken('expired');
    const created = Math.floor(row.createdAt.getTime() / 1000);
    return { resource_owner_id: row.resourceOwnerId, scope: row.scopes, expires_in: left, application: { uid: row.application?.uid ?? null }, created_at: created, scopes: row.scopes, expires_in_seconds: left };
  }

  /**
   * `POST /oauth/revoke` (RFC 7009, as Doorkeeper answers it): an access or refresh token; unknown tokens are
   * revoked as far as the caller can tell. A confidential application's token needs that application's credentials.
   */
  async revoke(params: { token?: string; tokenTypeHint?: string }, client: ClientCredentials): Promise<void> {
    if (!params.token) throw oauthErrors.missing('token');
    const app = client.clientId || client.clientSecret ? await this.authenticateClient(client) : null;
    const { db } = this.base;
    const digest = digestToken(params.token);
    const byRefresh = params.tokenTypeHint === 'refresh_token';
    const lookups = byRefresh ? [{ refreshTokenDigest: digest }, { digest }] : [{ digest }, { refreshTokenDigest: digest }];
    let row: (AccessTokenRow & { application: ApplicationRow | null }) | null = null;
    for (const where of lookups) {
      row = await db.oauthAccessToken.findUnique({ where: where as Prisma.OauthAccessTokenWhereUniqueInput, include: { application: true } });
      if (row) break;
    }
    if (!row || row.revokedAt) return;
    if (row.application?.confidential && app?.id !== row.application.id) throw oauthErrors.unauthorizedRevoke();
    await db.$transaction(async (tx) => {
      const revoked = await tx.oauthAccessToken.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt: new Date() } });
      if (!revoked.count) return;
      const news: CredentialsRevoked = { oauthTokenIds: [row.id] };
      await this.base.publish(CREDENTIALS_REVOKED, news, tx);
    });
  }
}

/** RFC 7636: the verifier's S256 (base64url of its SHA-256) or plain value against the challenge, in constant time. */
export function verifierMatches(verifier: string, challenge: string, method: string | null): boolean {
  const computed = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  const a = Buffer.from(computed);
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}
