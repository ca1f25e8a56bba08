/**
 * The one generic REST handler. For each route of the module tables it collects parameters (path over body over
 * query), authenticates, coerces variables, executes the precompiled operation on the shared schema (where
 * scopes and abilities are enforced, as for every GraphQL caller) on its lane's connections (queries read,
 * mutations write) until the REST deadline, maps errors through src/errors.ts, and sends GitLab's JSON, status
 * and headers.
 */
import type { Request, RequestHandler, Response } from 'express';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { resolveViewer, type CredentialsAuthenticator, type Credentials } from '../auth/credentials.js';
import { sudo, sudoIdentifier } from '../auth/sudo.js';
import { createContext, type App } from '../context.js';
import type { RestRequest } from '../modules/module.js';
import type { Lane } from '../db/database.js';
import { beforeDeadline } from '../graphql/deadline.js';
import { fromDatabase, isCoded, notFound, unauthenticated, type RestName } from '../errors.js';
import { sendCoded } from '../http/middleware.js';
import type { CompiledOperation } from './compile.js';
import { applyOutput, type OutputPlan } from './output.js';
import { variablesFromParams, snakeCase } from './params.js';
import { connectionArgs, keysetHeaders, paginationHeaders, readPage } from './pagination.js';
import { comparePrecedence, type RestRoute } from './route.js';

export interface PreparedRoute extends RestRoute {
  compiled: CompiledOperation;
  resultPath: string[];
  plans: OutputPlan[];
  /** RestRoute.accepted split, with its output plans. */
  acceptedAt: { path: string[]; plans: OutputPlan[] } | null;
  /** Names an argument as this route's parameters do, for error messages. */
  restName: RestName;
}

/**
 * Binds each route to its compiled operation, in precedence order; an unknown operation or a bad result path
 * fails here, at start.
 */
export function prepareRoutes(routes: readonly RestRoute[], operations: Map<string, CompiledOperation>): PreparedRoute[] {
  const seen = new Set<string>();
  return [...routes].sort(comparePrecedence).map((route) => {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`REST route ${key} is declared twice`);
    seen.add(key);
    const compiled = operations.get(route.operation);
    if (!compiled) throw new Error(`REST route ${key}: operation ${route.operation} does not exist in graphql/rest`);
    if (route.method === 'GET' && compiled.kind !== 'query') throw new Error(`REST route ${key}: GET must use a query`);
    const resultPath = route.result ? route.result.split('.') : compiled.rootFields;
    if (resultPath.length === 0 || !compiled.rootFields.includes(resultPath[0])) {
      throw new Error(`REST route ${key}: result ${route.result ?? '(root)'} is not selected by ${route.operation}`);
    }
    if (!route.result && compiled.rootFields.length !== 1) throw new Error(`REST route ${key}: name the result field`);
    if (route.paginate && !['first', 'after'].every((name) => compiled.variables.some((v) => v.name === name))) {
      throw new Error(`REST route ${key}: a paginated operation must declare $first and $after`);
    }
    const plans = plansAt(compiled.output, [...resultPath, ...(route.paginate ? ['nodes'] : [])]);
    const restName: RestName = (argument) => compiled.restNames.get(argument) ?? snakeCase(argument);
    const acceptedPath = route.accepted?.split('.');
    if (acceptedPath && !compiled.rootFields.includes(acceptedPath[0])) throw new Error(`REST route ${key}: accepted ${route.accepted} is not selected by ${route.operation}`);
    const acceptedAt = acceptedPath ? { path: acceptedPath, plans: plansAt(compiled.output, acceptedPath) } : null;
    return { ...route, compiled, resultPath, plans, acceptedAt, restName };
  });
}

/** The output plans that apply at the route's result path (inside `nodes` for paginated routes). */
function plansAt(output: OutputPlan[], path: string[]): OutputPlan[] {
  let plans = output;
  for (const key of path) plans = plans.find((p) => p.key === key)?.children ?? [];
  return plans;
}

function send(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.set(headers);
  if (status === 204) {
    res.status(204).end();
    return;
  }
  res.status(status).json(body);
}

/** Answers any error: coded ones from the table in src/errors.ts (named as the route names them), others as a logged 500. */
export function sendError(res: Response, app: App, error: unknown, restName?: RestName): void {
  const coded = isCoded(error) ? error : fromDatabase(error);
  if (coded) return sendCoded(res, coded, restName);
  const cause = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const err = cause instanceof Error ? { message: cause.message, stack: cause.stack } : String(cause);
  app.logger.error({ err, requestId: res.locals.requestId }, 'unhandled error');
  send(res, 500, { message: '500 Internal Server Error' });
}

