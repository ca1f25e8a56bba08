/**
 * The closed set of error codes. Code throws only through these helpers; the same table gives each code's
 * REST status and body, so the REST adapter only looks them up and GraphQL clients see `extensions.code`.
 */
import { GraphQLError } from 'graphql';
import { isDriverAdapterError } from '@prisma/driver-adapter-utils';

export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'INSUFFICIENT_SCOPE'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'NOT_MODIFIED'
  | 'MOVED_PERMANENTLY'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE'
  | 'MALFORMED_REQUEST'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'LIMIT_EXCEEDED'
  | 'SERVICE_UNAVAILABLE'
  | 'TIMEOUT'
  | 'INTERNAL_SERVER_ERROR';

/**
 * A problem with arguments, named as the GraphQL schema names them (`accessLevel`): `text` follows the names, as
 * Grape words it (`accessLevel does not have a valid value`, `userId, username are mutually exclusive`). REST
 * renders the same problem with its parameter names (`access_level does not have a valid value`).
 */
export interface ArgumentProblem {
  arguments: string[];
  text: string;
}

export interface ErrorExtensions {
  code: ErrorCode;
  /** BAD_USER_INPUT about request parameters, already in REST's words (the adapter's own coercion): `name is missing`. */
  params?: string[];
  /** BAD_USER_INPUT about arguments, by their GraphQL names. */
  problems?: ArgumentProblem[];
  /** BAD_USER_INPUT about a record's fields, by their GraphQL names: `{ name: ['is too long'] }`. */
  fields?: Record<string, string[]>;
  /** With `fields`: GitLab words this record's failure as `Failed to save <record> {:field=>[…]}`. */
  failedToSave?: string;
  /** GitLab's `bad_request!("<Record> #{errors.messages}")` (notes): REST answers `400 Bad request - <Record> {…}`. */
  badRecord?: string;
  /** With `fields`: the words GitLab puts before the record's errors instead (`Failed to create milestone`). */
  failure?: string;
  /** NOT_FOUND: the resource named in `404 <Resource> Not Found`. */
  resource?: string;
  /** BAD_USER_INPUT or UNPROCESSABLE answered as `{"message": {"error": "<text>"}}` (serviceError). */
  errorObject?: boolean;
  /**
   * BAD_USER_INPUT or UNAUTHENTICATED answered as `{"message": {...messageBody, "message": "<text>"}}`: GitLab's
   * `render_api_error!(response.merge!(message: …), status)` (the review apps cleanup's refusals).
   */
  messageBody?: Record<string, unknown>;
  /** FORBIDDEN: the reason after `403 Forbidden - `. */
  reason?: string;
  /** FORBIDDEN for the object's state, not the caller's rights (stateForbids). */
  state?: boolean;
  /** FORBIDDEN raised as GitLab's ResourceNotAvailable in words of its own (featureUnavailable): kept top-level as worded. */
  ownWords?: boolean;
  /** FORBIDDEN of the runner protocol: the job's status, sent as `Job-Status` (GitLab's job_forbidden!). */
  jobStatus?: string;
  /** INSUFFICIENT_SCOPE: the scopes the operation accepts. */
  scopes?: string[];
  /** UNAUTHENTICATED: token-specific OAuth error description. */
  tokenError?: string;
  /** RATE_LIMITED: seconds until the caller's window opens again; SERVICE_UNAVAILABLE: seconds to wait before retrying. */
  retryAfter?: number;
  /** MOVED_PERMANENTLY: where the resource is now. */
  location?: string;
  /** METHOD_NOT_ALLOWED written by Grape's own `error!(text)`: the body is `{"error": …}` rather than `{"message": …}`. */
  errorKey?: boolean;
  /** BAD_USER_INPUT of a service's refusal with GitLab's `error_code` beside the message (a cherry-pick's `conflict`). */
  errorCode?: string;
  /** With `errorCode`: the request was a dry run (`"dry_run": "error"` in the body). */
  dryRun?: boolean;
  /**
   * The body's message as a list of messages (BAD_USER_INPUT, CONFLICT, UNPROCESSABLE): GitLab's
   * `render_api_error!(errors.full_messages, 400)` and `conflict!(errors[:validate_branches])`, `{"message": [...]}`.
   */
  listed?: string[];
  /**
   * BAD_USER_INPUT refused in other words by GitLab's GraphQL mutation than by its REST endpoint: what a relay
   * mutation's payload `errors` says (REST answers the message).
   */
  payload?: string;
}

