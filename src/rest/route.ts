/** A REST route is data: the adapter turns each one into an express handler. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestRoute {
  method: HttpMethod;
  /** Path relative to `/api/v4`, with `:name` parameters. */
  path: string;
  /** Name of an operation in `graphql/rest/*.graphql`. */
  operation: string;
  /** Success status; default 201 for POST, 200 otherwise. 204 sends no body. */
  status?: number;
  /** Dotted path of the response inside `data`; default the operation's only root field. */
  result?: string;
  /**
   * The result is a connection: send its `nodes` with GitLab's pagination headers. `without-count` pages as GitLab
   * pages commits: no `X-Total`, `X-Total-Pages` or `last` link, and a next page whenever this one is full.
   */
  paginate?: boolean | 'without-count';
  /** Response headers from keys of the result (`{ 'X-Gitlab-Blob-Id': 'blob_id' }`), as GitLab's files API sends them. */
  headers?: Readonly<Record<string, string>>;
  /** Send the result's bytes, not JSON: `content` (base64) with `content_type` as Content-Type. */
  raw?: boolean;
  /** Resource named in `404 <Resource> Not Found` when a step of `result` is null. */
  notFound?: string;
  /**
   * A null result means the caller is anonymous: 401 (`GET /user`, whose GraphQL field is null when signed out); or,
   * `send`, is the answer itself: `null` (GitLab's `break` in an endpoint, as blocking a blocked user answers).
   */
  whenNull?: 'unauthenticated' | 'send';
}

function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/**
 * Route precedence, explicit rather than by file order: compared segment by segment, a static segment comes
 * before a parameter (`/personal_access_tokens/self` before `/personal_access_tokens/:id`), then by text.
 */
export function comparePrecedence(a: RestRoute, b: RestRoute): number {
  const x = segments(a.path);
  const y = segments(b.path);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const xp = x[i].startsWith(':');
    const yp = y[i].startsWith(':');
    if (xp !== yp) return xp ? 1 : -1;
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length || a.method.localeCompare(b.method);
}
