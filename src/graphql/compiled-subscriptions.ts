/**
 * Subscriptions over graphql-ws executed by compiled operations: an event that fans out to thousands of
 * subscriptions of one operation runs a function made once for that operation (graphql-jit) per subscriber,
 * instead of graphql-js walking the document again each time. The operations share their document (ws-limits.ts
 * parses each distinct text once), so one compilation serves them all.
 */
import { GraphQLError, createSourceEventStream, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** Compiled operations by document and operation name; a document's entry goes with the document. */
const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | ExecutionResult>>();

function compiledOperation(args: ExecutionArgs): CompiledQuery | ExecutionResult {
  let byName = compiled.get(args.document);
  if (!byName) {
    byName = new Map();
    compiled.set(args.document, byName);
  }
  const name = args.operationName ?? '';
  let operation = byName.get(name);
  if (!operation) {
    operation = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    byName.set(name, operation);
  }
  return operation;
}

/**
 * The source's events, each mapped through `run`; return() reaches the source at once, even while it waits. A class,
 * not closures: one lives as long as each subscription, so its methods are shared.
 */
class MappedEvents<T> implements AsyncIterableIterator<T> {
  private readonly iterator: AsyncIterator<unknown>;

  constructor(
    source: AsyncIterable<unknown>,
    private readonly run: (payload: unknown) => T | Promise<T>,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async step(result: IteratorResult<unknown>): Promise<IteratorResult<T>> {
    return result.done ? { value: undefined, done: true } : { value: await this.run(result.value), done: false };
  }

  async next(): Promise<IteratorResult<T>> {
    return this.step(await this.iterator.next());
  }

  async return(): Promise<IteratorResult<T>> {
    return this.iterator.return ? this.step(await this.iterator.return()) : { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T>> {
    if (this.iterator.throw) return this.step(await this.iterator.throw(error));
    throw error;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** The arguments graphql-ws hands `subscribe` (ws-limits.ts), with where the context its events run with comes from. */
export interface SubscriptionArgs extends ExecutionArgs {
  /** The context an event runs with, by the event (the bus hands every subscription the same message object). */
  eventContext?: (event: unknown) => unknown;
}

/**
 * Errors of the request itself (no path: a variable its type refuses, such as a global ID of another model) are the
 * client's, as Apollo codes them over HTTP (BAD_USER_INPUT), not errors to mask.
 */
function withRequestErrorsCoded(result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  const errors = result.errors.map((e) =>
    e.path || e.extensions?.code ? e : new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { ...e.extensions, code: 'BAD_USER_INPUT' } }),
  );
  return { ...result, errors };
}

/**
 * graphql-ws's `subscribe`. The source stream is graphql-js's own (the subscribe resolver with the field's
 * arguments, its errors as graphql-js reports them): graphql-jit's `subscribe` hands that resolver the operation's
 * variables in place of the field's arguments. Each event is then executed by the compiled operation.
 *
 * A subscription lives long, and graphql-ws keeps its arguments while it does: the context its subscribe resolver
 * ran with (the services it built, the rows its loaders keep) is let go once the stream exists, and its events run
 * with the context `eventContext` gives (ws-limits.ts: one per event and connection).
 */
export async function subscribeCompiled(args: SubscriptionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const operation = compiledOperation(args);
  if (!isCompiledQuery(operation)) return operation;
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return withRequestErrorsCoded(source);
  const { eventContext, variableValues } = args;
  if (!eventContext) return new MappedEvents(source, (payload) => operation.query(payload, args.contextValue, variableValues));
  args.contextValue = undefined;
  return new MappedEvents(source, (payload) => operation.query(payload, eventContext(payload), variableValues));
}