function coded(message: string, extensions: ErrorExtensions): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions } });
}

/** Problems in words, each argument named by `name`. */
export function describeProblems(problems: readonly ArgumentProblem[], name: (argument: string) => string = (a) => a): string {
  return problems.map((p) => (p.arguments.length ? `${p.arguments.map(name).join(', ')} ${p.text}` : p.text)).join(', ');
}

function problems(list: ArgumentProblem[]): GraphQLError {
  return coded(describeProblems(list), { code: 'BAD_USER_INPUT', problems: list });
}

/** GitLab's Gitlab::Graphql::Errors::ArgumentError: a problem with the arguments together, in the resolver's own words. */
export const argumentError = (text: string) => problems([{ arguments: [], text }]);
/** Grape's `requires`: each argument is missing. */
export const missing = (...args: string[]) => problems(args.map((a) => ({ arguments: [a], text: 'is missing' })));
/** Grape's `values:`: the argument's value is not one of those allowed. */
export const invalidArgument = (arg: string) => problems([{ arguments: [arg], text: 'does not have a valid value' }]);
/** An argument whose value fails a Grape validator with its own words (`file_path should be a valid file path`). */
export const argumentRefused = (arg: string, text: string) => problems([{ arguments: [arg], text }]);
/** Grape's `exactly_one_of`, when none is given. */
export const exactlyOneOf = (...args: string[]) => problems([{ arguments: args, text: 'are missing, exactly one parameter must be provided' }]);
/** Grape's `at_least_one_of`. */
export const atLeastOneOf = (...args: string[]) => problems([{ arguments: args, text: 'are missing, at least one parameter must be provided' }]);
/** Grape's `mutually_exclusive`. */
export const mutuallyExclusive = (...args: string[]) => problems([{ arguments: args, text: 'are mutually exclusive' }]);
/** REST's own parameter errors (the adapter's coercion), already in Grape's words. */
export const invalidParams = (messages: string[]) => coded(messages.join(', '), { code: 'BAD_USER_INPUT', params: messages });
/** A record that failed validation, by field (GraphQL names): REST answers `{"message": {"<field>": [...]}}`. */
export const invalid = (fields: Record<string, string[]>, options: { failedToSave?: string; badRecord?: string; failure?: string } = {}) =>
  coded(Object.entries(fields).map(([f, m]) => `${f} ${m.join(', ')}`).join('; '), { code: 'BAD_USER_INPUT', fields, ...options });
export const unauthenticated = (tokenError?: string) =>
  coded(tokenError ?? '401 Unauthorized', { code: 'UNAUTHENTICATED', ...(tokenError ? { tokenError } : {}) });
export const forbidden = (reason?: string) =>
  coded(reason ? `403 Forbidden - ${reason}` : '403 Forbidden', { code: 'FORBIDDEN', ...(reason ? { reason } : {}) });
/**
 * A 403 for the object's state rather than the caller's rights (`Job is not retryable`, `Runner is locked`): REST says
 * `403 Forbidden - <reason>`, and a relay mutation reports the reason in its payload's `errors`, as GitLab's services
 * answer it there, where a `forbidden()` is raised as GitLab's ResourceNotAvailable.
 */
export const stateForbids = (reason: string) => coded(`403 Forbidden - ${reason}`, { code: 'FORBIDDEN', reason, state: true });
/** GitLab's job_forbidden!: 403 with the job's status in `Job-Status`, so a runner stops working on a job that stopped. */
export const jobForbidden = (jobStatus: string, reason: string) => coded(`403 Forbidden - ${reason}`, { code: 'FORBIDDEN', reason, jobStatus });
/**
 * GitLab's ResourceNotAvailable raised with a message of its own (`Feature unavailable for provided issue`): a
 * mutation's top-level error in those words; REST answers `403 Forbidden - <message>`.
 */
export const featureUnavailable = (message: string) => coded(message, { code: 'FORBIDDEN', reason: message, ownWords: true });
/** GitLab's `render_api_error!(message, 403)`: a refusal in a service's own words, without the `403 Forbidden` prefix. */
export const refused = (message: string) => coded(message, { code: 'FORBIDDEN' });
export const insufficientScope = (scopes: string[]) =>
  coded('The request requires higher privileges than provided by the access token.', { code: 'INSUFFICIENT_SCOPE', scopes });
export const notFound = (resource?: string) =>
  coded(resource ? `404 ${resource} Not Found` : '404 Not Found', { code: 'NOT_FOUND', ...(resource ? { resource } : {}) });
