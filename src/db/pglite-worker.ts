/**
 * The worker thread that owns PGlite when PGLITE_WORKER is on (src/db/pglite-thread.ts starts it): the database and
 * pglite-prisma-adapter run here, so their CPU work (WebAssembly, parsing rows) leaves the server's thread. It answers
 * the driver-adapter calls the main thread forwards, and posts LISTEN notifications back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { SqlDriverAdapter, Transaction } from '@prisma/driver-adapter-utils';
import { startingData, type Reply, type Request, type WorkerOptions } from './pglite-thread.js';

const port = parentPort;
if (!port) throw new Error('pglite-worker.ts runs only as a worker thread');

const options = workerData as WorkerOptions;
const loadDataDir = await startingData(options);
const pglite = await PGlite.create({ dataDir: options.dataDir, loadDataDir, startParams: [...PGlite.defaultStartParams, ...options.startParams] });
const factory = new PrismaPGlite(pglite);
/** Each adapter with the PGlite under it (the database, or a shadow database the schema engine asked for). */
const adapters = new Map<number, { adapter: SqlDriverAdapter; db: PGlite }>();
const transactions = new Map<number, Transaction>();
const unlisteners = new Map<number, () => Promise<void>>();
const shadows: PGlite[] = [];
let nextId = 1;

function connection(id: number): { adapter: SqlDriverAdapter; db: PGlite } {
  const found = adapters.get(id);
  if (!found) throw new Error(`no PGlite adapter ${id} in the worker`);
  return found;
}

const adapter = (id: number) => connection(id).adapter;

function transaction(id: number): Transaction {
  const found = transactions.get(id);
  if (!found) throw new Error(`no PGlite transaction ${id} in the worker`);
  return found;
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'connect': {
      const id = nextId++;
      adapters.set(id, { adapter: await factory.connect(), db: pglite });
      return id;
    }
    case 'connectShadow': {
      // The adapter's own shadow database would be a PGlite nobody closes; keep it to close with the worker.
      const shadow = new PGlite({ dataDir: 'memory://shadow' });
      shadows.push(shadow);
      const id = nextId++;
      adapters.set(id, { adapter: await new PrismaPGlite(shadow).connect(), db: shadow });
      return id;
    }
    case 'queryRaw':
      return (request.tx ? transaction(request.tx) : adapter(request.adapter)).queryRaw(request.query);
    case 'executeRaw':
      return (request.tx ? transaction(request.tx) : adapter(request.adapter)).executeRaw(request.query);
    case 'executeScript':
      // The adapter's executeScript starts the script without awaiting it; its failure would end this thread.
      await connection(request.adapter).db.exec(request.script);
      return undefined;
    case 'startTransaction': {
      const tx = await adapter(request.adapter).startTransaction(request.isolationLevel);
      const id = nextId++;
      transactions.set(id, tx);
      return { id, options: tx.options };
    }
    case 'commit':
    case 'rollback': {
      const tx = transaction(request.tx);
      transactions.delete(request.tx);
      return request.op === 'commit' ? tx.commit() : tx.rollback();
    }
    case 'dispose': {
      const found = adapter(request.adapter);
      adapters.delete(request.adapter);
      return found.dispose();
    }
    case 'listen': {
      const id = nextId++;
      const subscription = request.subscription;
      unlisteners.set(id, await pglite.listen(request.channel, (payload) => port?.postMessage({ subscription, payload } satisfies Reply)));
      return id;
    }
    case 'unlisten': {
      const unlisten = unlisteners.get(request.listener);
      unlisteners.delete(request.listener);
      return unlisten?.();
    }
    case 'close':
      await Promise.all(shadows.map((shadow) => shadow.close()));
      await pglite.close();
      return undefined;
  }
}

/** Errors cross as plain objects: the main thread rebuilds a DriverAdapterError from name and cause. */
function serialise(error: unknown): { name: string; message: string; stack?: string; cause?: unknown } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const cause = error.name === 'DriverAdapterError' ? (error as Error & { cause: unknown }).cause : undefined;
  return { name: error.name, message: error.message, stack: error.stack, cause };
}

port.on('message', (request: Request) => {
  handle(request).then(
    (value) => port.postMessage({ id: request.id, value } satisfies Reply),
    (error: unknown) => port.postMessage({ id: request.id, error: serialise(error) } satisfies Reply),
  );
});
port.postMessage({ ready: true } satisfies Reply);
