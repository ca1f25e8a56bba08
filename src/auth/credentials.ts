/**
 * The token a request carries, read and digested once per request (REST, GraphQL over HTTP, graphql-ws), and
 * turned into a viewer by the authenticator the composition root supplies.
 */
import { isCoded, unauthenticated } from '../errors.js';
import { digestToken } from './secrets.js';
import type { Viewer } from './viewer.js';

export interface Credentials {
  /** SHA-256 of the token: tokens are looked up, and rate-limited, by digest. */
  digest: string;
  /** `token`: a personal (or project, group) access token; `job`: a CI job token (`JOB-TOKEN`, `job_token`). */
  kind: 'token' | 'job';
}

interface CredentialSource {
  header(name: string): string | undefined;
  param(name: string): unknown;
}

/**
 * GitLab's precedence: `private_token` parameter, `PRIVATE-TOKEN` header, `access_token` parameter,
 * `Authorization: Bearer`, then a CI job token (`job_token` parameter, `JOB-TOKEN` header). Null when the request
 * carries no token.
 */
export function readCredentials(source: CredentialSource): Credentials | null {
  const param = (name: string) => {
    const v = source.param(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(source.header('authorization') ?? '')?.[1];
  const token = param('private_token') ?? source.header('private-token') ?? param('access_token') ?? bearer;
  if (token) return { digest: digestToken(token), kind: 'token' };
  const job = param('job_token') ?? source.header('job-token');
  return job ? { digest: digestToken(job), kind: 'job' } : null;
}

/** A username and password from HTTP Basic authentication (git clients send nothing else). */
export interface BasicCredentials {
  login: string;
  password: string;
}

/** `Authorization: Basic …`, decoded; null when absent or not Basic; `malformed` when it does not decode to `login:password`. */
export function readBasicCredentials(header: string | undefined): BasicCredentials | null | 'malformed' {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]*)\s*$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return /^Basic\b/i.test(header ?? '') ? 'malformed' : null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1 || decoded.includes('\0')) return 'malformed';
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The login a CI job's git client uses, with the job's token as password (GitLab's `gitlab-ci-token`). */
export const CI_JOB_TOKEN_LOGIN = 'gitlab-ci-token';

/**
 * How a git client's Basic credentials are checked (GitLab's Gitlab::Auth.find_for_git_client): the login
 * `gitlab-ci-token` first tries `jobToken` when CI supplies one; then the password as a personal access token,
 * whatever the login. Passwords themselves are not accepted (GitLab refuses them for git when tokens are required).
 */
export interface GitClientAuthenticators {
  personalAccessToken: Authenticator;
  /** CI job tokens, tried for the login `gitlab-ci-token`. */
  jobToken?: Authenticator;
}

/** The viewer Basic credentials authenticate; UNAUTHENTICATED otherwise. */
export async function authenticateGitClient(authenticators: GitClientAuthenticators, credentials: BasicCredentials): Promise<Viewer> {
  if (!credentials.password) throw unauthenticated();
  const digest = digestToken(credentials.password);
  if (credentials.login === CI_JOB_TOKEN_LOGIN && authenticators.jobToken) {
    // Not a job token: try it as a personal access token, as GitLab's chain of checks does.
    const viewer = await authenticators.jobToken(digest).catch((error: unknown) => {
      if (isCoded(error) && error.extensions.code === 'UNAUTHENTICATED') return null;
      throw error;
    });
    if (viewer) return viewer;
  }
  return authenticators.personalAccessToken(digest);
}

/** Turns a token digest into its viewer; UNAUTHENTICATED for an unknown, expired or revoked token. */
export type Authenticator = (digest: string) => Promise<Viewer>;

/** Turns credentials of either kind into their viewer. */
export type CredentialsAuthenticator = (credentials: Credentials) => Promise<Viewer>;

/** One authenticator for both kinds of credentials. */
export function byKind(tokens: Authenticator, jobTokens: Authenticator): CredentialsAuthenticator {
  return (credentials) => (credentials.kind === 'job' ? jobTokens(credentials.digest) : tokens(credentials.digest));
}

/** No token gives an anonymous viewer (null); a bad token is UNAUTHENTICATED, never downgraded to anonymous. */
export function resolveViewer(authenticate: CredentialsAuthenticator, credentials: Credentials | null): Promise<Viewer | null> {
  return credentials ? authenticate(credentials) : Promise.resolve(null);
}

/**
 * Bus topic: credentials stopped working (a token revoked; later a user blocked). Long-lived connections that
 * authenticated with them close at once, on every replica.
 */
export const CREDENTIALS_REVOKED = 'credentials.revoked';

/**
 * Bus topic: what a viewer carries (admin, username, state, group creation) changed for `userId`: remembered
 * viewers of that user are dropped (src/auth/credential-cache.ts). Whatever changes a users row publishes it.
 */
export const VIEWER_CHANGED = 'viewer.changed';

export interface CredentialsRevoked {
  tokenId?: number;
  userId?: number;
  /** OAuth access tokens revoked (src/modules/applications). */
  oauthTokenIds?: number[];
  /** Every OAuth access token of this application (the application was deleted). */
  oauthApplicationId?: number;
}

/** Whether the news of CREDENTIALS_REVOKED (or VIEWER_CHANGED) concerns a viewer. */
export function concerns(news: CredentialsRevoked, viewer: Viewer): boolean {
  if (viewer.id === news.userId) return true;
  if (viewer.oauth) return !!news.oauthTokenIds?.includes(viewer.oauth.tokenId) || (news.oauthApplicationId !== undefined && viewer.oauth.applicationId === news.oauthApplicationId);
  return news.tokenId !== undefined && viewer.tokenId === news.tokenId;
}

/**
 * Personal access tokens first, then `fallback` (OAuth access tokens) for a digest no personal access token has:
 * only unknown tokens pay for the second lookup.
 */
export function orElse(first: Authenticator, fallback: Authenticator): Authenticator {
  return async (digest) => {
    try {
      return await first(digest);
    } catch (error) {
      if (isCoded(error) && error.extensions.code === 'UNAUTHENTICATED' && !error.extensions.tokenError) return fallback(digest);
      throw error;
    }
  };
}
