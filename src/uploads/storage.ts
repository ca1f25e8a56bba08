/**
 * Where uploaded files live: `<DATA_DIR>/uploads` (a temporary folder, removed at close, when DATA_DIR is `memory`).
 * Avatars sit at GitLab's paths, `-/system/<model>/avatar/<id>/<filename>`, so the URL names the file; Markdown
 * uploads at `<owner's folder>/<secret>/<filename>` (UploadOwner); a request's multipart files stream into `tmp/`
 * first and are removed when the request ends.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { payloadTooLarge } from '../errors.js';
import { hashedPath } from '../git/storages.js';
import { FileRoot, writeStreamed } from '../storage/files.js';

/**
 * A file part of a multipart body, already on disk. Only the multipart parser makes these, so a JSON or form body
 * can never name a file of its own choosing: the `Upload` scalar accepts nothing else.
 */
export class UploadedFile {
  constructor(
    /** The temporary file holding its bytes. */
    readonly path: string,
    /** The name the client gave it. */
    readonly filename: string,
    readonly contentType: string,
    readonly size: number,
  ) {}

  /** No file: a blank file parameter (`avatar=`), GitLab's way of removing an avatar. It is no valid image. */
  static readonly BLANK = new UploadedFile('', '', 'application/octet-stream', 0);
}

/** The models that carry an avatar, by the name GitLab's upload paths use. */
export type AvatarModel = 'user' | 'project' | 'group';

/**
 * Whose Markdown uploads a folder holds: a project's (GitLab's FileUploader with hashed storage, at
 * `@hashed/ab/cd/<sha256 of the project id>`, so renaming the project moves nothing), or a user's (temporary uploads)
 * or a personal snippet's (PersonalFileUploader, at `-/system/<model>/<id>`).
 */
export interface UploadOwner {
  model: 'project' | 'user' | 'personal_snippet';
  id: number;
}

/** An upload's secret: 32 hexadecimal characters (SecureRandom.hex). */
const SECRET = /^[0-9a-f]{32}$/;

/** How long a file in `tmp/` untouched before a start removes it as left by a killed server. */
const TEMPORARY_FILE_MAX_AGE_MS = 60 * 60 * 1000;

export class UploadStorage {
  private constructor(private readonly files: FileRoot) {}

  static async open(config: Pick<Config, 'dataDir'>): Promise<UploadStorage> {
    const storage = new UploadStorage(await FileRoot.open(config, 'uploads'));
    await mkdir(storage.tmp, { recursive: true });
    await storage.sweepTemporary();
    return storage;
  }

