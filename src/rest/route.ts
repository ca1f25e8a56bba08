/** A REST route is data: the adapter turns each one into an express handler. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

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
  /** The result is a connection: send its `nodes` with GitLab's pagination headers. */
  paginate?: boolean;
  /** Resource named in `404 <Resource> Not Found` when a step of `result` is null. */
  notFound?: string;
  /** Anonymous callers get 401 (GitLab's `authenticate!`). */
  authenticate?: boolean;
  /** Token scopes accepted besides `api` (and `read_api` for GET). */
  scopes?: readonly string[];
}
