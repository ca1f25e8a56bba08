/**
 * A new PGlite data folder from the build's template (dist/pglite-template.tar, a `dumpDataDir` of a migrated
 * database), written straight to disk before PGlite opens the folder.
 *
 * PGlite's own `loadDataDir` takes the template as one Blob, copies it into an array and splits that into files in
 * memory before writing them: about three copies of its 40 MB at once, which the C allocator keeps once freed. A
 * server that had started on a new folder stayed at 376 MB resident when idle, against 304 MB once restarted on the
 * same folder. Here the tar is read one member at a time through one buffer, and PGlite then opens an existing folder.
 */
import { closeSync, mkdirSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

const BLOCK = 512;

/** Writes the tar's directories and files under `folder`; PG_VERSION, which marks a data folder as made, comes last. */
export function extractTemplate(tarFile: string, folder: string): void {
  const tar = openSync(tarFile, 'r');
  const buffer = Buffer.alloc(1024 * 1024);
  const header = Buffer.alloc(BLOCK);
  try {
    let deferred: { target: string; at: number; size: number } | undefined;
    for (let at = 0; ; ) {
      if (readSync(tar, header, 0, BLOCK, at) < BLOCK || header.every((b) => b === 0)) break;
      const size = parseInt(field(header, 124, 12).trim() || '0', 8);
      const type = String.fromCharCode(header[156] || 0x30);
      const prefix = field(header, 345, 155);
      const target = inside(folder, prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
      const data = at + BLOCK;
      at = data + Math.ceil(size / BLOCK) * BLOCK;
      if (type === '5') mkdirSync(target, { recursive: true });
      else if (type !== '0') throw new Error(`pglite template: unexpected tar member type '${type}' for ${target}`);
      else if (target === join(folder, 'PG_VERSION')) deferred = { target, at: data, size };
      else copy(tar, data, size, target, buffer);
    }
    if (!deferred) throw new Error('pglite template: no PG_VERSION in the template');
    // Written beside it and renamed: a folder whose extraction was interrupted has no PG_VERSION and is made again.
    copy(tar, deferred.at, deferred.size, `${deferred.target}.partial`, buffer);
    renameSync(`${deferred.target}.partial`, deferred.target);
  } finally {
    closeSync(tar);
  }
}

/** A NUL-terminated header field. */
function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

/** The member's path under `folder`; the template is ours, but a path leading out of the folder is refused anyway. */
function inside(folder: string, name: string): string {
  const target = normalize(join(folder, name));
  if (target !== normalize(folder) && !target.startsWith(normalize(folder) + sep)) throw new Error(`pglite template: ${name} leads out of the data folder`);
  return target;
}

function copy(tar: number, from: number, size: number, target: string, buffer: Buffer): void {
  mkdirSync(dirname(target), { recursive: true });
  const out = openSync(target, 'w');
  try {
    for (let done = 0; done < size; ) {
      const read = readSync(tar, buffer, 0, Math.min(buffer.length, size - done), from + done);
      if (read === 0) throw new Error(`pglite template: ${target} is cut short`);
      writeSync(out, buffer, 0, read);
      done += read;
    }
  } finally {
    closeSync(out);
  }
}
