/**
 * What GraphQL clients see of an error, over HTTP and WebSocket alike: coded errors (src/errors.ts) and Apollo's
 * request errors keep their message and code; database failures that are not bugs (a concurrent duplicate, a
 * saturated pool, a cancelled statement) become the coded errors src/errors.ts gives them; anything else is masked.
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { fromDatabase, isCoded, restError, type ErrorExtensions } from '../errors.js';

/** Apollo's own codes for a bad request (syntax, validation, variables): the client's to see. */
const APOLLO_CLIENT_ERRORS = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const known = isCoded(error) ? null : fromDatabase(error);
  if (known) return { message: known.message, locations: formatted.locations, path: formatted.path, extensions: { ...known.extensions } };
  const code = formatted.extensions?.code;
  if (isCoded(error) || (typeof code === 'string' && APOLLO_CLIENT_ERRORS.has(code))) {
    const { stacktrace: _drop, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  }
  return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** The HTTP status and headers src/errors.ts gives a SERVICE_UNAVAILABLE error (503, Retry-After); null for others. */
function unavailableHead(extensions: Partial<ErrorExtensions> | undefined): { status: number; headers: HeaderMap } | null {
  if (extensions?.code !== 'SERVICE_UNAVAILABLE') return null;
  const { status, headers } = restError(new GraphQLError('', { extensions }));
  return { status, headers: new HeaderMap(Object.entries(headers ?? {})) };
}

/**
 * An error while building a request's context (authenticating), answered before anything runs: a bad token is a
 * 401, as GitLab's GraphQL endpoint answers; no connection free in time is a 503 with Retry-After.
 */
export function contextError(error: unknown): unknown {
  const coded = isCoded(error) ? error : fromDatabase(error);
  if (!coded) return error;
  const extensions = coded.extensions as Partial<ErrorExtensions>;
  const http = unavailableHead(extensions) ?? { status: restError(coded).status };
  return new GraphQLError(coded.message, { extensions: { ...extensions, http } });
}

/** GitLab's GraphQL answers 503 when the database could not serve the request in time; so does ours, with Retry-After. */
export const unavailableStatus: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const head = response.body.singleResult.errors?.map((e) => unavailableHead(e.extensions as Partial<ErrorExtensions>)).find((h) => h);
        if (!head) return;
        response.http.status = head.status;
        for (const [name, value] of head.headers) response.http.headers.set(name, value);
      },
    };
  },
};
