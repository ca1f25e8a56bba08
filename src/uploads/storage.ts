/**
 * Where uploaded files live: `<DATA_DIR>/uploads` (a temporary folder, removed at close, when DATA_DIR is `memory`).
 * Avatars sit at GitLab's paths, `-/system/<model>/avatar/<id>/<filename>`, so the URL names the file; a request's
 * multipart files stream into `tmp/` first and are removed when the request ends.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { FileRoot } from '../storage/files.js';

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

/** How long a file in `tmp/` may sit untouched before a start removes it as left by a killed server. */
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

  private avatarDir(model: AvatarModel, id: number): string {
    return join(this.root, '-', 'system', model, 'avatar', String(id));
  }

  /**
   * Copies an uploaded file in as the model's avatar under `filename` (already safe), replacing whatever avatar the
   * model had: the new file is written beside the old ones and renamed into place, then the others are removed.
   */
  async storeAvatar(model: AvatarModel, id: number, filename: string, file: UploadedFile): Promise<void> {
    const dir = this.avatarDir(model, id);
    await mkdir(dir, { recursive: true });
    const partial = join(dir, `.${randomUUID()}.partial`);
    await copyFile(file.path, partial);
    await rename(partial, join(dir, filename));
    for (const name of await readdir(dir)) if (name !== filename) await rm(join(dir, name), { force: true });
  }

  /** The avatar file's absolute path and size, or null when the model has no such file. */
  async avatarFile(model: AvatarModel, id: number, filename: string): Promise<{ path: string; size: number } | null> {
    if (filename.startsWith('.') || filename.includes('/')) return null;
    const path = join(this.avatarDir(model, id), filename);
    const info = await stat(path).catch(() => null);
    return info?.isFile() ? { path, size: info.size } : null;
  }

  /** Removes the model's avatar folder, once the model is deleted (nothing when it has none). */
  async removeAvatars(model: AvatarModel, id: number): Promise<void> {
    await rm(this.avatarDir(model, id), { recursive: true, force: true });
  }

  get root(): string {
    return this.files.root;
  }

  /** Removes the temporary folder of an in-memory server. */
  async close(): Promise<void> {
    await this.files.close();
  }
}
