/**
 * Enforces token scopes once, around the resolvers of the schema itself, so every executor (graphql-js for
 * `/api/graphql`, the compiled REST operations, graphql-ws subscriptions) obeys the same rule: every root field
 * is checked (src/auth/scopes.ts gives the defaults), and any other field that carries `@scopes`. Mutations also
 * need a signed-in caller, as GitLab's API needs a token for every write.
 *
 * Nested fields follow from the schema: a narrow credential (a `read_user` token, a CI job token) reaches through
 * a field only the types its root lookups could reach. Every object type some `Query` field returns (itself, in a
 * list or as a connection's nodes) is a looked-up type, accepting the scopes of those root fields together; a
 * nested field returning one accepts only those scopes, and what its own `@scopes` adds (GitLab's job entity shows
 * the job's user to the job's token: `CiJob.user @scopes(jobToken: true)`). No field added later can lead a
 * credential past its root fields without saying so in the SDL; what the credential then sees of the object is the
 * policy's to decide (src/auth/policy.ts: a job token is nobody outside its projects).
 */
import {
  defaultFieldResolver,
  getDirectiveValues,
  getNamedType,
  isAbstractType,
  isObjectType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { acceptedScopes, requireScope, type OperationKind, type ScopeDeclaration } from '../auth/scopes.js';
import type { Context } from '../context.js';
import { unauthenticated } from '../errors.js';

type Field = GraphQLField<unknown, Context>;
/** The scopes something accepts; null for any scope. */
type Accepted = readonly string[] | null;

function guard(kind: OperationKind, accepted: Accepted, tokenless: boolean) {
  return (ctx: Context) => {
    if (kind === 'mutation' && !ctx.viewer && !tokenless) throw unauthenticated();
    requireScope(ctx.viewer, accepted, ctx.jobTokenRoute);
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

/** The object types a field yields: its own type (in lists too), a connection's nodes, each type an interface or union may be. */
export function yieldedTypes(schema: GraphQLSchema, field: { type: GraphQLField<unknown, unknown>['type'] }): readonly GraphQLObjectType[] {
  let named = getNamedType(field.type);
  const nodes = isObjectType(named) && named.name.endsWith('Connection') ? named.getFields().nodes : undefined;
  if (nodes) named = getNamedType(nodes.type);
  if (isAbstractType(named)) return schema.getPossibleTypes(named);
  return isObjectType(named) ? [named] : [];
}

/** Either set of scopes, or both. */
function union(a: Accepted | undefined, b: Accepted): Accepted {
  if (a === undefined) return b;
  return a === null || b === null ? null : [...new Set([...a, ...b])];
}

/** Only the scopes both accept. */
function intersection(a: Accepted | undefined, b: Accepted): Accepted {
  if (a === undefined || a === null) return b;
  return b === null ? a : a.filter((scope) => b.includes(scope));
}

/**
 * The looked-up types: for each object type a `Query` field yields, the scopes those fields accept together. A field
 * taking a token of any scope (`personalAccessTokenSelf`) shows the caller only its own token: it looks nothing up.
 */
export function lookedUpTypes(schema: GraphQLSchema): ReadonlyMap<string, Accepted> {
  const lookups = new Map<string, Accepted>();
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    const declared = scopeDeclaration(schema, field as Field);
    if (declared?.any) continue;
    const accepted = acceptedScopes('query', declared);
    for (const type of yieldedTypes(schema, field)) lookups.set(type.name, union(lookups.get(type.name), accepted));
  }
  return lookups;
}

/**
 * What a nested field without `@scopes` accepts: the scopes of every looked-up type it may yield (undefined when it
 * yields none, or they accept any scope).
 */
function derivedScopes(schema: GraphQLSchema, lookups: ReadonlyMap<string, Accepted>, field: Field): readonly string[] | undefined {
  let accepted: Accepted | undefined;
  for (const type of yieldedTypes(schema, field)) {
    const lookup = lookups.get(type.name);
    if (lookup !== undefined) accepted = intersection(accepted, lookup);
  }
  return accepted ?? undefined;
}

/**
 * What a nested field accepts: what its types accept and what its `@scopes` adds (`accept`, `jobToken`), or any
 * scope (`any`). Undefined: no check.
 */
function nestedScopes(derived: readonly string[] | undefined, declared: ScopeDeclaration | undefined): readonly string[] | undefined {
  if (!declared) return derived;
  if (declared.any) return undefined;
  const own = acceptedScopes('query', declared) ?? [];
  return derived ? [...new Set([...derived, ...own])] : own;
}

/** Wraps the resolvers in place; call once on the built schema. */
export function enforceScopes(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Map<string, OperationKind>();
  if (schema.getQueryType()) roots.set(schema.getQueryType()?.name ?? '', 'query');
  if (schema.getMutationType()) roots.set(schema.getMutationType()?.name ?? '', 'mutation');
  if (schema.getSubscriptionType()) roots.set(schema.getSubscriptionType()?.name ?? '', 'subscription');
  const lookups = lookedUpTypes(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const rootKind = roots.get(type.name);
    for (const field of Object.values(type.getFields())) {
      const declared = scopeDeclaration(schema, field);
      if (rootKind) {
        wrap(field, guard(rootKind, acceptedScopes(rootKind, declared), declared?.tokenless === true));
        continue;
      }
      // A connection's `nodes` are checked where the connection is: by the field that yields it.
      const derived = type.name.endsWith('Connection') ? undefined : derivedScopes(schema, lookups, field);
      const accepted = nestedScopes(derived, declared);
      if (accepted) wrap(field, guard('query', accepted, false));
    }
  }
  return schema;
}
