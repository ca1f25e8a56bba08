/**
 * A relay mutation's input as the caller gave it. graphql-jit, which runs the REST adapter's operations, passes an
 * input literal's field bound to a variable the request left out (`input: { name: $name }` without `$name`) as null,
 * where graphql-js leaves the field out, as the spec says. The services tell a setting not given from a null one (a
 * null `expiresAt` removes the expiry; a null name is blank), so such a field is dropped here, as /api/graphql would
 * never have passed it. Used by the projects, groups, sharing and members mutations, whose REST operations fill
 * `input:` from optional parameters; its place would be the unpacking of `input` in src/graphql/mutations.ts.
 */
import { Kind, type GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.js';

type Resolver = (source: unknown, args: never, ctx: Context, info: GraphQLResolveInfo) => unknown;

/** The input fields bound to a variable the operation was not given. */
function absentFields(info: GraphQLResolveInfo): string[] {
  const input = info.fieldNodes[0]?.arguments?.find((a) => a.name.value === 'input')?.value;
  if (input?.kind !== Kind.OBJECT) return [];
  const given = info.variableValues;
  return input.fields.flatMap((f) => (f.value.kind === Kind.VARIABLE && !Object.hasOwn(given, f.value.name.value) ? [f.name.value] : []));
}

/** The Mutation resolvers, each seeing only the input fields the caller gave. */
export function givenInput<R extends Record<string, Resolver>>(resolvers: R): R {
  const wrapped: Record<string, Resolver> = {};
  for (const [name, resolve] of Object.entries(resolvers)) {
    wrapped[name] = (source, args, ctx, info) => {
      const absent = absentFields(info);
      if (!absent.length) return resolve(source, args, ctx, info);
      const given = { ...(args as Record<string, unknown>) };
      for (const field of absent) if (given[field] === null) delete given[field];
      return resolve(source, given as never, ctx, info);
    };
  }
  return wrapped as R;
}
