/** The one executable schema: `graphql/base.graphql` plus every module's SDL and resolver map, with scopes and deadlines enforced. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { modules } from '../modules/index.js';
import { ROOT } from '../paths.js';
import { queryComplexityResolvers } from './bounds.js';
import { BigIntScalar, DateScalar, Duration, ISO8601DateScalar, JSONScalar, Time, UploadScalar } from './scalars.js';
import { enforceDeadline } from './deadline.js';
import { enforceScopes } from './scopes.js';
import { relayMutations } from './mutations.js';
import { globalIdScalars } from './global-ids.js';
import { resolveSameFields, withSameFields } from './same-fields.js';
import { withRelayConnections } from './relay-connections.js';

export const GRAPHQL_DIR = `${join(ROOT, 'graphql')}/`;
export const REST_OPERATIONS_DIR = join(GRAPHQL_DIR, 'rest');

/** Shared SDL and REST fragments, owned by no module. */
export const SHARED_SCHEMA = ['base.graphql', 'query-complexity.graphql'];
export const SHARED_OPERATIONS = ['fragments.graphql'];

export function readGraphqlFiles(dir: string, names: readonly string[]): { name: string; source: string }[] {
  return names.map((name) => ({ name, source: readFileSync(join(dir, name), 'utf8') }));
}

/**
 * Connection fields are lazy getters (see connection.ts) that yield promises. Explicit resolvers make every
 * executor await them: the REST adapter's compiled executor inlines default resolvers as plain property reads.
 */
function connectionResolvers(typeDefs: string[]): Record<string, Record<string, (c: Record<string, unknown>) => unknown>> {
  const names = typeDefs.flatMap((sdl) => [...sdl.matchAll(/^type (\w+Connection)\b/gm)].map((m) => m[1]));
  return Object.fromEntries(names.map((name) => [name, { nodes: (c) => c.nodes, edges: (c) => c.edges, count: (c) => c.count, pageInfo: (c) => c.pageInfo }]));
}

export function buildSchema(): GraphQLSchema {
  const files = [...SHARED_SCHEMA, ...modules.flatMap((m) => m.schema)];
  const typeDefs = readGraphqlFiles(GRAPHQL_DIR, files).map((f) => f.source);
  // Every test run (NODE_ENV=test) validates the SDL and the schema; a production start trusts what was tested
  // rather than validating again (validateSDL was a fifth of the build in a start profile; the schema's own check
  // would run on the first request).
  const trusted = process.env.NODE_ENV === 'production';
  const schema = makeExecutableSchema({
    assumeValidSDL: trusted,
    assumeValid: trusted,
    // Resolvers go onto the schema just built instead of into a copy of it (mapSchema: over two fifths of the build).
    updateResolversInPlace: true,
    typeDefs: withRelayConnections(withSameFields(typeDefs)),
    resolvers: [
      { Time, Date: DateScalar, ISO8601Date: ISO8601DateScalar, Duration, BigInt: BigIntScalar, JSON: JSONScalar, Upload: UploadScalar, ...globalIdScalars },
      connectionResolvers(typeDefs),
      queryComplexityResolvers,
      ...modules.map((m) => m.resolvers),
    ],
  });
  return enforceDeadline(enforceScopes(relayMutations(resolveSameFields(schema))));
}
