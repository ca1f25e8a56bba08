/**
 * The token a request carries, read and digested once per request (REST, GraphQL over HTTP, graphql-ws), and
 * turned into a viewer by the authenticator the composition root supplies.
 */
import { digestToken } from './secrets.js';
import type { Viewer } from './viewer.js';

export interface Credentials {
  /** SHA-256 of the token: tokens are looked up, and rate-limited, by digest. */
  digest: string;
}

interface CredentialSource {
  header(name: string): string | undefined;
  param(name: string): unknown;
}

/**
 * GitLab's precedence: `private_token` parameter, `PRIVATE-TOKEN` header, `access_token` parameter, then
 * `Authorization: Bearer`. Null when the request carries no token.
 */
export function readCredentials(source: CredentialSource): Credentials | null {
  const param = (name: string) => {
    const v = source.param(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(source.header('authorization') ?? '')?.[1];
  const token = param('private_token') ?? source.header('private-token') ?? param('access_token') ?? bearer;
  return token ? { digest: digestToken(token) } : null;
}

/** Turns a token digest into its viewer; UNAUTHENTICATED for an unknown, expired or revoked token. */
export type Authenticator = (digest: string) => Promise<Viewer>;

/** No token gives an anonymous viewer (null); a bad token is UNAUTHENTICATED, never downgraded to anonymous. */
export function resolveViewer(authenticate: Authenticator, credentials: Credentials | null): Promise<Viewer | null> {
  return credentials ? authenticate(credentials.digest) : Promise.resolve(null);
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
}
