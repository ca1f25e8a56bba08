/**
 * Bounds of one graphql-ws connection: the operation bounds of bounds.ts for every `subscribe` message, at most
 * `wsMaxSubscriptions` operations running at a time (the next one is refused with an error; the others go on),
 * and at most `wsMessagesPerMinute` messages of any kind (beyond, the socket is closed with 1008, Policy
 * Violation, which graphql-ws clients treat as final rather than reconnecting at once).
 */
import { unifyIdVariables } from './global-ids.js';
import { GraphQLError, getOperationAST, parse, specifiedRules, validate, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { cleanValue } from '../http/input.js';
import { NoNullBytes } from './input.js';
import type { SubscribePayload } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { Viewer } from '../auth/viewer.js';
import { createContext, type App, type Context } from '../context.js';
import { limitExceeded } from '../errors.js';
import { boundOperation, querySizeError } from './bounds.js';
import type { SubscriptionArgs } from './compiled-subscriptions.js';

const POLICY_VIOLATION = 1008;
const MINUTE_MS = 60_000;

/** A graphql-js error with the client-error code Apollo gives it over HTTP, so that it is shown, not masked. */
function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...error.extensions, code } });
}

/** Operations kept parsed and validated, by their text: the subscribers of one dashboard send the same few. */
const DOCUMENT_CACHE_SIZE = 500;

/** The operation's document, or why it is refused; one parse and validation per distinct text, shared. */
function parsedDocument(schema: GraphQLSchema, documents: Map<string, DocumentNode | GraphQLError[]>, query: string): DocumentNode | GraphQLError[] {
  const cached = documents.get(query);
  if (cached) return cached;
  let result: DocumentNode | GraphQLError[];
  try {
    const document = unifyIdVariables(schema, parse(query));
    const invalid = validate(schema, document, [...specifiedRules, NoNullBytes]);
    result = invalid.length ? invalid.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')) : document;
  } catch (error) {
    result = [withCode(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
  }
  // The oldest entry goes first: a Map iterates in insertion order.
  if (documents.size >= DOCUMENT_CACHE_SIZE) documents.delete(documents.keys().next().value as string);
  documents.set(query, result);
  return result;
}

interface Connection {
  subscriptions: Record<string, unknown>;
  extra: { viewer?: Viewer | null; events?: WeakMap<object, Context> };
}

/**
 * graphql-ws's `onSubscribe`: parses, validates and bounds the operation, and builds its context (which records
 * the measured complexity for `queryComplexity`), and for a subscription where its events' context comes from.
 * Refusals are sent as the operation's errors.
 */
/**
 * What tells one event from another for the subscriptions of a connection: the value of the payload's root field.
 * Each subscription wraps it in a payload of its own (`{ ciPipelineStatusUpdated: pipeline }`), while the value is
 * the same object for every subscriber of one bus message (the modules make it once per message, `perMessage`).
 */
function eventKey(event: unknown): object | null {
  if (typeof event !== 'object' || event === null) return null;
  const values = Object.values(event);
  const value = values.length === 1 ? values[0] : event;
  return typeof value === 'object' && value !== null ? value : event;
}

export function prepareOperation(app: App, schema: GraphQLSchema) {
  const documents = new Map<string, DocumentNode | GraphQLError[]>();
  return (ctx: Connection, _id: string, payload: SubscribePayload): ExecutionArgs | GraphQLError[] => {
    // The operation being subscribed is already listed.
    if (Object.keys(ctx.subscriptions).length > app.config.wsMaxSubscriptions) {
      return [limitExceeded(`Too many subscriptions: at most ${app.config.wsMaxSubscriptions} operations may run at a time on one connection`)];
    }
    const tooLarge = querySizeError(payload.query);
    if (tooLarge) return [tooLarge];
    if (!cleanValue(payload.variables)) return [withCode(new GraphQLError('Variables may not contain a null byte.'), 'BAD_USER_INPUT')];
    const document = parsedDocument(schema, documents, payload.query);
    if (Array.isArray(document)) return document;
    // Subscriptions and queries read; a mutation sent over the socket writes.
    const kind = getOperationAST(document, payload.operationName)?.operation;
    const lane = kind === 'mutation' ? 'write' : 'read';
    const viewer = ctx.extra.viewer ?? null;
    const contextValue = createContext(app, viewer, { lane });
    const refused = boundOperation(schema, document, payload.operationName, payload.variables, contextValue, app.config.graphqlMaxNodes);
    if (refused.length) return refused;
    const args: SubscriptionArgs = { schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue };
    // Each event runs with one context for all of a connection's subscriptions (one viewer's) it reaches: what they
    // load is loaded once for all of them, nothing is kept per subscription, and nothing outlives the event (a
    // context kept for the connection would keep every row its loaders ever read, and show them stale).
    if (kind === 'subscription') {
      args.eventContext = (event) => {
        const key = eventKey(event);
        if (!key) return createContext(app, viewer, { lane });
        const contexts = (ctx.extra.events ??= new WeakMap());
        let context = contexts.get(key);
        if (!context) contexts.set(key, (context = createContext(app, viewer, { lane })));
        return context;
      };
    }
    return args;
  };
}

/**
 * Counts a socket's messages in one-minute windows and closes it past the limit. From then on its messages are
 * dropped unread (graphql-ws's handler is removed too), while the close handshake completes.
 */
export function limitMessageRate(socket: WebSocket, perMinute: number): void {
  if (perMinute === 0) return;
  let windowStart = Date.now();
  let count = 0;
  socket.on('message', () => {
    const now = Date.now();
    if (now - windowStart >= MINUTE_MS) {
      windowStart = now;
      count = 0;
    }
    if (++count <= perMinute) return;
    socket.removeAllListeners('message');
    socket.close(POLICY_VIOLATION, `Too many messages: at most ${perMinute} per minute`);
  });
}
