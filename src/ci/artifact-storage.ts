/**
 * Where job artifacts live: `<DATA_DIR>/artifacts` (a temporary folder, removed at close, when DATA_DIR is
 * `memory`), each file at `<project id>/<job id>/<random>.<file type>`, relative paths being what the database
 * keeps. An upload streams into a temporary file beside its final place, hashed and counted as it goes, and is
 * renamed into place only once complete and within the size limit, so a failed or refused upload leaves nothing.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { Config } from '../config.js';
import { FileRoot, writeStreamed } from '../storage/files.js';

/** The upload went beyond the size limit. */
export class ArtifactTooLarge extends Error {}

export interface StoredFile {
  /** Relative to the storage's root. */
  path: string;
  size: number;
  sha256: string;
}

export class ArtifactStorage {
  private constructor(private readonly files: FileRoot) {}

  static async open(config: Pick<Config, 'dataDir'>): Promise<ArtifactStorage> {
    return new ArtifactStorage(await FileRoot.open(config, 'artifacts'));
  }

  get root(): string {
    return this.files.root;
  }

  private absolute(path: string): string {
    const full = resolve(this.root, path);
    if (!full.startsWith(`${this.root}/`)) throw new Error(`artifact path outside the storage: ${path}`);
    return full;
  }

  /** Streams `source` into a new file for the job, refusing it (ArtifactTooLarge) past `limit` bytes. */
  async write(projectId: number, jobId: number, fileType: string, source: Readable, limit: number): Promise<StoredFile> {
    const path = `${projectId}/${jobId}/${randomBytes(8).toString('hex')}.${fileType.replace(/[^a-z0-9_]/g, '')}`;
    const target = this.absolute(path);
    const { size, digests } = await writeStreamed(source, { partial: `${target}.partial`, limit, algorithms: ['sha256'], tooLarge: () => new ArtifactTooLarge(), target: () => target });
    return { path, size, sha256: digests.sha256 };
  }

  /** A whole file, for the small ones read at once (reports). */
  bytes(path: string): Promise<Buffer> {
    return readFile(this.absolute(path));
  }

  /**
   * One file of a zip archive (`include: artifact:` of dynamic child pipelines): null when the archive has no such
   * file; ArtifactTooLarge when it unpacks to more than `limit` bytes. Entries are matched by name, never extracted.
   */
  async entry(path: string, name: string, limit: number): Promise<Buffer | null> {
    const wanted = name.replace(/^(\.\/)+/, '');
    const zip = await new Promise<yauzl.ZipFile>((ok, fail) => yauzl.open(this.absolute(path), { lazyEntries: true }, (error, file) => (error ? fail(error) : ok(file))));
    try {
      return await new Promise<Buffer | null>((done, fail) => {
        zip.on('error', fail);
        zip.on('end', () => done(null));
        zip.on('entry', (entry: yauzl.Entry) => {
          if (entry.fileName !== wanted) return zip.readEntry();
          if (entry.uncompressedSize > limit) return fail(new ArtifactTooLarge());
          zip.openReadStream(entry, (error, stream) => {
            if (error) return fail(error);
            const chunks: Buffer[] = [];
            let size = 0;
            stream.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > limit) stream.destroy(new ArtifactTooLarge());
              else chunks.push(chunk);
            });
            stream.on('error', fail);
            stream.on('end', () => done(Buffer.concat(chunks)));
          });
        });
        zip.readEntry();
      });
    } finally {
      zip.close();
    }
  }

  read(path: string): ReadStream {
    return createReadStream(this.absolute(path));
  }

  async exists(path: string): Promise<boolean> {
    return stat(this.absolute(path)).then(
      () => true,
      () => false,
    );
  }

  async remove(paths: readonly string[]): Promise<void> {
    for (const path of paths) await rm(this.absolute(path), { force: true });
  }

  /** Every artifact file of a project (its folder), for the project's deletion. */
  async removeProject(projectId: number): Promise<void> {
    await rm(this.absolute(String(projectId)), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await this.files.close();
  }
}
