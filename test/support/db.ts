/** Gives a test a fresh, migrated database: in-memory PGlite, or a scratch database on TEST_DATABASE_URL's server. */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { openMigratedDatabase, type Database, type DatabaseOptions } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/engine.js';
import { MIGRATIONS_DIR } from '../../src/db/migrations.js';
import { loadConfig } from '../../src/config.js';

export interface FreshDatabase {
  db: Database;
  /** The scratch database's URL on PostgreSQL, to open more connections to it; undefined on PGlite. */
  databaseUrl: string | undefined;
  /** Closes the database and, on PostgreSQL, drops the scratch database. */
  cleanup(): Promise<void>;
}

/** `label` only names the scratch database on PostgreSQL, to tell leftovers apart. */
export async function freshDatabase(label = 'test', options: Pick<DatabaseOptions, 'onQuery' | 'bounds' | 'pgliteWorker'> = {}): Promise<FreshDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl ? freshPostgres(serverUrl, label, options) : freshPglite(options);
}

async function freshPglite(options: Pick<DatabaseOptions, 'onQuery' | 'bounds' | 'pgliteWorker'>): Promise<FreshDatabase> {
  // PGLITE_WORKER=1 runs the suite with PGlite in a worker thread.
  const pgliteWorker = options.pgliteWorker ?? loadConfig().pgliteWorker;
  const { db } = await openMigratedDatabase({ dataDir: 'memory', loadDataDir: await migratedTemplate(), ...options, pgliteWorker });
  return { db, databaseUrl: undefined, cleanup: () => db.close() };
}

let template: Promise<Blob> | undefined;

/**
 * initdb plus migrations costs about 3 s, loading a dump of the result about 0.4 s; the dump is kept
 * on disk so every test file after the first one starts fast. Its name carries a hash of the
 * migrations and the PGlite version, so a changed migration never meets a stale dump.
 */
function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const path = join(tmpdir(), `gitlab-api-test-pglite-${await templateKey()}.tar`);
    const cached = await readFile(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (cached) return new Blob([cached]);
    const pglite = await PGlite.create();
    try {
      await applyMigrations(new PrismaPGlite(pglite));
      const dump = await pglite.dumpDataDir('none');
      // Test files run in parallel; a rename is atomic, so no reader sees half a file.
      const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
      await rename(partial, path);
      return dump;
    } finally {
      await pglite.close();
    }
  })();
  return template;
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  const require = createRequire(import.meta.url);
  // The package does not export its package.json; its entry point sits in dist/.
  const packageJson = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  const pglitePackage = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  hash.update(`pglite ${pglitePackage.version}\n`);
  const entries = await readdir(MIGRATIONS_DIR, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  for (const file of files.sort()) {
    hash.update(`${file.slice(MIGRATIONS_DIR.length)}\n`);
    hash.update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

async function freshPostgres(serverUrl: string, label: string, options: Pick<DatabaseOptions, 'onQuery' | 'bounds'>): Promise<FreshDatabase> {
  const url = new URL(serverUrl);
  const base = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  const name = `${base}_${label}_${randomBytes(4).toString('hex')}`.replace(/[^A-Za-z0-9_]/g, '_').toLowerCase();
  await admin(serverUrl, `CREATE DATABASE "${name}" TEMPLATE "${await postgresTemplate(serverUrl, base)}"`);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  try {
    const { db } = await openMigratedDatabase({ databaseUrl, ...options });
    return {
      db,
      databaseUrl,
      async cleanup() {
        await db.close();
        // FORCE: connections a test opened itself (a second replica) must not keep the database alive.
        await admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    };
  } catch (err) {
    await admin(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    throw err;
  }
}

let postgresTemplateName: Promise<string> | undefined;

/**
 * A migrated database on the server that each test file's database copies (CREATE DATABASE … TEMPLATE): migrating
 * costs seconds (the schema engine loads in every test file's process), a copy a fraction of one. Named by the
 * migrations' hash, made once by whichever test file gets the advisory lock first; older ones are dropped then.
 */
function postgresTemplate(serverUrl: string, base: string): Promise<string> {
  postgresTemplateName ??= (async () => {
    const name = `${base}_template_${await templateKey()}`.toLowerCase();
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(hashtext('gitlab-api-test-template'))`);
      const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${base}\\_template\\_%`]);
      if (rows.some((r) => r.datname === name)) return name;
      for (const stale of rows) await client.query(`DROP DATABASE IF EXISTS "${stale.datname}" WITH (FORCE)`);
      const building = `${name}_building`;
      await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await client.query(`CREATE DATABASE "${building}"`);
      const url = new URL(serverUrl);
      url.pathname = `/${building}`;
      const { db } = await openMigratedDatabase({ databaseUrl: url.toString() });
      await db.close();
      // Renamed only once complete: a half-migrated template is never copied.
      await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
      return name;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('gitlab-api-test-template'))`).catch(() => undefined);
      await client.end();
    }
  })();
  return postgresTemplateName;
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