  /**
   * Removes what requests of a server killed mid-upload left in `tmp/`: files untouched for an hour (a request
   * streaming one now, on this replica or another sharing the folder, writes it more recently than that).
   */
  private async sweepTemporary(now = Date.now()): Promise<void> {
    for (const name of await readdir(this.tmp).catch(() => [] as string[])) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => null);
      if (info?.isFile() && now - info.mtimeMs > TEMPORARY_FILE_MAX_AGE_MS) await rm(path, { force: true });
    }
  }

  /** Where request bodies' files stream to. */
  get tmp(): string {
    return join(this.root, 'tmp');
  }

  /** A new name in `tmp/` for one file part. */
  temporaryPath(): string {
    return join(this.tmp, randomUUID());
  }

  /** GitLab's folder of one record's mounted file: `-/system/<model>/<mounted as>/<id>`. */
  private systemDir(model: string, mountedAs: string, id: number): string {
    return join(this.root, '-', 'system', model, mountedAs, String(id));
  }

  /**
   * Copies an uploaded file in as a record's mounted file under `filename` (already safe), replacing whatever file
   * it had: the new file is written beside the old ones and renamed into place, then the others are removed.
   */
  async storeSystemFile(model: string, mountedAs: string, id: number, filename: string, file: UploadedFile): Promise<void> {
    const dir = this.systemDir(model, mountedAs, id);
    await mkdir(dir, { recursive: true });
    const partial = join(dir, `.${randomUUID()}.partial`);
    await copyFile(file.path, partial);
    await rename(partial, join(dir, filename));
    for (const name of await readdir(dir)) if (name !== filename) await rm(join(dir, name), { force: true });
  }

  /** A record's mounted file: its absolute path and size, or null when there is no such file. */
  async systemFile(model: string, mountedAs: string, id: number, filename: string): Promise<{ path: string; size: number } | null> {
    if (filename.startsWith('.') || filename.includes('/')) return null;
    const path = join(this.systemDir(model, mountedAs, id), filename);
    const info = await stat(path).catch(() => null);
    return info?.isFile() ? { path, size: info.size } : null;
  }

  /** Removes a record's mounted files, once the record is deleted (nothing when it has none). */
  async removeSystemFiles(model: string, mountedAs: string, id: number): Promise<void> {
    await rm(this.systemDir(model, mountedAs, id), { recursive: true, force: true });
  }

  /** Stores the model's avatar under `filename` (already safe), replacing the one it had. */
  storeAvatar(model: AvatarModel, id: number, filename: string, file: UploadedFile): Promise<void> {
    return this.storeSystemFile(model, 'avatar', id, filename, file);
  }

  /** The avatar file's absolute path and size, or null when the model has no such file. */
  avatarFile(model: AvatarModel, id: number, filename: string): Promise<{ path: string; size: number } | null> {
    return this.systemFile(model, 'avatar', id, filename);
  }

  /** Removes the model's avatar folder, once the model is deleted (nothing when it has none). */
  removeAvatars(model: AvatarModel, id: number): Promise<void> {
    return this.removeSystemFiles(model, 'avatar', id);
  }

  private ownerDir(owner: UploadOwner): string {
    if (owner.model === 'project') return join(this.root, hashedPath(owner.id).replace(/\.git$/, ''));
    return join(this.root, '-', 'system', owner.model, String(owner.id));
  }

  /** The folder of one upload, or null when the secret or name could step out of it. */
  private uploadPath(owner: UploadOwner, secret: string, filename: string): string | null {
    if (!SECRET.test(secret) || !filename || filename.startsWith('.') || /[/\\\0]/.test(filename)) return null;
    return join(this.ownerDir(owner), secret, filename);
  }

  /**
   * Writes an uploaded file as the owner's upload `<secret>/<filename>` (both already safe), hashed as it is copied:
   * its size and SHA-256. Beyond `limit` bytes nothing is kept and the write fails with 413.
   */
  async storeUpload(owner: UploadOwner, secret: string, filename: string, file: UploadedFile, limit: number): Promise<{ size: number; checksum: string }> {
    const target = this.uploadPath(owner, secret, filename);
    if (!target) throw new Error(`unsafe upload path ${secret}/${filename}`);
    const written = await writeStreamed(createReadStream(file.path), { partial: this.temporaryPath(), limit, algorithms: ['sha256'], tooLarge: payloadTooLarge, target: () => target });
    return { size: written.size, checksum: written.digests.sha256 };
  }

  /** An upload's file: its absolute path and size, or null when there is no such file. */
  async uploadFile(owner: UploadOwner, secret: string, filename: string): Promise<{ path: string; size: number } | null> {
    const path = this.uploadPath(owner, secret, filename);
    const info = path ? await stat(path).catch(() => null) : null;
    return path && info?.isFile() ? { path, size: info.size } : null;
  }

  /** Moves an upload's file to another owner (GitLab's FileMover): false when the file is not there. */
  async moveUpload(from: UploadOwner, to: UploadOwner, secret: string, filename: string): Promise<boolean> {
    const source = this.uploadPath(from, secret, filename);
    const target = this.uploadPath(to, secret, filename);
    if (!source || !target || !(await stat(source).catch(() => null))?.isFile()) return false;
    await mkdir(join(target, '..'), { recursive: true });
    await rename(source, target);
    await rmdir(join(source, '..')).catch(() => undefined);
    return true;
  }

  /** Removes an upload's file, and its secret's folder once empty (FileUploader's prune_store_dir). */
  async removeUpload(owner: UploadOwner, secret: string, filename: string): Promise<void> {
    const path = this.uploadPath(owner, secret, filename);
    if (!path) return;
    await rm(path, { force: true });
    await rmdir(join(path, '..')).catch(() => undefined);
  }

  /** Removes every upload of an owner, once it is deleted (nothing when it has none). */
  async removeUploads(owner: UploadOwner): Promise<void> {
    await rm(this.ownerDir(owner), { recursive: true, force: true });
  }

  get root(): string {
    return this.files.root;
  }

  /** Removes the temporary folder of an in-memory server. */
  async close(): Promise<void> {
    await this.files.close();
  }
}
