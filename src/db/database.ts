/** Opens the database: embedded PGlite (a folder or memory) by default, a PostgreSQL server when a URL is given. */
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { loadConfig, type Config } from '../config.js';
import { pendingMigrations } from './migrations.js';
import { PgliteThread, pgliteFolder, pgliteOptions, startingData } from './pglite-thread.js';
import { attachDirectReads } from './direct-reads.js';
import { PLANNER_SETTINGS } from './planner.js';

export type { PrismaClient } from '../generated/prisma/client.js';
export { Prisma } from '../generated/prisma/client.js';

/** Anything that can run a raw statement: the Prisma client, or the client of an open transaction. */
export type RawExecutor = Pick<PrismaClient, '$executeRaw'>;
/** The same, for a statement that returns rows. */
export type RawQuerier = Pick<PrismaClient, '$queryRaw'>;

/**
 * Which connections a request uses. Read requests (queries, REST GETs, subscriptions) have a pool of their own
 * on PostgreSQL, so however many of them run, they cannot hold the connections writes need.
 */
export type Lane = 'read' | 'write';

export interface Database {
  /** The write lane: mutations, background jobs, events, seeding. */
  prisma: PrismaClient;
  /** The read lane: its own pool on PostgreSQL; on PGlite, one connection for everything, the same client. */
  readPrisma: PrismaClient;
  kind: 'pglite' | 'postgres';
  /** The adapter factory Prisma's schema engine uses to migrate this database. */
  migrationFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Subscribes to a NOTIFY channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** A PGlite folder, or 'memory'. */
  dataDir?: string;
  /** A PGlite data-folder dump to start from (tests start from a migrated dump). */
  loadDataDir?: Blob;
  /** Run PGlite in a worker thread (src/db/pglite-thread.ts); the configuration's default when absent. */
  pgliteWorker?: boolean;
  /** Pool sizes and time bounds; the configuration's defaults when absent. */
  bounds?: DatabaseBounds;
  /** Called for every SQL statement Prisma runs (query-budget tests). */
  onQuery?: (sql: string) => void;
}

/** The pool and time bounds of src/config.ts that the database applies. */
export type DatabaseBounds = Pick<Config, 'databasePoolSize' | 'databaseWritePoolSize' | 'databasePoolTimeoutMs' | 'databaseStatementTimeoutMs'>;

export function databaseBounds(config: Config): DatabaseBounds {
  const { databasePoolSize, databaseWritePoolSize, databasePoolTimeoutMs, databaseStatementTimeoutMs } = config;
  return { databasePoolSize, databaseWritePoolSize, databasePoolTimeoutMs, databaseStatementTimeoutMs };
}

/**
 * Every interactive transaction waits at most the pool timeout to start (its connection, or PGlite's one) and
 * lasts at most the statement timeout: Prisma then answers P2028, which src/errors.ts turns into a 503.
 */
function prismaClient(adapter: SqlDriverAdapterFactory, bounds: DatabaseBounds, onQuery: DatabaseOptions['onQuery']): PrismaClient {
  const transactionOptions = { maxWait: bounds.databasePoolTimeoutMs, timeout: bounds.databaseStatementTimeoutMs };
  if (!onQuery) return new PrismaClient({ adapter, transactionOptions });
  const client = new PrismaClient({ adapter, transactionOptions, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query', (e) => onQuery(e.query));
  return client as unknown as PrismaClient;
}

/** A lane's Prisma client, with direct reads (src/db/direct-reads.ts) on the same adapter factory; `close` ends both. */
function openLane(factory: SqlDriverAdapterFactory, bounds: DatabaseBounds, onQuery: DatabaseOptions['onQuery']): { client: PrismaClient; close(): Promise<void> } {
  const client = prismaClient(factory, bounds, onQuery);
  const detach = attachDirectReads(client, factory, onQuery);
  return {
    client,
    async close() {
      await detach();
      await client.$disconnect();
    },
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const bounds = options.bounds ?? databaseBounds(loadConfig({}));
  return options.databaseUrl ? openPostgres(options.databaseUrl, bounds, options.onQuery) : openPglite(options, bounds);
}

/**
 * PGlite is one connection (in a worker thread with PGLITE_WORKER): there is no pool to split, and WebAssembly
 * cannot interrupt a running statement, so statement_timeout is not enforced. What holds here is the transaction
 * bounds and the request deadlines (src/graphql/deadline.ts).
 */
async function openPglite(options: DatabaseOptions, bounds: DatabaseBounds): Promise<Database> {
  const dataDir = pgliteFolder(options.dataDir);
  let engine: PgliteEngine;
  if (options.pgliteWorker ?? loadConfig({}).pgliteWorker) {
    // PGlite and its adapter in a worker thread: the server's thread keeps only Prisma's side of each statement.
    // Started before this function first waits (or earlier still, by src/main.ts), so the worker boots while the
    // caller goes on (the server builds its schema meanwhile); it reads the template itself.
    engine = await PgliteThread.open(dataDir, options.loadDataDir);
  } else {
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import('@electric-sql/pglite'), import('pglite-prisma-adapter')]);
    const opening = pgliteOptions(dataDir, options.loadDataDir);
    const loadDataDir = await startingData(opening);
    const pglite = await PGlite.create({ dataDir, loadDataDir, startParams: [...PGlite.defaultStartParams, ...opening.startParams] });
    engine = { factory: new PrismaPGlite(pglite), listen: (channel, onPayload) => pglite.listen(channel, onPayload), close: () => pglite.close() };
  }
  const lane = openLane(engine.factory, bounds, options.onQuery);
  return {
    prisma: lane.client,
    readPrisma: lane.client,
    kind: 'pglite',
    migrationFactory: engine.factory,
    listen: (channel, onPayload) => engine.listen(channel, onPayload),
    async close() {
      await lane.close();
      await engine.close();
    },
  };
}

/** The one PGlite, in this thread or another: its adapter factory, LISTEN, and closing. */
interface PgliteEngine {
  factory: SqlMigrationAwareDriverAdapterFactory;
  listen: Database['listen'];
  close(): Promise<void>;
}

/**
 * Two pools, one per lane, together `databasePoolSize` connections. A statement runs at most the statement timeout
 * (PostgreSQL cancels it), and waits at most the pool timeout for a connection (pg-pool gives up). Migrations get
 * a pool of their own without the statement timeout: building an index may take longer than any request may.
 */
async function openPostgres(url: string, bounds: DatabaseBounds, onQuery: DatabaseOptions['onQuery']): Promise<Database> {
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import('pg'), import('@prisma/adapter-pg')]);
  const lanePool = (max: number) => {
    const pool = new pg.Pool({
      connectionString: url,
      max,
      connectionTimeoutMillis: bounds.databasePoolTimeoutMs,
      statement_timeout: bounds.databaseStatementTimeoutMs,
      // Each connection's planner settings (src/db/planner.ts), sent in its startup packet.
      options: PLANNER_SETTINGS.map((setting) => `-c ${setting}`).join(' '),
    });
    pool.on('error', () => {}); // an idle client's lost connection; the pool replaces it on next use
    return pool;
  };
  const writePool = lanePool(bounds.databaseWritePoolSize);
  const readPool = lanePool(bounds.databasePoolSize - bounds.databaseWritePoolSize);
  const migrationPool = new pg.Pool({ connectionString: url, max: 1 });
  migrationPool.on('error', () => {});
  const write = openLane(new PrismaPg(writePool), bounds, onQuery);
  const read = openLane(new PrismaPg(readPool), bounds, onQuery);
  const listener = new Listener(pg, url);
  return {
    prisma: write.client,
    readPrisma: read.client,
    kind: 'postgres',
    migrationFactory: wholeScripts(new PrismaPg(migrationPool)),
    listen: (channel, onPayload) => listener.listen(channel, onPayload),
    async close() {
      await Promise.all([write.close(), read.close()]);
      await listener.close();
      await Promise.all([writePool.end(), readPool.end(), migrationPool.end()]);
    },
  };
}