/** With `fields`, GitLab's `conflict!(record.errors.messages)`: the record's messages as the body (forks). */
export const conflict = (message: string, fields?: Record<string, string[]>) => coded(message, { code: 'CONFLICT', ...(fields ? { fields } : {}) });
/**
 * GitLab's answer with one attribute's error messages as the body (merge requests' `handle_merge_request_errors!`):
 * 409 `{"message": ["<text>"]}` for `validate_branches`, 422 for `branch_conflict` and `base`.
 */
export const attributeError = (message: string, status: 409 | 422) => listedError([message], status);
/** Nothing to change (GitLab's not_modified!: starring a starred project): REST's 304, without a body. */
export const notModified = () => coded('304 Not Modified', { code: 'NOT_MODIFIED' });
/** GitLab's answer to an ActiveRecord::RecordNotFound its API rescues (`find_by!`): `404 Not found`, lower-case `f`. */
export const recordNotFound = () => coded('404 Not found', { code: 'NOT_FOUND' });
/** GitLab's `render_api_error!(message, 404)` with a service's own words (`Not Found`, without the status in front). */
export const notFoundAs = (message: string) => coded(message, { code: 'NOT_FOUND' });
/** GitLab's `render_api_error!(message, 422)`: a request it understood and cannot carry out, `{"message": "<text>"}`. */
export const unprocessable = (message: string) => coded(message, { code: 'UNPROCESSABLE' });
/**
 * GitLab's `render_api_error!({ error: message }, status)` (the snippets API's service errors): `{"message": {"error":
 * "<text>"}}` with 400 or 422.
 */
export const serviceError = (message: string, status: 400 | 422) => coded(message, { code: status === 422 ? 'UNPROCESSABLE' : 'BAD_USER_INPUT', errorObject: true });
/** GitLab's `render_api_error!(record.errors.full_messages, 400)` (release links): `{"message": ["Url has already been taken"]}`. */
export const badRecordMessages = (messages: string[]) => listedError(messages, 400);
/** An error whose REST body lists its messages: `{"message": ["…", …]}` with 400, 409 or 422. */
function listedError(messages: string[], status: 400 | 409 | 422): GraphQLError {
  return coded(messages.join(', '), { code: status === 400 ? 'BAD_USER_INPUT' : status === 409 ? 'CONFLICT' : 'UNPROCESSABLE', listed: messages });
}
/** GitLab's `render_api_error!(body.merge!(message: text), status)`: `{"message": {...body, "message": "<text>"}}` with 400 or 401. */
export const serviceRefusal = (message: string, status: 400 | 401, body: Record<string, unknown>) =>
  coded(message, { code: status === 401 ? 'UNAUTHENTICATED' : 'BAD_USER_INPUT', messageBody: body });
/** GitLab's `render_api_error!(message, 400)`: a refusal in the service's own words, `{"message": "<text>"}`. */
export const badRequest = (message: string) => coded(message, { code: 'BAD_USER_INPUT' });
/** A refusal REST answers as badRequest's and a relay mutation reports in its payload's `errors` in other words. */
export const badRequestWorded = (message: string, payload: string) => coded(message, { code: 'BAD_USER_INPUT', payload });
/**
 * A project named by an old path, in a REST `GET` (GitLab's `redirect!` in `find_project!`): 301 to the same request
 * naming it by ID. Other methods get `methodNotAllowed('Non GET methods are not allowed for moved projects')`.
 */
export const movedPermanently = (location: string) =>
  coded(`This resource has been moved permanently to ${location}`, { code: 'MOVED_PERMANENTLY', location });

/** GitLab's `error!({ message, error_code }, 400)` of a service that could not make its change (cherry-pick, revert). */
export const changeFailed = (message: string, errorCode: string, dryRun = false) => coded(message, { code: 'BAD_USER_INPUT', errorCode, dryRun });
/** GitLab's 405 for an operation the resource refuses (deleting the default branch). */
export const methodNotAllowed = (message: string) => coded(message, { code: 'METHOD_NOT_ALLOWED' });
/** GitLab's pagination strategies' 405s (keyset not available, offset beyond its limit), `{"error": …}` as Grape writes them. */
export const paginationNotAllowed = (message: string) => coded(message, { code: 'METHOD_NOT_ALLOWED', errorKey: true });

