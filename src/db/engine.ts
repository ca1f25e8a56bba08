/**
 * Prisma's schema engine, compiled to WebAssembly, driven through a driver adapter: applies the committed
 * migrations and diffs the schema without the native binary the Prisma CLI would download.
 */
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import { MIGRATIONS_DIR, PRISMA_DIR, committedMigrations } from './migrations.js';
const LOCKFILE = 'migration_lock.toml';
const NO_FILTERS = { externalTables: [], externalEnums: [] };

let wasmReady: Promise<void> | undefined;

/** The slice of the WebAssembly API used here (Node's global; @types/node 20 does not declare it). */
interface WasmApi {
  instantiate(bytes: Uint8Array, imports: Record<string, object>): Promise<{ instance: { exports: { __wbindgen_start(): void } } }>;
}

/** The package imports its .wasm as an ES module, which Node 20 refuses; instantiate it by hand, once. */
function loadWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
    const bytes = await readFile(wasmPath);
    const { instance } = await (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly.instantiate(bytes, {
      './schema_engine_bg.js': bg,
    });
    (bg as unknown as { __wbg_set_wasm: (e: object) => void }).__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
  })();
  return wasmReady;
}

async function openEngine(factory: SqlMigrationAwareDriverAdapterFactory, schema: string): Promise<SchemaEngine> {
  await loadWasm();
  const Engine = (bg as unknown as { SchemaEngine: typeof SchemaEngine }).SchemaEngine;
  return Engine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
}

function readSchema(): Promise<string> {
  return readFile(join(PRISMA_DIR, 'schema.prisma'), 'utf8');
}

/** The committed migrations, in Prisma's layout, oldest first. */
async function readMigrations(): Promise<MigrationList> {
  const migrationDirectories = await Promise.all(
    (await committedMigrations()).map(async (dir) => ({
      path: dir,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: await readFile(join(MIGRATIONS_DIR, dir, 'migration.sql'), 'utf8') },
      },
    })),
  );
  const lock = await readFile(join(MIGRATIONS_DIR, LOCKFILE), 'utf8').catch(() => null);
  return { baseDir: MIGRATIONS_DIR, shadowDbInitScript: '', lockfile: { path: LOCKFILE, content: lock }, migrationDirectories };
}

/** Applies pending migrations; returns the names of those applied. A second call applies nothing. */
export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await openEngine(factory, await readSchema());
  try {
    const out = await engine.applyMigrations({ migrationsList: await readMigrations(), filters: NO_FILTERS });
    return out.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * SQL that takes the committed migrations to schema.prisma; empty when they agree. Uses the factory's shadow database.
 * Indexes schema.prisma cannot express (on expressions such as lower(path), or partial) are invisible to Prisma's
 * diff: it neither asks for them nor drops them, so hand-written migrations may add them (test/foundation/
 * uniqueness.test.ts checks the case-insensitive ones exist).
 */
export async function pendingSchemaChanges(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  const schema = await readSchema();
  const engine = await openEngine(factory, schema);
  try {
    const migrations = await readMigrations();
    const result = await engine.diff({
      from: migrations.migrationDirectories.length ? { tag: 'migrations', ...migrations } : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    });
    const sql = result.stdout ?? '';
    return /^\s*(--[^\n]*\n?\s*)*$/.test(sql) ? '' : sql;
  } finally {
    engine.free();
  }
}

/** Writes a new migration folder from the difference between the migrations and schema.prisma. */
export async function createMigration(factory: SqlMigrationAwareDriverAdapterFactory, name: string): Promise<string | null> {
  const sql = await pendingSchemaChanges(factory);
  if (!sql) return null;
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = `${stamp}_${name.replace(/[^a-z0-9_]+/gi, '_').toLowerCase()}`;
  await mkdir(join(MIGRATIONS_DIR, dir), { recursive: true });
  await writeFile(join(MIGRATIONS_DIR, dir, 'migration.sql'), sql);
  await writeFile(
    join(MIGRATIONS_DIR, LOCKFILE),
    '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
  );
  return dir;
}
