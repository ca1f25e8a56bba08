/** Who a request acts as. `null` is an anonymous caller; services decide what anonymous callers may do. */
export interface Viewer {
  id: number;
  username: string;
  admin: boolean;
  external: boolean;
  bot: boolean;
  /** ID of the token that authenticated the request. */
  tokenId: number;
  scopes: readonly string[];
}

/** Scopes that let a token call any route; `read_api` allows reads only. */
export const WRITE_SCOPES = ['api'] as const;
export const READ_SCOPES = ['api', 'read_api'] as const;

export function hasScope(viewer: Viewer, accepted: readonly string[]): boolean {
  return viewer.scopes.some((s) => accepted.includes(s));
}

interface CredentialSource {
  header(name: string): string | undefined;
  param(name: string): unknown;
}

/**
 * The token a request carries, in GitLab's precedence: `private_token` parameter, `PRIVATE-TOKEN` header,
 * `access_token` parameter, then `Authorization: Bearer`.
 */
export function extractToken(source: CredentialSource): string | null {
  const param = (name: string) => {
    const v = source.param(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(source.header('authorization') ?? '')?.[1];
  return param('private_token') ?? source.header('private-token') ?? param('access_token') ?? bearer ?? null;
}
