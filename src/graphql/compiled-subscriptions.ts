/**
 * Subscriptions over graphql-ws executed by compiled operations: an event that fans out to thousands of
 * subscriptions of one operation runs a function made once for that operation (graphql-jit) per subscriber,
 * instead of graphql-js walking the document again each time. The operations share their document (ws-limits.ts
 * parses each distinct text once), so one compilation serves them all.
 */
import { createSourceEventStream, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
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

/** The source's events, each mapped through `run`; return() reaches the source at once, even while it waits. */
function mapEvents<T>(source: AsyncIterable<unknown>, run: (payload: unknown) => T | Promise<T>): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const step = async (result: IteratorResult<unknown>): Promise<IteratorResult<T>> =>
    result.done ? { value: undefined, done: true } : { value: await run(result.value), done: false };
  const mapped: AsyncIterableIterator<T> = {
    next: () => iterator.next().then(step),
    return: async () => (iterator.return ? step(await iterator.return()) : { value: undefined, done: true }),
    throw: async (error: unknown) => {
      if (iterator.throw) return step(await iterator.throw(error));
      throw error;
    },
    [Symbol.asyncIterator]: () => mapped,
  };
  return mapped;
}

/** The arguments graphql-ws hands `subscribe` (ws-limits.ts), with where the context its events run with comes from. */
export interface SubscriptionArgs extends ExecutionArgs {
  eventContext?: () => unknown;
}

/**
 * graphql-ws's `subscribe`. The source stream is graphql-js's own (the subscribe resolver with the field's
 * arguments, its errors as graphql-js reports them): graphql-jit's `subscribe` hands that resolver the operation's
 * variables in place of the field's arguments. Each event is then executed by the compiled operation.
 *
 * A subscription lives long, and graphql-ws keeps its arguments while it does: the context its subscribe resolver
 * ran with (the services it built, the rows its loaders keep) is let go once the stream exists, and its events run
 * with the context `eventContext` gives (ws-limits.ts: one per connection).
 */
export async function subscribeCompiled(args: SubscriptionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const operation = compiledOperation(args);
  if (!isCompiledQuery(operation)) return operation;
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const { eventContext, variableValues } = args;
  if (!eventContext) return mapEvents(source, (payload) => operation.query(payload, args.contextValue, variableValues));
  args.contextValue = undefined;
  return mapEvents(source, (payload) => operation.query(payload, eventContext(), variableValues));
}
