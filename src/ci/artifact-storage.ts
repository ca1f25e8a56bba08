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
import { PassThrough, type Readable } from 'node:stream';
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

/** A file of a zip archive, found and not yet read. */
export interface ZipMember {
  /** Its size unpacked, as the central directory says (checked while it streams). */
  size: number;
  /** Streams it, inflated; the archive closes when it ends or fails. */
  open(): Readable;
  /** Gives it up without reading it. */
  close(): void;
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
    const member = await this.member(path, name.replace(/^(\.\/)+/, ''));
    if (!member) return null;
    if (member.size > limit) {
      member.close();
      throw new ArtifactTooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of member.open() as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new ArtifactTooLarge();
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /**
   * One file of a zip archive, found through the central directory (Zip64 too) by its exact name: null when there
   * is none (or only a folder of that name). The caller streams it with `open()` (inflating that entry alone, its
   * size checked) or gives it up with `close()`. Names are compared as stored, never resolved against a folder, so
   * an archive's odd names (`../x`, absolute paths) are never a way out of it, only names that do not match.
   */
  async member(path: string, name: string): Promise<ZipMember | null> {
    const wanted = Buffer.from(name, 'utf8');
    const zip = await new Promise<yauzl.ZipFile>((ok, fail) =>
      // Names undecoded: yauzl refuses a whole archive for one odd name when it decodes them.
      yauzl.open(this.absolute(path), { lazyEntries: true, autoClose: false, decodeStrings: false }, (error, file) => (error ? fail(error) : ok(file))),
    );
    const found = await new Promise<yauzl.Entry | null>((done, fail) => {
      zip.on('error', fail);
      zip.on('end', () => done(null));
      zip.on('entry', (entry: yauzl.Entry) => {
        const entryName = entry.fileName as unknown as Buffer;
        if (entryName.equals(wanted) && !name.endsWith('/')) return done(entry);
        zip.readEntry();
      });
      zip.readEntry();
    }).catch((error: unknown) => {
      zip.close();
      throw error;
    });
    if (!found) {
      zip.close();
      return null;
    }
    return {
      size: found.uncompressedSize,
      close: () => zip.close(),
      open: () => {
        const out = new PassThrough();
        zip.openReadStream(found, (error, stream) => {
          if (error) {
            zip.close();
            return void out.destroy(error);
          }
          stream.on('error', (e) => out.destroy(e));
          stream.on('end', () => zip.close());
          out.on('close', () => zip.close());
          stream.pipe(out);
        });
        return out;
      },
    };
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
