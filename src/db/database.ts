/** Opens the database: embedded PGlite (a folder or memory) by default, a PostgreSQL server when a URL is given. */
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { applyMigrations } from './engine.js';

export type { PrismaClient } from '../generated/prisma/client.js';
export { Prisma } from '../generated/prisma/client.js';

export interface Database {
  prisma: PrismaClient;
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
  /** Connections in the PostgreSQL pool. */
  poolSize?: number;
  /** Called for every SQL statement Prisma runs (query-budget tests). */
  onQuery?: (sql: string) => void;
}

function prismaClient(adapter: PrismaPGlite | PrismaPg, onQuery: DatabaseOptions['onQuery']): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const client = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  client.$on('query', (e) => onQuery(e.query));
  return client as unknown as PrismaClient;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.onQuery) : openPglite(options);
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  const dataDir = !options.dataDir || options.dataDir === 'memory' ? undefined : options.dataDir;
  const pglite = await PGlite.create({ dataDir, loadDataDir: options.loadDataDir });
  const factory = new PrismaPGlite(pglite);
  const prisma = prismaClient(factory, options.onQuery);
  return {
    prisma,
    kind: 'pglite',
    migrationFactory: factory,
    listen: (channel, onPayload) => pglite.listen(channel, onPayload),
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

async function openPostgres(url: string, poolSize: number, onQuery: DatabaseOptions['onQuery']): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {}); // an idle client's lost connection; the pool replaces it on next use
  const factory = new PrismaPg(pool);
  const prisma = prismaClient(factory, onQuery);
  const listener = new Listener(url);
  return {
    prisma,
    kind: 'postgres',
    migrationFactory: factory,
    listen: (channel, onPayload) => listener.listen(channel, onPayload),
    async close() {
      await prisma.$disconnect();
      await listener.close();
      await pool.end();
    },
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

  constructor(private readonly url: string) {}

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const client = await this.connect();
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
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
      const client = new pg.Client({ connectionString: this.url });
      client.on('notification', (msg) => this.handlers.get(msg.channel)?.forEach((h) => h(msg.payload ?? '')));
      const lost = () => this.reconnect(client);
      client.on('error', lost);
      client.on('end', lost);
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
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

/** Opens and migrates. */
export async function openMigratedDatabase(options: DatabaseOptions): Promise<{ db: Database; applied: string[] }> {
  const db = await openDatabase(options);
  try {
    const applied = await applyMigrations(db.migrationFactory);
    return { db, applied };
  } catch (err) {
    await db.close();
    throw err;
  }
}
