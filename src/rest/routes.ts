/** Every module's REST operations and routes, compiled and bound once at start-up. */
import type { GraphQLSchema } from 'graphql';
import { REST_OPERATIONS_DIR, SHARED_OPERATIONS } from '../graphql/schema.js';
import { modules } from '../modules/index.js';
import { prepareRoutes, type PreparedRoute } from './adapter.js';
import { compileOperations, type CompiledOperation } from './compile.js';
import type { RestRoute } from './route.js';

/** The routes every module declares, as written. */
export const declaredRoutes: readonly RestRoute[] = modules.flatMap((m) => m.routes);

export function restOperations(schema: GraphQLSchema): Map<string, CompiledOperation> {
  return compileOperations(schema, REST_OPERATIONS_DIR, [...SHARED_OPERATIONS, ...modules.flatMap((m) => m.operations)]);
}

/** Every route bound to its compiled operation, in precedence order. */
export function restRoutes(schema: GraphQLSchema): PreparedRoute[] {
  return prepareRoutes(declaredRoutes, restOperations(schema));
}