/**
 * adapter-pg runs a migration script statement by statement, cutting it at every `;`, which breaks a function body
 * (`$$ … ; … $$`, the trigger of migration 20270127600001) and a comment holding one. PostgreSQL's simple query
 * protocol takes the whole script instead: the server's own parser splits it, and runs it as one implicit
 * transaction, so a migration applies whole or not at all. Errors reach the schema engine as adapter-pg's own.
 */
function wholeScripts(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  const whole = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    // adapter-pg's adapter over a pool: the pool, and its conversion of pg's errors.
    const queryable = adapter as SqlDriverAdapter & { underlyingDriver(): pg.Pool; onError(error: unknown): never };
    const pool = queryable.underlyingDriver();
    adapter.executeScript = async (script: string) => {
      await pool.query(script).catch((error: unknown) => queryable.onError(error));
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => whole(await factory.connect()),
    connectToShadowDb: async () => whole(await factory.connectToShadowDb()),
  };
}

/**
 * LISTEN needs a connection of its own (a pooled one would be handed to other queries). When that connection
 * drops, it reconnects with backoff and listens again on every channel; notifications sent in the gap are lost.
 */
class Listener {
  private client: Promise<pg.Client> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private retryMs = 100;

  constructor(
    private readonly pg: typeof import('pg').default,
    private readonly url: string,
  ) {}

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const client = await this.connect();
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await client.query(`LISTEN ${this.pg.escapeIdentifier(channel)}`);
    }
    set.add(onPayload);
    return async () => {
      set.delete(onPayload);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): Promise<pg.Client> {
    this.client ??= (async () => {
      const client = new this.pg.Client({ connectionString: this.url });
      client.on('notification', (msg) => this.handlers.get(msg.channel)?.forEach((h) => h(msg.payload ?? '')));
      const lost = () => this.reconnect(client);
      client.on('error', lost);
      client.on('end', lost);
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${this.pg.escapeIdentifier(channel)}`);
      this.retryMs = 100;
      return client;
    })();
    return this.client;
  }

  private reconnect(lostClient: pg.Client): void {
    if (this.closed) return;
    void this.client?.then((current) => {
      if (current !== lostClient) return;
      this.client = undefined;
      const retry = () => {
        if (this.closed) return;
        this.connect().catch(() => {
          this.client = undefined;
          this.retryMs = Math.min(this.retryMs * 2, 10_000);
          setTimeout(retry, this.retryMs);
        });
      };
      setTimeout(retry, this.retryMs);
    });
  }
}

/**
 * Opens and migrates. The schema engine is loaded only when a migration is pending; several replicas starting
 * together on PostgreSQL may all find one pending, and the engine's lock then lets one apply it.
 */
export async function openMigratedDatabase(options: DatabaseOptions): Promise<{ db: Database; pending: string[]; applied: string[] }> {
  const db = await openDatabase(options);
  try {
    const pending = await pendingMigrations(db.prisma);
    if (!pending.length) return { db, pending, applied: [] };
    const { applyMigrations } = await import('./engine.js');
    return { db, pending, applied: await applyMigrations(db.migrationFactory) };
  } catch (err) {
    await db.close();
    throw err;
  }
}
