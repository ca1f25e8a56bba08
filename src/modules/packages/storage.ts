/**
 * Where package files live: `<DATA_DIR>/packages` (a temporary folder, removed at close, when DATA_DIR is `memory`),
 * content-addressed: each file's bytes at `<sha256[0..2]>/<sha256[2..4]>/<sha256>`, so two package files with the same
 * bytes share one file on disk. An upload streams into a temporary file, computing its MD5, SHA-1 and SHA-256 and
 * counting its size as it goes; complete and within the limit, it waits staged until the upload records its file
 * (`place`, under the digest's lock a purge takes too: PackagesService.claimBytes), then is renamed to its address.
 * A failed or refused upload leaves nothing (`discard`), and the bytes are never held in memory.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import { FileRoot, writeStreamed } from '../../storage/files.js';

/** The upload went beyond the size limit. */
export class PackageFileTooLarge extends Error {}

export interface StoredPackageFile {
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
  /** Where the bytes wait until `place` moves them to their address. */
  staged: string;
}

export class PackageStorage {
  private constructor(private readonly files: FileRoot) {}

  static async open(config: Pick<Config, 'dataDir'>): Promise<PackageStorage> {
    return new PackageStorage(await FileRoot.open(config, 'packages'));
  }

  get root(): string {
    return this.files.root;
  }

  /** The file of a SHA-256 digest. */
  pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a SHA-256 digest: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  /** Streams `source` to a staged file, refusing it (PackageFileTooLarge) past `limit` bytes. */
  async write(source: Readable, limit: number): Promise<StoredPackageFile> {
    const name = randomBytes(12).toString('hex');
    const { size, digests, path } = await writeStreamed(source, {
      partial: join(this.root, 'tmp', `${name}.partial`),
      limit,
      algorithms: ['md5', 'sha1', 'sha256'],
      tooLarge: () => new PackageFileTooLarge(),
      target: () => join(this.root, 'tmp', `${name}.staged`),
    });
    return { size, ...digests, staged: path };
  }

  /** Moves staged bytes to their address. Same bytes, same address: a file already there is replaced by an identical one. */
  async place(stored: StoredPackageFile): Promise<void> {
    const path = this.pathOf(stored.sha256);
    await mkdir(dirname(path), { recursive: true });
    await rename(stored.staged, path);
  }

  /** Removes staged bytes an upload did not record (nothing once placed). */
  async discard(stored: StoredPackageFile | null | undefined): Promise<void> {
    if (stored) await rm(stored.staged, { force: true });
  }

  read(sha256: string): ReadStream {
    return createReadStream(this.pathOf(sha256));
  }

  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  async close(): Promise<void> {
    await this.files.close();
  }
}
