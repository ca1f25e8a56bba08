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

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: readGraphqlFiles(GRAPHQL_DIR).map((f) => f.source),
    resolvers: [
      { Time, Date: DateScalar, JSON: JSONScalar },
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
