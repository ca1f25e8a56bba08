/**
 * The server's own files (uploads, job artifacts, package files): where a kind of file lives, and how a file comes
 * in. Each kind has a folder, `<DATA_DIR>/<name>`, or with `DATA_DIR=memory` a temporary folder removed at close. A file
 * streams into a partial file, hashed and counted as it goes, and is renamed into place only once complete and within
 * its limit, so a failed or refused write leaves nothing and no file is ever held whole in memory.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';

/** A kind of file's folder. */
export class FileRoot {
  private constructor(
    readonly root: string,
    /** A temporary folder made by this process, removed at close. */
    private readonly temporary: boolean,
  ) {}

  /** `<DATA_DIR>/<name>`, made if missing; a new temporary folder with `DATA_DIR=memory`. */
  static async open(config: Pick<Config, 'dataDir'>, name: string): Promise<FileRoot> {
    if (config.dataDir === 'memory') return new FileRoot(await mkdtemp(join(tmpdir(), `gitlab-${name}-`)), true);
    const root = resolve(config.dataDir, name);
    await mkdir(root, { recursive: true });
    return new FileRoot(root, false);
  }

  /** Removes the folder when it is this process's temporary one. */
  async close(): Promise<void> {
    if (this.temporary) await rm(this.root, { recursive: true, force: true });
  }
}

export type Algorithm = 'md5' | 'sha1' | 'sha256';

export interface Written<A extends Algorithm> {
  size: number;
  /** Hex digests, by algorithm. */
  digests: Record<A, string>;
}

/**
 * Streams `source` into `partial`, hashing it with `algorithms` and failing with `tooLarge()` past `limit` bytes, then
 * renames it to `target(written)` (its folder made): the place may depend on the digests (content addressing). On any
 * failure the partial file is removed.
 */
export async function writeStreamed<A extends Algorithm>(
  source: Readable,
  options: { partial: string; limit: number; algorithms: readonly A[]; tooLarge: () => Error; target: (written: Written<A>) => string },
): Promise<Written<A> & { path: string }> {
  const { partial, limit, algorithms, tooLarge } = options;
  await mkdir(dirname(partial), { recursive: true });
  const hashes = algorithms.map((a) => [a, createHash(a)] as [A, Hash]);
  let size = 0;
  const digest = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limit) return done(tooLarge());
      for (const [, hash] of hashes) hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, digest, createWriteStream(partial, { mode: 0o600 }));
    const written: Written<A> = { size, digests: Object.fromEntries(hashes.map(([a, hash]) => [a, hash.digest('hex')])) as Record<A, string> };
    const path = options.target(written);
    await mkdir(dirname(path), { recursive: true });
    await rename(partial, path);
    return { ...written, path };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
