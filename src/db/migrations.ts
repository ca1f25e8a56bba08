/**
 * Which committed migrations a database still lacks, in one cheap look at Prisma's own `_prisma_migrations` table,
 * so a start on an up-to-date database never loads the schema engine (its WebAssembly costs a quarter of a second
 * and about 45 MB that stay resident). When something is pending the engine applies it, under its lock.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PrismaClient } from '../generated/prisma/client.js';
import { ROOT } from '../paths.js';

export const PRISMA_DIR = `${join(ROOT, 'prisma')}/`;
export const MIGRATIONS_DIR = join(PRISMA_DIR, 'migrations');

/** The committed migration folders, oldest first. */
export async function committedMigrations(): Promise<string[]> {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** Committed migrations the database has not finished applying (all of them on an empty database). */
export async function pendingMigrations(prisma: PrismaClient): Promise<string[]> {
  const committed = await committedMigrations();
  const [{ tracked }] = await prisma.$queryRaw<{ tracked: boolean }[]>`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS tracked`;
  if (!tracked) return committed;
  const rows = await prisma.$queryRaw<{ name: string }[]>`
    SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  const applied = new Set(rows.map((r) => r.name));
  return committed.filter((name) => !applied.has(name));
}
