/**
 * Where package files live: `<DATA_DIR>/packages` (a temporary folder, removed at close, when DATA_DIR is `memory`),
 * content-addressed: each file's bytes at `<sha256[0..2]>/<sha256[2..4]>/<sha256>`, so two package files with the same
 * bytes share one file on disk. An upload streams into a temporary file, computing its MD5, SHA-1 and SHA-256 and
 * counting its size as it goes, and is renamed to its address only once complete and within the limit: a failed or
 * refused upload leaves nothing, and the bytes are never held in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../config.js';

/** The upload went beyond the size limit. */
export class PackageFileTooLarge extends Error {}

export interface StoredPackageFile {
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
}

export class PackageStorage {
  private constructor(
    readonly root: string,
    private readonly temporary: boolean,
  ) {}

  static async open(config: Pick<Config, 'dataDir'>): Promise<PackageStorage> {
    if (config.dataDir === 'memory') return new PackageStorage(await mkdtemp(join(tmpdir(), 'gitlab-packages-')), true);
    const root = resolve(config.dataDir, 'packages');
    await mkdir(root, { recursive: true });
    return new PackageStorage(root, false);
  }

  /** The file of a SHA-256 digest. */
  pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a SHA-256 digest: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  /** Streams `source` to the store, refusing it (PackageFileTooLarge) past `limit` bytes. */
  async write(source: Readable, limit: number): Promise<StoredPackageFile> {
    const incoming = join(this.root, 'tmp');
    await mkdir(incoming, { recursive: true });
    const partial = join(incoming, `${randomBytes(12).toString('hex')}.partial`);
    const md5 = createHash('md5');
    const sha1 = createHash('sha1');
    const sha256 = createHash('sha256');
    let size = 0;
    const digest = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limit) return done(new PackageFileTooLarge());
        md5.update(chunk);
        sha1.update(chunk);
        sha256.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, digest, createWriteStream(partial, { mode: 0o600 }));
      const stored = { size, md5: md5.digest('hex'), sha1: sha1.digest('hex'), sha256: sha256.digest('hex') };
      const target = this.pathOf(stored.sha256);
      await mkdir(dirname(target), { recursive: true });
      // Same bytes, same address: a second upload of them replaces the file with an identical one.
      await rename(partial, target);
      return stored;
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  read(sha256: string): ReadStream {
    return createReadStream(this.pathOf(sha256));
  }

  async exists(sha256: string): Promise<boolean> {
    return stat(this.pathOf(sha256)).then(
      () => true,
      () => false,
    );
  }

  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  async close(): Promise<void> {
    if (this.temporary) await rm(this.root, { recursive: true, force: true });
  }
}