export interface RestError {
  status: number;
  /** JSON, or plain text where GitLab answers in plain text. */
  body: unknown;
  text?: boolean;
  headers?: Record<string, string>;
}

export const tokenErrors = {
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
} as const;

/** Ruby's Hash#inspect of ActiveModel errors, as GitLab puts it into `Failed to save group …`. */
function rubyErrors(errors: Record<string, string[]>): string {
  const entries = Object.entries(errors).map(([k, v]) => `:${k}=>[${v.map((m) => JSON.stringify(m)).join(', ')}]`);
  return `{${entries.join(', ')}}`;
}

/** The REST name of a GraphQL argument or field: the route's parameter that fills it, else its snake_case. */
export type RestName = (argument: string) => string;
const snakeCase: RestName = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** GitLab's answer for an error thrown anywhere below the adapter. */
export function restError(error: GraphQLError, restName: RestName = snakeCase): RestError {
  const ext = (error.extensions ?? {}) as Partial<ErrorExtensions>;
  switch (ext.code) {
    case 'BAD_USER_INPUT': {
      if (ext.fields) {
        const fields = Object.fromEntries(Object.entries(ext.fields).map(([f, m]) => [snakeCase(f), m]));
        if (ext.badRecord) return { status: 400, body: { message: `400 Bad request - ${ext.badRecord} ${rubyErrors(fields)}` } };
        const failure = ext.failure ?? (ext.failedToSave && `Failed to save ${ext.failedToSave}`);
        return { status: 400, body: { message: failure ? `${failure} ${rubyErrors(fields)}` : fields } };
      }
      if (ext.problems) return { status: 400, body: { error: describeProblems(ext.problems, restName) } };
      if (ext.params) return { status: 400, body: { error: ext.params.join(', ') } };
      if (ext.errorCode) return { status: 400, body: { message: error.message, error_code: ext.errorCode, ...(ext.dryRun ? { dry_run: 'error' } : {}) } };
      if (ext.errorObject) return { status: 400, body: { message: { error: error.message } } };
      if (ext.messageBody) return { status: 400, body: { message: { ...ext.messageBody, message: error.message } } };
      if (ext.listed) return { status: 400, body: { message: ext.listed } };
      return { status: 400, body: { message: error.message } };
    }
    case 'UNAUTHENTICATED':
      if (ext.messageBody) return { status: 401, body: { message: { ...ext.messageBody, message: error.message } } };
      if (ext.tokenError) {
        const description = ext.tokenError;
        return {
          status: 401,
          body: { error: 'invalid_token', error_description: description },
          headers: {
            'WWW-Authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`,
          },
        };
      }
      return { status: 401, body: { message: '401 Unauthorized' } };
    case 'FORBIDDEN':
      return { status: 403, body: { message: error.message }, ...(ext.jobStatus ? { headers: { 'Job-Status': ext.jobStatus } } : {}) };
    case 'INSUFFICIENT_SCOPE':
      return {
        status: 403,
        body: { error: 'insufficient_scope', error_description: error.message, scope: (ext.scopes ?? []).join(' ') },
      };
    case 'NOT_FOUND':
      return { status: 404, body: { message: error.message } };
    case 'CONFLICT':
      if (ext.listed) return { status: 409, body: { message: ext.listed } };
      return { status: 409, body: { message: ext.fields ? Object.fromEntries(Object.entries(ext.fields).map(([f, m]) => [snakeCase(f), m])) : error.message } };
    case 'NOT_MODIFIED':
      return { status: 304, body: { message: error.message } };
    case 'MOVED_PERMANENTLY':
      // API::API's rescue of MovedPermanentlyError: the message as the body, and the new URL in Location.
      return { status: 301, body: error.message, text: true, headers: { Location: ext.location ?? '' } };
    case 'METHOD_NOT_ALLOWED':
      return { status: 405, body: ext.errorKey ? { error: error.message } : { message: error.message } };
    case 'MALFORMED_REQUEST':
      // GitLab's HandleMalformedStrings middleware answers before any controller, in plain text.
      return { status: 400, body: 'Bad Request', text: true };
    case 'UNSUPPORTED_MEDIA_TYPE':
      return { status: 415, body: { message: '415 Unsupported Media Type' } };
    case 'UNPROCESSABLE':
      if (ext.listed) return { status: 422, body: { message: ext.listed } };
      return { status: 422, body: { message: ext.errorObject ? { error: error.message } : error.message } };
    case 'PAYLOAD_TOO_LARGE':
      return { status: 413, body: { message: '413 Request Entity Too Large' } };
    case 'RATE_LIMITED':
      return { status: 429, body: { message: '429 Too Many Requests' }, headers: { 'Retry-After': String(ext.retryAfter ?? 60) } };
    case 'LIMIT_EXCEEDED':
      return { status: 400, body: { message: `400 Bad request - ${error.message}` } };
    case 'SERVICE_UNAVAILABLE':
      return { status: 503, body: { message: '503 Service Unavailable' }, headers: { 'Retry-After': String(ext.retryAfter ?? UNAVAILABLE_RETRY_AFTER) } };
    case 'TIMEOUT':
      return { status: 503, body: { message: '503 Service Unavailable' } };
    default:
      return { status: 500, body: { message: '500 Internal Server Error' } };
  }
}