/**
 * What a route answers for its operation's result: the first error is thrown; so is a null on the way to the
 * result, as the route declares it (`404 <Resource> Not Found`, or 401 for `whenNull: 'unauthenticated'`).
 * The same function judges a result obtained over `/api/graphql`, so tests can check both surfaces agree.
 */
/** The value at a dotted path of a result's data, or null. */
function valueAt(result: ExecutionResult, path: readonly string[]): unknown {
  let value: unknown = result.data;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : null;
  return value ?? null;
}

/** The success status an operation answers at `path` (RestRoute.statusFrom), or `otherwise`. */
function statusOf(result: ExecutionResult, path: string, otherwise: number): number {
  const value = valueAt(result, path.split('.'));
  return typeof value === 'number' ? value : otherwise;
}

export function routeValue(route: PreparedRoute, result: ExecutionResult): unknown {
  if (result.errors?.length) throw result.errors[0];
  let value: unknown = result.data;
  for (const key of route.resultPath) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : null;
    if (value === null || value === undefined) {
      if (route.whenNull === 'send') return null;
      throw route.whenNull === 'unauthenticated' ? unauthenticated() : notFound(route.notFound);
    }
  }
  return value;
}

/**
 * What the services learn of a REST request (ServiceBase.rest). A `/projects/:id…` route's project named by path may
 * have moved: its URL by ID is the request's with that segment replaced (the host and path as sent, the same query).
 */
function restRequest(req: Request, route: PreparedRoute): RestRequest {
  const id = route.path.startsWith('/projects/:id') ? req.params.id : undefined;
  return {
    method: req.method,
    projectPath: typeof id === 'string' && id.includes('/') ? id : null,
    // Read only by the few services that keep them (snippets): `req.ip` walks the trusted proxies.
    get userAgent() {
      return req.get('user-agent') ?? '';
    },
    get ipAddress() {
      return req.ip ?? '';
    },
    withProjectId(id) {
      const [path, query] = splitOnce(req.originalUrl, '?');
      const segments = path.split('/');
      // ['', 'api', 'v4', 'projects', '<id>', …]: the mount point is /api/v4.
      segments[4] = String(id);
      // Rack's Request#url, as GitLab builds it: the host the request was sent to.
      return `${req.protocol}://${req.get('host')}${segments.join('/')}${query === undefined ? '' : `?${query}`}`;
    },
  };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** The operation variable the adapter sets to whether the caller is signed in. */
const SIGNED_IN = 'signedIn';

function handler(app: App, authenticators: Record<Lane, CredentialsAuthenticator>, route: PreparedRoute) {
  const defaultStatus = route.status ?? (route.method === 'POST' ? 201 : 200);
  const template = `/api/v4${route.path}`;
  const lane: Lane = route.compiled.kind === 'query' ? 'read' : 'write';
  const authenticate = authenticators[lane];
  // `$signedIn` is the adapter's, never a parameter's: whether a caller is signed in, for the operations whose answer
  // has GitLab's two shapes (a project is BasicProjectDetails to anonymous callers).
  const tellsSignedIn = route.compiled.variables.some((v) => v.name === SIGNED_IN);
  return async (req: Request, res: Response) => {
    res.locals.route = template;
    const deadline = Date.now() + app.config.restTimeoutMs;
    try {
      const params: Record<string, unknown> = {
        ...(req.query as Record<string, unknown>),
        ...(req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {}),
        ...req.params,
      };
      const execute = async () => {
        const initial = await resolveViewer(authenticate, res.locals.credentials as Credentials | null);
        const identifier = sudoIdentifier(params, req.get('sudo'));
        const viewer = identifier === undefined ? initial : await sudo(initial, identifier, (ref) => createContext(app, null, { lane, deadline }).services.users.find(ref));
        if (route.authenticate && viewer === null) throw unauthenticated();
        if (tellsSignedIn) delete params[snakeCase(SIGNED_IN)];
        const variables = variablesFromParams(route.compiled.variables, params, route.variables);
        if (tellsSignedIn) variables[SIGNED_IN] = viewer !== null;
        const page = route.paginate ? readPage(params, route.keyset, initial === null) : null;
        if (page) Object.assign(variables, connectionArgs(page));
        const context = createContext(app, viewer, { lane, deadline, mutationErrors: 'throw', rest: restRequest(req, route), jobTokenRoute: route.jobToken });
        const result = await route.compiled.run(context, variables);
        // A failed operation may have published in a transaction that rolled back: nothing would come to wait for.
        if (!result.errors?.length) await context.settle();
        return { page, result };
      };
      // Authentication waits for a connection too, so the deadline covers it.
      const { page, result } = await beforeDeadline(execute(), deadline, route.operation);
      const accepted = route.acceptedAt && !result.errors?.length ? valueAt(result, route.acceptedAt.path) : null;
      if (accepted != null) {
        send(res, 202, applyOutput(accepted, route.acceptedAt!.plans), {});
        return;
      }
      const value = routeValue(route, result);
      const status = route.statusFrom ? statusOf(result, route.statusFrom, defaultStatus) : defaultStatus;
      if (page?.kind === 'keyset') {
        const connection = value as { nodes: Record<string, unknown>[]; pageInfo?: { hasNextPage: boolean; endCursor: string | null } };
        const nodes = applyOutput(connection.nodes, route.plans) as Record<string, unknown>[];
        const next = { hasNextPage: connection.pageInfo?.hasNextPage ?? false, endCursor: connection.pageInfo?.endCursor ?? null, lastId: nodes.at(-1)?.id };
        send(res, status, nodes, keysetHeaders(req, app.config.externalUrl, page, next));
        return;
      }
      if (page) {
        const connection = value as { nodes: unknown[]; count?: number };
        const total = route.paginate === 'without-count' ? null : (connection.count ?? 0);
        const headers = paginationHeaders(req, app.config.externalUrl, page, total, connection.nodes.length);
        send(res, status, applyOutput(connection.nodes, route.plans), headers);
        return;
      }
      const body = applyOutput(value, route.plans) as Record<string, unknown>;
      const headers = route.headers ? Object.fromEntries(Object.entries(route.headers).map(([header, key]) => [header, String(body[key])])) : {};
      if (route.raw) {
        res.set(headers).status(status).type(String(body.content_type)).send(Buffer.from(String(body.content), 'base64'));
        return;
      }
      send(res, route.okWhen && body[route.okWhen] !== undefined ? 200 : status, body, headers);
    } catch (error) {
      sendError(res, app, error, route.restName);
    }
  };
}

/** A route's path, split once: static segments (lower case) and parameter names. */
interface Pattern {
  segments: { static?: string; param?: string }[];
  method: string;
  handle: RequestHandler;
}

function pattern(route: PreparedRoute, handle: RequestHandler): Pattern {
  const segments = route.path.split('/').filter(Boolean).map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { static: s.toLowerCase() }));
  return { segments, method: route.method, handle };
}

