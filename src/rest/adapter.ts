/**
 * The one generic REST handler. For each route of the module tables it collects parameters (path over body over
 * query), authenticates, coerces variables, executes the precompiled operation on the shared schema (where
 * scopes and abilities are enforced, as for every GraphQL caller) on its lane's connections (queries read,
 * mutations write) until the REST deadline, maps errors through src/errors.ts, and sends GitLab's JSON, status
 * and headers.
 */
import { Router, type Request, type Response } from 'express';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { resolveViewer, type Authenticator, type Credentials } from '../auth/credentials.js';
import { createContext, type App } from '../context.js';
import type { Lane } from '../db/database.js';
import { beforeDeadline } from '../graphql/deadline.js';
import { fromDatabase, isCoded, notFound, unauthenticated, type RestName } from '../errors.js';
import { sendCoded } from '../http/middleware.js';
import type { CompiledOperation } from './compile.js';
import { applyOutput, type OutputPlan } from './output.js';
import { variablesFromParams, snakeCase } from './params.js';
import { connectionArgs, paginationHeaders, readOffsetPage } from './pagination.js';
import { comparePrecedence, type RestRoute } from './route.js';

export interface PreparedRoute extends RestRoute {
  compiled: CompiledOperation;
  resultPath: string[];
  plans: OutputPlan[];
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
    return { ...route, compiled, resultPath, plans, restName };
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
export function routeValue(route: PreparedRoute, result: ExecutionResult): unknown {
  if (result.errors?.length) throw result.errors[0];
  let value: unknown = result.data;
  for (const key of route.resultPath) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : null;
    if (value === null || value === undefined) throw route.whenNull === 'unauthenticated' ? unauthenticated() : notFound(route.notFound);
  }
  return value;
}

function handler(app: App, authenticators: Record<Lane, Authenticator>, route: PreparedRoute) {
  const status = route.status ?? (route.method === 'POST' ? 201 : 200);
  const template = `/api/v4${route.path}`;
  const lane: Lane = route.compiled.kind === 'query' ? 'read' : 'write';
  const authenticate = authenticators[lane];
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
        const viewer = await resolveViewer(authenticate, res.locals.credentials as Credentials | null);
        const page = route.paginate ? readOffsetPage(params) : null;
        const variables = variablesFromParams(route.compiled.variables, params);
        if (page) Object.assign(variables, connectionArgs(page));
        const context = createContext(app, viewer, { lane, deadline });
        const result = await route.compiled.run(context, variables);
        await context.settle();
        return { page, result };
      };
      // Authentication waits for a connection too, so the deadline covers it.
      const { page, result } = await beforeDeadline(execute(), deadline, route.operation);
      const value = routeValue(route, result);
      if (page) {
        const connection = value as { nodes: unknown[]; count: number };
        const headers = paginationHeaders(req, app.config.externalUrl, page, connection.count);
        send(res, status, applyOutput(connection.nodes, route.plans), headers);
        return;
      }
      send(res, status, applyOutput(value, route.plans));
    } catch (error) {
      sendError(res, app, error, route.restName);
    }
  };
}

/**
 * One sub-router per first path segment, so a request is matched against its own family of routes only
 * (express tries routes one by one), in precedence order within the family.
 */
export function restRouter(app: App, authenticators: Record<Lane, Authenticator>, routes: PreparedRoute[]): Router {
  const router = Router();
  const families = new Map<string, Router>();
  for (const route of routes) {
    const [, first, ...rest] = route.path.split('/');
    let family = families.get(first);
    if (!family) {
      family = Router({ mergeParams: true });
      families.set(first, family);
      router.use(`/${first}`, family);
    }
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    family[method](`/${rest.join('/')}`, handler(app, authenticators, route));
  }
  return router;
}