export const rateLimited = (retryAfter: number) => coded('429 Too Many Requests', { code: 'RATE_LIMITED', retryAfter });

/** Seconds a caller is asked to wait when the database has no connection to spare. */
const UNAVAILABLE_RETRY_AFTER = 5;
/** No database connection (or transaction) could be had in time: GitLab's `service_unavailable!`. */
export const unavailable = () => coded('503 Service Unavailable', { code: 'SERVICE_UNAVAILABLE', retryAfter: UNAVAILABLE_RETRY_AFTER });
/** A statement ran past the statement timeout: GitLab's GraphQL answers a cancelled query with a 503 and these words. */
export const statementTimedOut = () =>
  coded('Request timed out. Please try a less complex query or a smaller set of records.', { code: 'SERVICE_UNAVAILABLE', retryAfter: UNAVAILABLE_RETRY_AFTER });
/** The request's deadline passed before this field (`Query.projects`) started, in graphql-ruby's words. */
export const timedOut = (field: string) => coded(`Timeout on ${field}`, { code: 'TIMEOUT' });
export const payloadTooLarge = () => coded('413 Request Entity Too Large', { code: 'PAYLOAD_TOO_LARGE' });
/** Percent-encoding that does not decode, bytes that are not UTF-8, or a NUL byte, anywhere in the request. */
export const malformedRequest = () => coded('Bad Request', { code: 'MALFORMED_REQUEST' });
export const unsupportedMediaType = () => coded('415 Unsupported Media Type', { code: 'UNSUPPORTED_MEDIA_TYPE' });
/** A GraphQL operation beyond a bound (size, complexity, depth, subscriptions per connection), refused before it runs. */
export const limitExceeded = (message: string) => coded(message, { code: 'LIMIT_EXCEEDED' });

/** Errors that are ours to show; anything else is an unexpected failure and is masked. */
export function isCoded(error: unknown): error is GraphQLError {
  return error instanceof GraphQLError && typeof error.extensions?.code === 'string' && error.extensions.code !== 'INTERNAL_SERVER_ERROR';
}

/** A coded error's words without the REST status before them (`403 Forbidden - …`): what a payload's `errors` says. */
export const ownWords = (error: GraphQLError): string => error.message.replace(/^\d{3} [^-]*- /, '');

/**
 * What a unique index refusing a row means to the caller, by index name: a concurrent request wrote the same key
 * first, after the service's own check had passed, so the answer is the one that check gives. The `lower(…)`
 * indexes (prisma/migrations/…_case_insensitive_uniqueness) make paths, usernames and e-mails unique regardless of
 * case, as GitLab's are; Prisma's schema cannot express them, and its migration diff leaves them alone. A user and a
 * top-level group created at the same moment with one path meet at the namespaces index, answered as the group's.
 */
