/**
 * What GraphQL clients see of an error, over HTTP and WebSocket alike: coded errors (src/errors.ts) and Apollo's
 * request errors keep their message and code; a unique-index refusal becomes the coded error src/errors.ts gives
 * it (the answer of the service's own check); anything else is masked.
 */
import type { GraphQLFormattedError } from 'graphql';
import { fromDatabase, isCoded } from '../errors.js';

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
