/** The one executable schema: every `graphql/*.graphql` file plus every module's resolver map. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { DateScalar, JSONScalar, Time } from './scalars.js';
import { metadataResolvers } from '../modules/metadata/resolvers.js';
import { userResolvers } from '../modules/users/resolvers.js';
import { tokenResolvers } from '../modules/tokens/resolvers.js';
import { namespaceResolvers } from '../modules/namespaces/resolvers.js';
import { memberResolvers } from '../modules/members/resolvers.js';
import { projectResolvers } from '../modules/projects/resolvers.js';
import { activityResolvers } from '../modules/activity/resolvers.js';

export const GRAPHQL_DIR = new URL('../../graphql/', import.meta.url).pathname;

export function readGraphqlFiles(dir: string): { name: string; source: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((name) => ({ name, source: readFileSync(join(dir, name), 'utf8') }));
}

/**
 * Connection fields are lazy getters (see connection.ts) that yield promises. Explicit resolvers make every
 * executor await them: the REST adapter's compiled executor inlines default resolvers as plain property reads.
 */
function connectionResolvers(typeDefs: string[]): Record<string, Record<string, (c: Record<string, unknown>) => unknown>> {
  const names = typeDefs.flatMap((sdl) => [...sdl.matchAll(/^type (\w+Connection)\b/gm)].map((m) => m[1]));
  return Object.fromEntries(names.map((name) => [name, { nodes: (c) => c.nodes, count: (c) => c.count, pageInfo: (c) => c.pageInfo }]));
}

export function buildSchema(): GraphQLSchema {
  const typeDefs = readGraphqlFiles(GRAPHQL_DIR).map((f) => f.source);
  return makeExecutableSchema({
    typeDefs,
    resolvers: [
      { Time, Date: DateScalar, JSON: JSONScalar },
      connectionResolvers(typeDefs),
      metadataResolvers,
      userResolvers,
      tokenResolvers,
      namespaceResolvers,
      memberResolvers,
      projectResolvers,
      activityResolvers,
    ],
  });
}
