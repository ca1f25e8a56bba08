/**
 * A new PGlite folder is written from the build's template before PGlite opens it (src/db/pglite-template.ts), not
 * handed to PGlite as a 40 MB Blob: the files must be the template's, byte for byte, the folder a database PGlite
 * opens with every migration applied, and an interrupted extraction must not leave a folder that looks made.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
/** The template written to a new folder by the first test, opened by the second. */
let made: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pglite-template-'));
  made = join(scratch, 'made');
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

/** A ustar archive of these regular files (name, content). */
function tarOf(members: [string, string][]): Buffer {
  const blocks = members.flatMap(([name, body]) => {
    const header = Buffer.alloc(512);
    header.write(name, 0);
    header.write('0000644\0', 100);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('0', 156);
    header.write('ustar\x0000', 257);
    const data = Buffer.alloc(Math.ceil(body.length / 512) * 512);
    data.write(body);
    return [header, data];
  });
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

describe.skipIf(!!process.env.TEST_DATABASE_URL)('the PGlite template', () => {
  it('is written to a new folder byte for byte as tar reads it, and PGlite is given nothing to load', async () => {
    expect(existsSync(TEMPLATE)).toBe(true);
    expect(await startingData({ ...pgliteOptions(made), loadDataDirFile: TEMPLATE })).toBeUndefined();
    // tar's own reading of the archive, without a second copy on disk: its regular files in order, and their contents
    // one after another.
    const listing = execFileSync('tar', ['-tvf', TEMPLATE], { encoding: 'utf8', maxBuffer: 1 << 24 }).split('\n').filter(Boolean);
    const regular = listing.filter((line) => line.startsWith('-')).map((line) => (line.split(/\s+/).at(-1) as string).replace(/^\//, ''));
    expect(regular).toContain('PG_VERSION');
    expect([...regular].sort()).toEqual(await files(made));
    const theirs = createHash('sha256').update(execFileSync('tar', ['-xOf', TEMPLATE], { maxBuffer: 1 << 27 })).digest('hex');
    const ours = createHash('sha256');
    for (const name of regular) ours.update(await readFile(join(made, name)));
    expect(ours.digest('hex')).toBe(theirs);
  });

  it('makes a folder PGlite opens, every migration applied', async () => {
    const pglite = await PGlite.create({ dataDir: made });
    try {
      const { rows } = await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL`);
      expect(rows[0].n).toBe((await committedMigrations()).length);
    } finally {
      await pglite.close();
    }
  });

  it('is written again over an extraction that was cut short, PG_VERSION last', async () => {
    const tar = join(scratch, 'small.tar');
    writeFileSync(tar, tarOf([['/PG_VERSION', '17\n'], ['/base/1/1259', 'x'.repeat(700)], ['/global/1262', 'y']]));
    const dataDir = join(scratch, 'cut');
    extractTemplate(tar, dataDir);
    expect(await files(dataDir)).toEqual(['PG_VERSION', 'base/1/1259', 'global/1262']);
    // Cut short: PG_VERSION (written last, whatever its place in the archive) missing, a file half written.
    await truncate(join(dataDir, 'base/1/1259'), 10);
    await unlink(join(dataDir, 'PG_VERSION'));
    extractTemplate(tar, dataDir);
    expect(await readFile(join(dataDir, 'base/1/1259'), 'utf8')).toBe('x'.repeat(700));
    expect(await readFile(join(dataDir, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(await files(dataDir)).toEqual(['PG_VERSION', 'base/1/1259', 'global/1262']);
  });

  it('refuses a member that leads out of the folder', async () => {
    const tar = join(scratch, 'evil.tar');
    writeFileSync(tar, tarOf([['../escaped', 'x']]));
    expect(() => extractTemplate(tar, join(scratch, 'evil'))).toThrow(/leads out of the data folder/);
    expect(existsSync(join(scratch, 'escaped'))).toBe(false);
  });
});
