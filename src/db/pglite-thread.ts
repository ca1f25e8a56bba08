/**
 * PGlite in a worker thread (PGLITE_WORKER): the main thread keeps a driver-adapter factory whose every call is a
 * message to src/db/pglite-worker.ts, where pglite-prisma-adapter runs on the one PGlite. PGlite's own PGliteWorker
 * needs a browser (navigator.locks, Web Workers), so this is the bridge for node:worker_threads.
 *
 * Semantics are the in-thread adapter's: the worker handles messages in arrival order and PGlite's transaction lock
 * keeps other statements out of an open transaction. Values cross by structured clone, which keeps what the adapter
 * returns (strings, numbers, booleans, Uint8Array) and what Prisma passes in (Date, Uint8Array) intact.
 */
import { existsSync, openAsBlob } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CODE_DIR, workerBootstrap } from '../paths.js';
import { extractTemplate } from './pglite-template.js';
import { PLANNER_SETTINGS } from './planner.js';
import {
  DriverAdapterError,
  type ConnectionInfo,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
  type TransactionOptions,
} from '@prisma/driver-adapter-utils';

/** What the worker opens: the same options as an in-thread PGlite. */
export interface WorkerOptions {
  dataDir: string | undefined;
  /** A data folder to start from (a new database): as bytes, or as a file the worker reads itself. */
  loadDataDir: Blob | undefined;
  loadDataDirFile?: string;
  /** Added to PGlite's default start parameters. */
  startParams: string[];
}

type Call =
  | { op: 'connect' }
  | { op: 'connectShadow' }
  | { op: 'queryRaw' | 'executeRaw'; adapter: number; tx?: number; query: SqlQuery }
  | { op: 'executeScript'; adapter: number; script: string }
  | { op: 'startTransaction'; adapter: number; isolationLevel?: IsolationLevel }
  | { op: 'commit' | 'rollback'; tx: number }
  | { op: 'dispose'; adapter: number }
  | { op: 'listen'; channel: string; subscription: number }
  | { op: 'unlisten'; listener: number }
  | { op: 'close' };

export type Request = Call & { id: number };

interface SerialisedError {
  name: string;
  message: string;
  stack?: string;
  cause?: unknown;
}

export type Reply = { ready: true } | { id: number; value: unknown } | { id: number; error: SerialisedError } | { subscription: number; payload: string };

/**
 * A migrated PGlite data folder written by the build (src/build.mjs), next to the compiled code; absent when
 * running from src/ (tests), where a new database runs initdb and the migrations instead.
 */
const PGLITE_TEMPLATE = join(CODE_DIR, 'pglite-template.tar');

/**
 * PostgreSQL's default 128 MB of shared buffers live in WebAssembly memory, which only grows: the server's idle size
 * would be mostly cache. The data folder's files still sit in the operating system's page cache. The planner keeps
 * explicit joins in their written order (src/db/planner.ts).
 */
const PGLITE_START_PARAMS = ['-c', 'shared_buffers=16MB', ...PLANNER_SETTINGS.flatMap((setting) => ['-c', setting])];

/** The folder PGlite opens for a configured DATA_DIR: none (memory) for 'memory' or nothing. */
export function pgliteFolder(dataDir: string | undefined): string | undefined {
  return !dataDir || dataDir === 'memory' ? undefined : dataDir;
}

/** The build's template, for a new database (a folder without PG_VERSION, or memory) when there is one. */
function templateFor(dataDir: string | undefined): string | undefined {
  const isNew = !dataDir || !existsSync(join(dataDir, 'PG_VERSION'));
  return isNew && existsSync(PGLITE_TEMPLATE) ? PGLITE_TEMPLATE : undefined;
}

/**
 * How PGlite opens this folder (or memory), in a worker or in this thread: a new database starts from `loadDataDir`
 * when given, else from the build's template; `startParams` go after PGlite's default ones.
 */
export function pgliteOptions(dataDir: string | undefined, loadDataDir?: Blob): WorkerOptions {
  return { dataDir, loadDataDir, loadDataDirFile: loadDataDir ? undefined : templateFor(dataDir), startParams: PGLITE_START_PARAMS };
}

/**
 * What PGlite is given to start from, in the thread that opens it: the data given; for a new folder, nothing, once
 * the template's files are written to it (src/db/pglite-template.ts); for memory, the template's bytes.
 */
export async function startingData(options: WorkerOptions): Promise<Blob | undefined> {
  if (options.loadDataDir || !options.loadDataDirFile) return options.loadDataDir;
  // A Blob backed by the file: PGlite reads it once, where a Blob of its bytes would be two more copies.
  if (!options.dataDir) return openAsBlob(options.loadDataDirFile);
  extractTemplate(options.loadDataDirFile, options.dataDir);
  return undefined;
}

/** The adapter name Prisma sees; the same as pglite-prisma-adapter's, since the same code answers. */
const ADAPTER_NAME = 'pglite-prisma-adapter';