/** The parameters when `parts` (the request's path segments, still encoded) match the pattern; null otherwise. */
function match(p: Pattern, parts: string[]): Record<string, string> | null {
  if (p.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = p.segments[i];
    if (segment.static !== undefined) {
      if (segment.static !== parts[i].toLowerCase()) return null;
    } else {
      if (parts[i] === '') return null;
      params[segment.param as string] = decodeURIComponent(parts[i]); // rejectMalformedInput checked it decodes
    }
  }
  return params;
}

/**
 * Dispatches `/api/v4` requests over the route table in precedence order (static segments before parameters),
 * without a chain of routers: one table walk per request. Paths match case-insensitively, with or without a
 * trailing slash, and with repeated slashes squeezed. HEAD runs GET routes. OPTIONS on a known path is Grape's 204 with `Allow`; any other method
 * goes on, as every unmatched request does, to GitLab's catch-all `404 Not Found` (lib/api/api.rb routes
 * `:any, '*path'` last, so Grape's 405 never answers).
 */
export function restRouter(app: App, authenticators: Record<Lane, CredentialsAuthenticator>, routes: PreparedRoute[]): RequestHandler {
  const patterns = routes.map((route) => pattern(route, handler(app, authenticators, route)));
  return (req, res, next) => {
    // Rails squeezes repeated slashes before routing (Journey's normalize_path): `/features//foo`, as python-gitlab's
    // FeatureManager sends it, is `/features/foo`; a trailing slash goes the same way.
    const parts = req.path.split('/').filter((part) => part !== '');
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    let allowed: Set<string> | undefined;
    for (const p of patterns) {
      const params = match(p, parts);
      if (!params) continue;
      if (p.method === method) {
        req.params = params;
        return void p.handle(req, res, next);
      }
      (allowed ??= new Set()).add(p.method);
    }
    if (!allowed || req.method !== 'OPTIONS') return next();
    if (allowed.has('GET')) allowed.add('HEAD');
    res.status(204).set('Allow', [...allowed, 'OPTIONS'].join(', ')).end();
  };
}
