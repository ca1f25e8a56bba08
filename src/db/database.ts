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
  const factory = new PrismaPg(pool);
  const prisma = prismaClient(factory, onQuery);
  // LISTEN needs a connection of its own: a pooled one would be handed to other queries.
  let listener: pg.Client | undefined;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  async function listenerClient(): Promise<pg.Client> {
    if (listener) return listener;
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (msg) => handlers.get(msg.channel)?.forEach((h) => h(msg.payload ?? '')));
    client.on('error', () => {});
    await client.connect();
    listener = client;
    return client;
  }
  return {
    prisma,
    kind: 'postgres',
    migrationFactory: new PrismaPg({ connectionString: url, max: 1 }),
    async listen(channel, onPayload) {
      const client = await listenerClient();
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
      };
    },
    async close() {
      await prisma.$disconnect();
      await listener?.end();
      await pool.end();
    },
  };
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
