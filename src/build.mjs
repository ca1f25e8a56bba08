/**
 * Compiles `src/` to `dist/` (esbuild, one JavaScript file per TypeScript file, same folder depth, so paths taken
 * from `import.meta.url` still reach `prisma/` and `graphql/`), then writes `dist/pglite-template.tar`: a PGlite
 * data folder with every committed migration applied, which a new PGlite database starts from instead of running
 * initdb and the migrations (seconds, and hundreds of MB that WebAssembly memory never gives back).
 * Plain JavaScript because it runs before anything is compiled: on install, and before each `npm start`
 * with `--if-stale`, when it does nothing unless a source or a migration is newer than what was built from it.
 */
import { readdir, stat, mkdir, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';

const ROOT = new URL('../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const MIGRATIONS = join(ROOT, 'prisma', 'migrations');
/** Written last by a build: its time is when `dist/` was complete. */
const STAMP = join(DIST, '.built');
const TEMPLATE = join(DIST, 'pglite-template.tar');

async function files(dir, suffix = '') {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && e.name.endsWith(suffix)).map((e) => join(e.parentPath, e.name));
}

async function newest(paths) {
  const times = await Promise.all(paths.map((p) => stat(p).then((s) => s.mtimeMs)));
  return Math.max(0, ...times);
}

const mtime = (path) => stat(path).then((s) => s.mtimeMs, () => -1);

async function compile() {
  const { build } = await import('esbuild');
  await build({
    entryPoints: await files(SRC, '.ts'),
    outdir: DIST,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  await bundle(build);
  await writeFile(STAMP, '');
}

/**
 * What `npm start` runs: src/main.ts and what it imports, dependencies included, as one module (and a chunk per
 * dynamic import, so the migration engine still loads only when a migration must run). Loading it takes 200 ms
 * where the same code as 264 files of ours and the packages' own files takes 460 ms (measured on the bench machine).
 * Left out: Prisma (its WebAssembly is loaded by path), the database drivers, and PGlite.
 */
async function bundle(build) {
  await build({
    entryPoints: [join(SRC, 'main.ts')],
    outdir: join(DIST, 'bundle'),
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['@prisma/*', 'pg', '@electric-sql/*', 'pglite-prisma-adapter', 'tsx', 'esbuild'],
    // CommonJS packages bundled into an ES module still call require() for Node's own modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

async function template() {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PrismaPGlite } = await import('pglite-prisma-adapter');
  const { applyMigrations } = await import(join(DIST, 'db', 'engine.js'));
  const pglite = await PGlite.create();
  try {
    await applyMigrations(new PrismaPGlite(pglite));
    const dump = await pglite.dumpDataDir('none');
    const partial = `${TEMPLATE}.${process.pid}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, TEMPLATE);
  } finally {
    await pglite.close();
  }
}

const ifStale = process.argv.includes('--if-stale');
await mkdir(DIST, { recursive: true });
if (!ifStale || (await newest(await files(SRC, '.ts'))) > (await mtime(STAMP))) await compile();
if (!ifStale || (await newest([MIGRATIONS, ...(await files(MIGRATIONS))])) > (await mtime(TEMPLATE))) await template();
