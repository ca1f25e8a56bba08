/**
 * GitLab's relay mutations (graphql-ruby's `Mutations::BaseMutation`): a mutation takes one argument,
 * `input: <Name>Input!`, carrying `clientMutationId`, and answers `<Name>Payload { <object> errors clientMutationId }`.
 * Module resolvers see the input's fields as their arguments and return the payload's object fields; this wrapper,
 * applied once to the built schema, unpacks the input, echoes `clientMutationId`, and defaults `errors` to none.
 *
 * Services throw coded errors (src/errors.ts) whoever calls. Where GitLab reports a failure in the payload's
 * `errors` (a record that does not validate, a service's refusal of a well-formed request), a GraphQL caller gets it
 * there, with the object null; authorisation failures, missing objects and malformed arguments stay top-level
 * errors, as GitLab raises them. The REST adapter asks for thrown errors, so REST keeps its structured bodies.
 */
import { GraphQLError, isInputObjectType, isNonNullType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { Context } from '../context.js';
import { fromDatabase, isCoded, ownWords, type ErrorExtensions } from '../errors.js';
import { snakeCase } from '../rest/params.js';

type Input = { clientMutationId?: string | null } & Record<string, unknown>;

/** Wraps every Mutation field that takes `input:`; call once on the built schema. */
export function relayMutations(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  for (const field of Object.values(mutation?.getFields() ?? {})) {
    const resolve = field.resolve as GraphQLFieldResolver<unknown, Context, Record<string, unknown>> | undefined;
    if (!resolve || !isRelay(field.args)) continue;
    field.resolve = async (source, args: { input?: Input }, ctx, info) => {
      const { clientMutationId = null, ...input } = args.input ?? {};
      try {
        const payload = (await resolve(source, input, ctx, info)) as Record<string, unknown>;
        return { errors: [], ...payload, clientMutationId };
      } catch (error) {
        if (ctx.mutationErrors === 'throw') throw error;
        // A duplicate that passed the service's check and met a unique index is the check's refusal (fromDatabase).
        const coded = fromDatabase(error) ?? error;
        const errors = payloadErrors(coded);
        if (errors) return { errors, clientMutationId };
        throw resourceNotAvailable(coded);
      }
    };
  }
  return schema;
}

/**
 * GitLab's `ResourceNotAvailable`, which a mutation raises for an object that is missing or that the caller may not
 * change (`authorized_find!`), worded alike so the two cannot be told apart; the code stays for clients that read it.
 */
const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

function resourceNotAvailable(error: unknown): unknown {
  if (!isCoded(error)) return error;
  const code = (error.extensions as unknown as ErrorExtensions).code;
  if ((code !== 'NOT_FOUND' && code !== 'FORBIDDEN') || (error.extensions as unknown as ErrorExtensions).ownWords) return error;
  return new GraphQLError(RESOURCE_NOT_AVAILABLE, { extensions: { code }, originalError: error });
}

/** One argument, `input`, of a non-null input object type: graphql-ruby's relay shape. */
function isRelay(args: readonly { name: string; type: unknown }[]): boolean {
  return args.length === 1 && args[0].name === 'input' && isNonNullType(args[0].type) && isInputObjectType(args[0].type.ofType);
}

/**
 * The messages GitLab reports in a payload's `errors` for this error, or null when GitLab raises it instead: a
 * record's validation failures as Rails words them in full (`Name has already been taken`), and a refusal of a
 * well-formed request (BAD_USER_INPUT without a parameter, CONFLICT, a 403 for the object's state or in the service's
 * own words) without REST's status prefix.
 */
export function payloadErrors(error: unknown): string[] | null {
  if (!isCoded(error)) return null;
  const ext = error.extensions as unknown as ErrorExtensions;
  if ((ext.code === 'BAD_USER_INPUT' || ext.code === 'CONFLICT') && ext.fields) return fullMessages(ext.fields);
  if (ext.code === 'BAD_USER_INPUT' && ext.payload) return [ext.payload];
  // A refusal in the service's own words (`refused`), or for the object's state (`stateForbids`), is the service's
  // answer; any other 403 is the caller's rights, GitLab's ResourceNotAvailable.
  const says = ext.code === 'FORBIDDEN' && (ext.state || (!ext.reason && error.message !== '403 Forbidden'));
  // A record's errors on one attribute (a merge request's branches, `attributeError`) are its validation errors too.
  const refusal = (ext.code === 'BAD_USER_INPUT' && !ext.params && !ext.problems) || ext.code === 'CONFLICT' || (ext.code === 'UNPROCESSABLE' && !!ext.listed) || says;
  return refusal ? [ownWords(error)] : null;
}

/** Rails' `errors.full_messages`: the attribute humanized before each message, none before `base`'s. */
function fullMessages(fields: Record<string, string[]>): string[] {
  return Object.entries(fields).flatMap(([field, messages]) => {
    if (field === 'base') return messages;
    const words = snakeCase(field).replace(/_/g, ' ');
    const attribute = words.charAt(0).toUpperCase() + words.slice(1);
    return messages.map((message) => `${attribute} ${message}`);
  });
}
