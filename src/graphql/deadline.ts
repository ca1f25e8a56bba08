/**
 * Request deadlines: GitLab gives GraphQL 30 s and REST 60 s. As graphql-ruby's timeout (GitLab's GraphQL), a field
 * that would start after its request's deadline fails with `Timeout on Type.field` instead of running, so a slow
 * request stops issuing statements; a statement already running is bounded by the statement timeout. The REST
 * adapter also stops waiting at the deadline and answers 503, as GitLab's request timeout does.
 */
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { Context } from '../context.js';
import { timedOut } from '../errors.js';

/** Wraps every field that has a resolver of its own (plain property reads start no work); call once on the built schema. */
export function enforceDeadline(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, Context> | undefined;
      if (!resolve) continue;
      const name = `${type.name}.${field.name}`;
      field.resolve = (source, args, ctx, info) => {
        if (Date.now() > ctx.deadline) throw timedOut(name);
        return resolve(source, args, ctx, info);
      };
    }
  }
  return schema;
}

/** The value, or a TIMEOUT error if it is not there by `deadline` (ms since the epoch). */
export async function beforeDeadline<T>(value: T | Promise<T>, deadline: number, what: string): Promise<T> {
  if (!(value instanceof Promise)) return value;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(what)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([value, expired]);
  } finally {
    clearTimeout(timer);
  }
}
