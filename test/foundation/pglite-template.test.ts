/**
 * A new PGlite folder is written from the build's template before PGlite opens it (src/db/pglite-template.ts), not
 * handed to PGlite as a 40 MB Blob: the files must be the template's, byte for byte, the folder a database PGlite
 * opens with every migration applied, and an interrupted extraction must not leave a folder that looks made.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../src/paths.js';
import { committedMigrations } from '../../src/db/migrations.js';
import { extractTemplate } from '../../src/db/pglite-template.js';
import { pgliteOptions, startingData } from '../../src/db/pglite-thread.js';

// The build (npm install's postinstall, or prestart) writes it beside the compiled code.
const TEMPLATE = join(ROOT, 'dist', 'pglite-template.tar');

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pglite-template-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

/** A one-member ustar archive. */
function tarWith(name: string, body: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0);
  header.write('0000644\0', 100);
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('0', 156);
  header.write('ustar\x0000', 257);
  const data = Buffer.alloc(512);
  data.write(body);
  return Buffer.concat([header, data, Buffer.alloc(1024)]);
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)('the PGlite template', () => {
  it('is extracted byte for byte as tar extracts it', async () => {
    expect(existsSync(TEMPLATE)).toBe(true);
    const [ours, tars] = [join(scratch, 'ours'), join(scratch, 'tar')];
    extractTemplate(TEMPLATE, ours);
    execFileSync('mkdir', ['-p', tars]);
    execFileSync('tar', ['-xf', TEMPLATE, '-C', tars]);
    const names = await files(tars);
    expect(names).toContain('PG_VERSION');
    expect(await files(ours)).toEqual(names);
    for (const name of names) expect([name, (await readFile(join(ours, name))).equals(await readFile(join(tars, name)))]).toEqual([name, true]);
  });

  it('makes a folder PGlite opens, every migration applied', async () => {
    const dataDir = join(scratch, 'opened', 'data');
    // A new folder: the template is written to it, and PGlite is given nothing to load.
    expect(await startingData({ ...pgliteOptions(dataDir), loadDataDirFile: TEMPLATE })).toBeUndefined();
    const pglite = await PGlite.create({ dataDir });
    try {
      const { rows } = await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL`);
      expect(rows[0].n).toBe((await committedMigrations()).length);
    } finally {
      await pglite.close();
    }
  });

  it('is written again over an extraction that was cut short', async () => {
    const dataDir = join(scratch, 'cut');
    extractTemplate(TEMPLATE, dataDir);
    // Cut short: PG_VERSION (written last) missing, a file half written.
    const victim = (await files(dataDir)).find((f) => f.startsWith('base/'));
    expect(victim).toBeDefined();
    const whole = await readFile(join(dataDir, victim as string));
    await truncate(join(dataDir, victim as string), 10);
    await unlink(join(dataDir, 'PG_VERSION'));
    // A folder without PG_VERSION is new (pgliteOptions chooses the template for it again).
    await startingData({ ...pgliteOptions(dataDir), loadDataDirFile: TEMPLATE });
    expect((await readFile(join(dataDir, victim as string))).equals(whole)).toBe(true);
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
  });

  it('refuses a member that leads out of the folder', async () => {
    const tar = join(scratch, 'evil.tar');
    writeFileSync(tar, tarWith('../escaped', 'x'));
    expect(() => extractTemplate(tar, join(scratch, 'evil'))).toThrow(/leads out of the data folder/);
    expect(existsSync(join(scratch, 'escaped'))).toBe(false);
  });
});
