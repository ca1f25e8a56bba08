/** Shared resolver pieces: the resolver type, GitLab global IDs, web URLs read from config, fields shown by ability. */
import type { GraphQLFieldResolver } from 'graphql';
import type { Ability, SubjectOf } from '../auth/policy.js';
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

/**
 * A field shown only to viewers with an ability on its object (GitLab's conditional `expose … if:`); null for
 * others. `subject` picks what the ability is asked about: the object itself, or nothing for a global ability.
 */
export function shownWith<T, A extends Ability, V>(
  ability: A,
  subject: (row: T) => SubjectOf<A>,
  value: (row: T, ctx: Context) => V | Promise<V>,
): Resolver<T> {
  return (row, _args, ctx) => {
    const allowed = ctx.access.check(ability, subject(row));
    if (typeof allowed === 'boolean') return allowed ? value(row, ctx) : null;
    return allowed.then((yes) => (yes ? value(row, ctx) : null));
  };
}

/** An enum's resolver map whose GraphQL names are its stored values upper-cased (`RUNNING` ↔ `running`). */
export const lowerEnum = (values: readonly string[]): Record<string, string> => Object.fromEntries(values.map((v) => [v.toUpperCase(), v]));
