/**
 * The files a job uploads and downloads, as GitLab Runner handles them: `paths` and `exclude` globs relative to the
 * project folder (a folder takes everything in it, `*` stays in a folder, `**` crosses folders), `untracked` files
 * from git; an archive is a zip (yazl) streamed as it is written, a JUnit report one gzip member per file; a
 * dependency's archive is extracted into the project folder (yauzl), never outside it.
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import yauzl from 'yauzl';
import yazl from 'yazl';

/** Files walked at most when matching globs (GitLab Runner has no such bound; a runaway folder should not stall a job). */
const MAX_FILES = 200_000;

const run = promisify(execFile);

/** A glob as a regular expression over paths relative to the project folder. */
function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Every file under `root` (relative, `/`-separated), `.git` aside. */
async function walk(root: string): Promise<string[]> {
  const files: string[] = [];
  const visit = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (files.length >= MAX_FILES) return;
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (rel === '.git') continue;
      if (entry.isDirectory()) await visit(path);
      else if (entry.isFile() || entry.isSymbolicLink()) files.push(rel);
    }
  };
  await visit(root);
  return files;
}

/** Whether `file` is named by `pattern`: itself, or inside a folder the pattern names. */
function named(file: string, pattern: string): boolean {
  const clean = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  if (clean === '' || clean === '.') return true;
  if (!/[*?]/.test(clean)) return file === clean || file.startsWith(`${clean}/`);
  const re = globRegex(clean);
  const parts = file.split('/');
  for (let n = 1; n <= parts.length; n++) if (re.test(parts.slice(0, n).join('/'))) return true;
  return false;
}

/** Files of the project folder the artifact names, sorted; warnings for patterns outside the folder. */
export async function artifactFiles(root: string, spec: { paths: string[]; exclude?: string[]; untracked?: boolean | null }, warn: (text: string) => void): Promise<string[]> {
  const inside = (pattern: string) => {
    const ok = !pattern.startsWith('/') && !resolve(root, pattern.replace(/[*?].*$/, '')).startsWith(`${resolve(root)}${sep}..`) && !pattern.split('/').includes('..');
    if (!ok) warn(`${pattern}: not in the project directory, ignored`);
    return ok;
  };
  const paths = spec.paths.filter(inside);
  const all = await walk(root);
  const chosen = new Set(all.filter((file) => paths.some((p) => named(file, p))));
  if (spec.untracked) {
    const { stdout } = await run('git', ['ls-files', '--others', '-z'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    for (const file of stdout.split('\0').filter(Boolean)) chosen.add(file);
  }
  const exclude = (spec.exclude ?? []).filter(inside);
  return [...chosen].filter((file) => !exclude.some((p) => named(file, p))).sort();
}

/** A zip of the files, streamed as it is made. */
export function zipStream(root: string, files: readonly string[]): Readable {
  const zip = new yazl.ZipFile();
  for (const file of files) zip.addFile(join(root, file), file);
  zip.end();
  return zip.outputStream as Readable;
}

/** One gzip member per file, one after the other (how GitLab Runner uploads reports of a gzip type). */
export function gzipMembers(root: string, files: readonly string[]): Readable {
  return Readable.from(
    (async function* () {
      for (const file of files) {
        const member = createReadStream(join(root, file)).pipe(createGzip());
        for await (const chunk of member) yield chunk as Buffer;
      }
    })(),
  );
}

/** Extracts a zip file into `root`; entries that would land outside it are skipped. How many files came out. */
export async function extractZip(zipPath: string, root: string, warn: (text: string) => void): Promise<number> {
  const zip = await new Promise<yauzl.ZipFile>((ok, fail) => yauzl.open(zipPath, { lazyEntries: true }, (error, file) => (error ? fail(error) : ok(file))));
  const base = resolve(root);
  let count = 0;
  try {
    await new Promise<void>((done, fail) => {
      zip.on('error', fail);
      zip.on('end', () => done());
      zip.on('entry', (entry: yauzl.Entry) => {
        const target = resolve(base, entry.fileName);
        const next = () => zip.readEntry();
        if (!target.startsWith(`${base}${sep}`)) {
          warn(`${entry.fileName}: outside the project directory, skipped`);
          return next();
        }
        if (entry.fileName.endsWith('/')) return void mkdir(target, { recursive: true }).then(next, fail);
        zip.openReadStream(entry, (error, stream) => {
          if (error) return fail(error);
          mkdir(dirname(target), { recursive: true })
            .then(() => pipeline(stream, createWriteStream(target)))
            .then(() => {
              count += 1;
              next();
            }, fail);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return count;
}

/** Whether a path exists (without following a final symlink). */
export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
