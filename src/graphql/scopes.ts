/**
 * Enforces token scopes once, around the resolvers of the schema itself, so every executor (graphql-js for
 * `/api/graphql`, the compiled REST operations, graphql-ws subscriptions) obeys the same rule: every root field
 * is checked (src/auth/scopes.ts gives the defaults), and any other field that carries `@scopes`. Mutations also
 * need a signed-in caller, as GitLab's API needs a token for every write.
 */
import { defaultFieldResolver, getDirectiveValues, isObjectType, type GraphQLField, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { acceptedScopes, requireScope, type OperationKind, type ScopeDeclaration } from '../auth/scopes.js';
import type { Context } from '../context.js';
import { unauthenticated } from '../errors.js';

type Field = GraphQLField<unknown, Context>;

function guard(kind: OperationKind, accepted: readonly string[] | null, tokenless: boolean) {
  return (ctx: Context) => {
    if (kind === 'mutation' && !ctx.viewer && !tokenless) throw unauthenticated();
    requireScope(ctx.viewer, accepted);
  };
}

function wrap(field: Field, check: (ctx: Context) => void): void {
  const resolve: GraphQLFieldResolver<unknown, Context> = field.resolve ?? defaultFieldResolver;
  field.resolve = (source, args, ctx, info) => {
    check(ctx);
    return resolve(source, args, ctx, info);
  };
  const subscribe = field.subscribe;
  if (subscribe) {
    field.subscribe = (source, args, ctx, info) => {
      check(ctx);
      return subscribe(source, args, ctx, info);
    };
  }
}

/** The `@scopes` directive of a field, if any. */
function scopeDeclaration(schema: GraphQLSchema, field: Field): ScopeDeclaration | undefined {
  const directive = schema.getDirective('scopes');
  if (!directive || !field.astNode) return undefined;
  return getDirectiveValues(directive, field.astNode) as ScopeDeclaration | undefined;
}

/** Wraps the resolvers in place; call once on the built schema. */
export function enforceScopes(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Map<string, OperationKind>();
  if (schema.getQueryType()) roots.set(schema.getQueryType()?.name ?? '', 'query');
  if (schema.getMutationType()) roots.set(schema.getMutationType()?.name ?? '', 'mutation');
  if (schema.getSubscriptionType()) roots.set(schema.getSubscriptionType()?.name ?? '', 'subscription');
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const rootKind = roots.get(type.name);
    for (const field of Object.values(type.getFields())) {
      const declared = scopeDeclaration(schema, field);
      if (!rootKind && !declared) continue;
      wrap(field, guard(rootKind ?? 'query', acceptedScopes(rootKind ?? 'query', declared), declared?.tokenless === true));
    }
  }
  return schema;
}
