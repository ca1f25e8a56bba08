/**
 * GitLab's bounds on a GraphQL operation, applied before any resolver runs, over HTTP and graphql-ws alike
 * (GL app/graphql/gitlab_schema.rb, app/controllers/graphql_controller.rb): a query text of at most 10,000
 * characters; complexity at most 200 for anonymous callers (217 for an anonymous `IntrospectionQuery`), 250 signed
 * in, 300 for administrators; depth at most 15 anonymous, 20 signed in; no field recurring more than twice in a
 * branch; and our own bound on the objects the connections may return (config `graphqlMaxNodes`). A refused
 * operation answers GitLab's messages, in the order GitLab's analyzers give them, as errors without `data`; HTTP
 * status 200, as graphql-ruby answers, except "Query too large", which GitLab's controller answers with 422.
 * The REST adapter's operations are fixed by us and are not measured.
 */
import type { Request } from 'express';
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, getOperationAST, getVariableValues, Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema } from 'graphql';
import type { Context } from '../context.js';
import { limitExceeded } from '../errors.js';
import { measure } from './cost.js';
import { formatError } from './errors.js';

const MAX_QUERY_SIZE = 10_000;
const MAX_COMPLEXITY = { anonymous: 200, introspection: 217, authenticated: 250, admin: 300 } as const;
const MAX_DEPTH = { anonymous: 15, authenticated: 20 } as const;
/** The operation name GitLab's controller recognises as GraphiQL's introspection query. */
const INTROSPECTION_QUERY = 'IntrospectionQuery';

/** What `queryComplexity` reports: the caller's limit and this operation's score. */
interface QueryComplexity {
  limit: number;
  score: number;
}

/** The measured complexity of the operation each context runs (one context per operation, on both transports). */
const measured = new WeakMap<Context, QueryComplexity>();

function complexityLimit(ctx: Context, operationName: string | undefined): number {
  if (ctx.access.allowed('admin_all_resources')) return MAX_COMPLEXITY.admin;
  if (ctx.viewer) return MAX_COMPLEXITY.authenticated;
  return operationName === INTROSPECTION_QUERY ? MAX_COMPLEXITY.introspection : MAX_COMPLEXITY.anonymous;
}

function depthLimit(ctx: Context): number {
  return ctx.viewer ? MAX_DEPTH.authenticated : MAX_DEPTH.anonymous;
}

/** GitLab's refusal of a query text over `MAX_QUERY_SIZE` characters (Ruby counts characters, not UTF-16 units). */
export function querySizeError(query: unknown): GraphQLError | null {
  if (typeof query !== 'string' || query.length <= MAX_QUERY_SIZE) return null;
  let characters = 0;
  for (const _ of query) if (++characters > MAX_QUERY_SIZE) return limitExceeded('Query too large');
  return null;
}

/** The query text of a request to `/api/graphql`, refused with 422 when too large, as GitLab's controller does. */
export function refuseLargeQuery(req: Request): void {
  const body: unknown = req.body;
  const query = req.method === 'GET' ? req.query.query : body && typeof body === 'object' ? (body as { query?: unknown }).query : undefined;
  const error = querySizeError(query);
  if (error) throw new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 422 } } });
}

/**
 * Measures a validated document's operation for the caller of `ctx` and records its complexity for
 * `queryComplexity`; returns the refusals, none when the operation may run. Variables that do not coerce are left
 * to execution, which refuses them without running anything.
 */
export function boundOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Record<string, unknown> | null | undefined,
  ctx: Context,
  maxNodes: number,
): GraphQLError[] {
  const operation = getOperationAST(document, operationName);
  if (!operation) return [];
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return [];
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  const cost = measure(schema, fragments, operation, coerced.coerced);
  const limit = complexityLimit(ctx, operation.name?.value);
  measured.set(ctx, { limit, score: cost.complexity });
  // graphql-ruby gives up on analysing a query after 0.2 s with this message; the walk's budget stands for that time.
  if (cost.exhausted) return [limitExceeded('Timeout on validation of query')];
  const errors: GraphQLError[] = [];
  if (cost.recursion.length) {
    // GitLab's wording, verbatim: a Ruby Hash#inspect, a line break, a stray `")` and a final line break.
    const fields = `{${cost.recursion.map(([name, times]) => `${JSON.stringify(name)}=>${times}`).join(', ')}}`;
    errors.push(limitExceeded(`Recursive query - too many of fields '${fields}' detected\nin single branch of the query")\n`));
  }
  const maxDepth = depthLimit(ctx);
  if (cost.depth > maxDepth) errors.push(limitExceeded(`Query has depth of ${cost.depth}, which exceeds max depth of ${maxDepth}`));
  if (cost.complexity > limit) errors.push(limitExceeded(`Query has complexity of ${cost.complexity}, which exceeds max complexity of ${limit}`));
  if (maxNodes > 0 && cost.nodes > maxNodes) {
    errors.push(limitExceeded(`Query has node count of ${cost.nodes}, which exceeds max node count of ${maxNodes}`));
  }
  return errors;
}

/** `queryComplexity`: the limit and score measured for this operation; null where nothing was measured (REST). */
export const queryComplexityResolvers = {
  Query: {
    queryComplexity: (_root: unknown, _args: unknown, ctx: Context): QueryComplexity | null => measured.get(ctx) ?? null,
  },
};

/** Applies the bounds to `/api/graphql`: a refused operation is answered before execution starts. */
export function boundsPlugin(maxNodes: number): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async responseForOperation(request) {
          const errors = boundOperation(request.schema, request.document, request.request.operationName, request.request.variables, request.contextValue, maxNodes);
          if (!errors.length) return null;
          return {
            http: { status: 200, headers: new HeaderMap() },
            body: { kind: 'single', singleResult: { errors: errors.map((e) => formatError(e.toJSON(), e)) } },
          };
        },
      };
    },
  };
}