/**
 * The worker runs what the main thread runs: compiled JavaScript (`npm start`, dist/) as is; TypeScript (tests,
 * tsx) with tsx's loader, registered inside the worker before its import.
 */
function rebuild(error: SerialisedError): Error {
  const rebuilt = error.name === 'DriverAdapterError' ? new DriverAdapterError(error.cause as DriverAdapterError['cause']) : new Error(error.message);
  rebuilt.message = error.message;
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}

/** The worker src/main.ts started before the server's code loaded, for the folder it opens. */
let ahead: { dataDir: string | undefined; thread: Promise<PgliteThread> } | undefined;

export class PgliteThread {
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly subscriptions = new Map<number, (payload: string) => void>();
  private nextId = 1;
  private failure: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly started: { resolve: () => void; reject: (error: Error) => void },
  ) {
    worker.on('message', (reply: Reply) => this.receive(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the PGlite worker thread exited (code ${code})`)));
  }

  /**
   * Starts the worker for this folder (or memory) now, for `open` to take up: it boots while the main thread loads
   * and builds the server (the server's code takes about as long to load as PGlite takes to boot).
   */
  static startAhead(dataDir: string | undefined): void {
    const thread = PgliteThread.start(pgliteOptions(dataDir));
    thread.catch(() => {}); // heard by whoever takes it up
    ahead = { dataDir, thread };
  }

  /**
   * The worker for this folder (see `pgliteOptions`): the one started ahead when it opens the same folder, else a new
   * one. Resolves once its PGlite is open.
   */
  static open(dataDir: string | undefined, loadDataDir: Blob | undefined): Promise<PgliteThread> {
    if (ahead && !loadDataDir && ahead.dataDir === dataDir) {
      const { thread } = ahead;
      ahead = undefined;
      return thread;
    }
    return PgliteThread.start(pgliteOptions(dataDir, loadDataDir));
  }

  /** Starts the worker and resolves once its PGlite is open. */
  private static async start(options: WorkerOptions): Promise<PgliteThread> {
    const worker = new Worker(workerBootstrap('db/pglite-worker'), { eval: true, workerData: options });
    return new Promise((resolve, reject) => {
      const thread: PgliteThread = new PgliteThread(worker, { resolve: () => resolve(thread), reject });
    });
  }

  /** The driver-adapter factory for Prisma and for the schema engine. */
  readonly factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: 'postgres',
    adapterName: ADAPTER_NAME,
    connect: async () => this.adapter((await this.call({ op: 'connect' })) as number),
    connectToShadowDb: async () => this.adapter((await this.call({ op: 'connectShadow' })) as number),
  };

  /** Subscribes to a NOTIFY channel of the worker's PGlite; resolves to an unsubscribe function. */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const subscription = this.nextId++;
    this.subscriptions.set(subscription, onPayload);
    const listener = (await this.call({ op: 'listen', channel, subscription })) as number;
    return async () => {
      this.subscriptions.delete(subscription);
      await this.call({ op: 'unlisten', listener });
    };
  }

  async close(): Promise<void> {
    if (!this.failure) await this.call({ op: 'close' });
    await this.worker.terminate();
  }

  private call(call: Call): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...call, id } satisfies Request);
    });
  }

  private receive(reply: Reply): void {
    if ('ready' in reply) return this.started.resolve();
    if ('subscription' in reply) return this.subscriptions.get(reply.subscription)?.(reply.payload);
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if ('error' in reply) waiting?.reject(rebuild(reply.error));
    else waiting?.resolve(reply.value);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.started.reject(error);
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  private adapter(id: number): SqlDriverAdapter {
    const connectionInfo: ConnectionInfo = { supportsRelationJoins: true };
    return {
      provider: 'postgres',
      adapterName: ADAPTER_NAME,
      queryRaw: (query) => this.call({ op: 'queryRaw', adapter: id, query }) as Promise<SqlResultSet>,
      executeRaw: (query) => this.call({ op: 'executeRaw', adapter: id, query }) as Promise<number>,
      executeScript: async (script) => {
        await this.call({ op: 'executeScript', adapter: id, script });
      },
      startTransaction: async (isolationLevel) => {
        const started = (await this.call({ op: 'startTransaction', adapter: id, isolationLevel })) as { id: number; options: TransactionOptions };
        return this.transaction(id, started.id, started.options);
      },
      getConnectionInfo: () => connectionInfo,
      dispose: async () => {
        await this.call({ op: 'dispose', adapter: id });
      },
    };
  }

  private transaction(adapter: number, tx: number, options: TransactionOptions): Transaction {
    return {
      provider: 'postgres',
      adapterName: ADAPTER_NAME,
      options,
      queryRaw: (query) => this.call({ op: 'queryRaw', adapter, tx, query }) as Promise<SqlResultSet>,
      executeRaw: (query) => this.call({ op: 'executeRaw', adapter, tx, query }) as Promise<number>,
      commit: async () => {
        await this.call({ op: 'commit', tx });
      },
      rollback: async () => {
        await this.call({ op: 'rollback', tx });
      },
    };
  }
}