const pathTaken = { path: ['has already been taken'] };
export const UNIQUE_INDEX_ERRORS: Readonly<Record<string, () => GraphQLError>> = {
  users_username_key: () => conflict('Username has already been taken'),
  users_lower_username_key: () => conflict('Username has already been taken'),
  users_email_key: () => conflict('Email has already been taken'),
  users_lower_email_key: () => conflict('Email has already been taken'),
  namespaces_fullPath_key: () => invalid(pathTaken, { failedToSave: 'group' }),
  namespaces_top_level_lower_path_key: () => invalid(pathTaken, { failedToSave: 'group' }),
  namespaces_parentId_lower_path_key: () => invalid(pathTaken, { failedToSave: 'group' }),
  projects_fullPath_key: () => invalid(pathTaken),
  projects_namespaceId_path_key: () => invalid(pathTaken),
  projects_namespaceId_lower_path_key: () => invalid(pathTaken),
  // Two renames recording the same old path at once: the later one meets the first one's redirect (RedirectRoute's uniqueness).
  redirect_routes_path_key: () => invalid(pathTaken),
  emails_email_key: () => invalid({ email: ['has already been taken'] }),
  emails_lower_email_key: () => invalid({ email: ['has already been taken'] }),
  keys_fingerprintSha256_key: () => invalid({ fingerprintSha256: ['has already been taken'] }),
  members_userId_namespaceId_key: () => conflict('Member already exists'),
  // GitLab's GroupGroupLink and ProjectGroupLink uniqueness validations, in their full messages (409).
  group_group_links_sharedGroupId_sharedWithGroupId_key: () => conflict('Shared group The group has already been shared with this group'),
  project_group_links_projectId_groupId_key: () => conflict('Project already shared with this group'),
  members_userId_projectId_key: () => conflict('Member already exists'),
  customer_relations_contacts_groupId_lower_email_key: () => invalid({ email: ['has already been taken'] }),
  customer_relations_organizations_groupId_lower_name_key: () => invalid({ name: ['has already been taken'] }),
  ci_pipeline_schedule_variables_pipelineScheduleId_key_key: () => invalid({ key: ['has already been taken'] }),
  // An upload's `<secret>/<filename>` within its model: a second file under the same 32-hex secret.
  uploads_modelType_modelId_path_key: () => invalid({ path: ['has already been taken'] }),
  // GitLab's AddProjectService and AddGroupService rescue RecordNotUnique with these words (bad_request!).
  ci_job_token_project_scope_links_sourceProjectId_targetProj_key: () => badRequest('400 Bad request - Target project is already in the job token scope'),
  ci_job_token_group_scope_links_sourceProjectId_targetGroupI_key: () => badRequest('400 Bad request - This group is already in the job token allowlist.'),
};

interface DriverFailure {
  originalCode?: string;
  originalMessage?: string;
  constraint?: { index?: string };
}

/**
 * The index a unique violation names: the pg adapter reports it; the PGlite adapter only keeps PostgreSQL's
 * message, whose wording (`… violates unique constraint "<name>"`) is fixed.
 */
function violatedIndex(failure: DriverFailure | undefined): string | undefined {
  return failure?.constraint?.index ?? /unique constraint "([^"]+)"/.exec(failure?.originalMessage ?? '')?.[1];
}

/** pg-pool's words when no connection frees up within `connectionTimeoutMillis`. */
const POOL_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * Database failures that are not bugs, as coded errors, in this one place: a unique index refusing a concurrent
 * duplicate (the table above, from Prisma's queries and raw statements alike; any other index is a 409), no
 * connection or transaction to be had in time (Prisma's P2024 and P2028, pg-pool's timeout: 503 with Retry-After),
 * a statement cancelled by the statement timeout (SQLSTATE 57014: 503). Null otherwise.
 */
export function fromDatabase(error: unknown): GraphQLError | null {
  const cause = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  if (!cause || typeof cause !== 'object') return null;
  const { code, message, meta } = cause as { code?: unknown; message?: unknown; meta?: { driverAdapterError?: { cause?: DriverFailure } } };
  // Prisma wraps the driver adapter's error; a direct read (src/db/direct-reads.ts) throws it as it is.
  const failure = meta?.driverAdapterError?.cause ?? (isDriverAdapterError(cause) ? (cause.cause as DriverFailure) : undefined);
  // P2002 from Prisma's own queries; a raw statement's violation (P2010) keeps PostgreSQL's SQLSTATE.
  if (code === 'P2002' || failure?.originalCode === '23505') {
    const index = violatedIndex(failure);
    return (index && UNIQUE_INDEX_ERRORS[index]?.()) || conflict('409 Conflict');
  }
  if (code === 'P2024') return unavailable();
  if (code === 'P2028' && typeof message === 'string' && /Unable to start a transaction|expired transaction/.test(message)) return unavailable();
  if (message === POOL_TIMEOUT_MESSAGE) return unavailable();
  if (failure?.originalCode === '57014') return statementTimedOut();
  return null;
}

/**
 * Independent checks run at once, judged in the order given: waits for every one (none is left running), then throws
 * the first one's failure in that order, so the answer is the one running them one by one would give.
 */
export async function checkAll(checks: readonly Promise<unknown>[]): Promise<void> {
  for (const outcome of await Promise.allSettled(checks)) if (outcome.status === 'rejected') throw outcome.reason;
}
