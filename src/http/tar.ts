/**
 * A tar (POSIX ustar) writer over files on disk, as an async stream of chunks: each file is read as it is written,
 * never whole in memory. A file that changes meanwhile keeps the size it had when opened (cut or padded), so the
 * archive stays well-formed, as a snapshot of a live directory must.
 */
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, Math.min(Buffer.byteLength(value), length), 'utf8');
}

function octal(header: Buffer, offset: number, length: number, value: number): void {
  field(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** A ustar header; names longer than 100 bytes are split at a slash into `prefix` and `name`. */
function header(name: string, size: number, mode: number, mtime: number, type: '0' | '5'): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155) throw new Error(`tar: name too long: ${name}`);
  }
  field(block, 0, 100, base);
  octal(block, 100, 8, mode);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, Math.floor(mtime / 1000));
  block.fill(0x20, 148, 156);
  field(block, 156, 1, type);
  field(block, 257, 6, 'ustar\0');
  field(block, 263, 2, '00');
  field(block, 345, 155, prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  field(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** Every file below `dir` (relative paths, sorted), directories included, that `keep` accepts; a missing `dir` has none. */
async function walk(root: string, dir: string, keep: (path: string, directory: boolean) => boolean): Promise<{ path: string; directory: boolean }[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const found: { path: string; directory: boolean }[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!keep(path, true)) continue;
      found.push({ path, directory: true }, ...(await walk(root, path, keep)));
    } else if (entry.isFile() && keep(path, false)) found.push({ path, directory: false });
  }
  return found;
}

/** The tar of the files below `root` that `keep` accepts. */
export async function* tarStream(root: string, keep: (path: string, directory: boolean) => boolean): AsyncGenerator<Buffer> {
  for (const { path, directory } of await walk(root, '', keep)) {
    if (directory) {
      yield header(`${path}/`, 0, 0o755, Date.now(), '5');
      continue;
    }
    // Opened first: a file gone since the listing (a ref deleted, a pack repacked) is left out.
    const handle = await open(join(root, path), 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!handle) continue;
    try {
      const info = await handle.stat();
      yield header(path, info.size, info.mode & 0o777, info.mtimeMs, '0');
      let written = 0;
      if (info.size > 0) {
        for await (const chunk of handle.createReadStream({ start: 0, end: info.size - 1, autoClose: false }) as AsyncIterable<Buffer>) {
          written += chunk.length;
          yield chunk;
        }
      }
      const padding = (BLOCK - (info.size % BLOCK)) % BLOCK;
      if (written < info.size) yield Buffer.alloc(info.size - written);
      if (padding) yield Buffer.alloc(padding);
    } finally {
      await handle.close();
    }
  }
  yield Buffer.alloc(BLOCK * 2);
}
