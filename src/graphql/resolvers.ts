/** Shared resolver pieces: the resolver-map type, GitLab global IDs and web URLs read from config. */
import type { GraphQLFieldResolver } from 'graphql';
import type { Context } from '../context.js';
import { globalId } from './ids.js';

export type Resolver<TParent = unknown, TArgs = Record<string, never>> = GraphQLFieldResolver<TParent, Context, TArgs>;

/** `id` (global) and `databaseId` (numeric) fields for a type. */
export function idFields(type: string) {
  return {
    id: (row: { id: number }) => globalId(type, row.id),
    databaseId: (row: { id: number }) => row.id,
  };
}

export function webUrl(ctx: Context, path: string): string {
  return `${ctx.config.externalUrl}/${path}`;
}

export function apiUrl(ctx: Context, path: string): string {
  return `${ctx.config.externalUrl}/api/v4/${path}`;
}
