/** A REST route is data: the adapter turns each one into an express handler. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** GitLab's keyset pagination of a list (`pagination=keyset`), and the offset limit that comes with it. */
export interface KeysetPagination {
  /** How a next page is named: `cursor` (GitLab's cursor-based lists: users, groups) or `id` (projects: `id_after`/`id_before`). */
  link: 'cursor' | 'id';
  /** The `order_by` values keyset pagination takes, each with the sorts it takes; others answer 405. */
  orders: Readonly<Record<string, readonly ('asc' | 'desc')[]>>;
  /** The route's `order_by` and `sort` when a request omits them (its Grape defaults). */
  defaultOrder: string;
  defaultSort: 'asc' | 'desc';
  /** Only anonymous callers page by keyset; signed-in ones get offset pages whatever they ask (GitLab's groups). */
  anonymousOnly?: boolean;
  /** The model the offset limit's 405 names (`Project`). */
  model: string;
  /**
   * Whether offset pages beyond the offset limit are refused (405), as for GitLab's enforced types; default true.
   * False: keyset is only offered (GitLab's Ci::Build, not in CursorBasedKeyset::ENFORCED_TYPES).
   */
  enforced?: boolean;
}

export interface RestRoute {
  method: HttpMethod;
  /** Path relative to `/api/v4`, with `:name` parameters. */
  path: string;
  /** Name of an operation in `graphql/rest/*.graphql`. */
  operation: string;
  /**
   * Variables the route itself sets, whatever the request says: one operation serving several routes (the notes
   * operations take the noteable's kind from here, and null for the parent `:id` does not name).
   */
  variables?: Readonly<Record<string, unknown>>;
  /** Success status; default 201 for POST, 200 otherwise. 204 sends no body. */
  status?: number;
  /** A key of the result whose presence makes the answer 200 instead (GitLab's `status :ok` for a cherry-pick's dry run). */
  okWhen?: string;
  /**
   * Dotted path inside `data` of an Int the operation answers as the success status, when GitLab's depends on the
   * outcome (the Merge Trains API's 201 for a merge request that boarded, 202 for one that boards later).
   */
  statusFrom?: string;
  /**
   * Dotted path inside `data` of a second answer: when it is not null, the route answers it with `202 Accepted`
   * instead of `result` (GitLab's `status 202` with Entities::NoteCommands for a note of quick actions alone).
   */
  accepted?: string;
  /** Dotted path of the response inside `data`; default the operation's only root field. */
  result?: string;
  /**
   * The result is a connection: send its `nodes` with GitLab's pagination headers. `without-count` pages as GitLab
   * pages commits: no `X-Total`, `X-Total-Pages` or `last` link, and a next page whenever this one is full.
   */
  paginate?: boolean | 'without-count';
  /** The list also pages by keyset, as GitLab's does; a cursor-linked one must select `pageInfo { hasNextPage endCursor }`. */
  keyset?: KeysetPagination;
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
  /**
   * GitLab's `before { authenticate! }` on the endpoint's API class (members, for one): an anonymous caller gets 401,
   * even where the GraphQL field it maps onto answers anonymous callers (GitLab's GraphQL does).
   */
  authenticate?: boolean;
  /**
   * GitLab's `route_setting :authentication, job_token_allowed: true`: a running job's CI job token authenticates
   * here, as its job's user, on the projects its allowlists reach (every field of the route's operation accepts it;
   * GraphQL's own fields accept one only where the SDL says `@scopes(jobToken: true)`).
   */
  jobToken?: boolean;
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
  return x.length - y.length || (a.method < b.method ? -1 : a.method > b.method ? 1 : 0);
}
