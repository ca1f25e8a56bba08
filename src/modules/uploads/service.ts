/**
 * Markdown uploads (GitLab's Upload rows with their FileUploader and PersonalFileUploader files): a project's
 * attachments (the Markdown uploads API), a user's temporary uploads and a personal snippet's files (the web
 * UploadsController), each a row of `uploads` and a file at `<owner's folder>/<secret>/<filename>` (UploadStorage).
 * The row is written after its file, and deleted before it, so a row always has its file.
 */
import { randomBytes } from 'node:crypto';
import { badRequest, missing, notFound, payloadTooLarge, recordNotFound, unauthenticated } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { attachmentDownload, sanitizeFileName, type FileDownload } from '../../uploads/avatars.js';
import { UploadedFile, type UploadOwner } from '../../uploads/storage.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { UsersService } from '../users/service.js';
import { FILE_UPLOADER, MODEL_TYPES, PERSONAL_FILE_UPLOADER, markdownLink, ownerOf, pathParts, uploadUrl } from './files.js';

export type UploadRow = Awaited<ReturnType<ServiceBase['db']['upload']['findUniqueOrThrow']>>;

/** Uploads::DestroyService's refusal of an upload that is not there. */
const DESTROY_REFUSED = "The resource that you are attempting to access does not exist or you don't have permission to perform this action.";

/** Which upload of a project: by ID, or by its secret and file name. */
export type UploadTarget = { id: number } | { secret: string; filename: string };

/** A Markdown link of a moved upload: the old one, and the one to put in its place. */
export interface MovedLink {
  from: string;
  to: string;
}

export class UploadsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** The rows of a project's Markdown uploads (Banzai::UploadsFinder). */
  private projectWhere(project: ProjectRow) {
    return { modelType: MODEL_TYPES.project, modelId: project.id, uploader: FILE_UPLOADER };
  }

  /**
   * `POST /projects/:id/uploads` (UploadService with FileUploader): any signed-in caller who reads the project, as the
   * API asks nothing more; at most the instance's max attachment size.
   */
  async create(project: ProjectRow, file: UploadedFile | null): Promise<UploadRow> {
    if (!this.base.viewer) throw unauthenticated();
    return this.store({ model: 'project', id: project.id }, FILE_UPLOADER, file);
  }

  /**
   * `POST /uploads/user?id=<id>` (UploadsController with PersonalFileUploader): a temporary upload of the user, for a
   * description not saved yet (a new personal snippet's); only the user themself and administrators (update_user).
   */
  async createForUser(userId: number, file: UploadedFile | null): Promise<UploadRow> {
    if (!this.base.viewer) throw unauthenticated();
    const user = await this.users.find({ id: userId });
    // UploadsController's render_unauthorized: a signed-in caller who may not gets the same 404 as for no user.
    if (!user || !(await this.base.access.can('update_user', user))) throw notFound();
    return this.store({ model: 'user', id: user.id }, PERSONAL_FILE_UPLOADER, file);
  }

  /** A personal snippet's upload (`POST /uploads/personal_snippet?id=<id>`), once SnippetsService allowed it. */
  createForSnippet(snippetId: number, file: UploadedFile | null): Promise<UploadRow> {
    return this.store({ model: 'personal_snippet', id: snippetId }, PERSONAL_FILE_UPLOADER, file);
  }

  /** UploadService: the file under its sanitized name and a new secret, then its row. */
  private async store(owner: UploadOwner, uploader: string, file: UploadedFile | null): Promise<UploadRow> {
    const filename = file && file !== UploadedFile.BLANK ? sanitizeFileName(file.filename) : '';
    if (!file || !filename) throw missing('file');
    const limit = this.base.app.config.maxAttachmentSize;
    if (file.size > limit) throw payloadTooLarge();
    const secret = randomBytes(16).toString('hex');
    const storage = this.base.app.uploads;
    const { size, checksum } = await storage.storeUpload(owner, secret, filename, file, limit);
    try {
      return await this.db.upload.create({
        data: { size, checksum, secret, uploader, path: `${secret}/${filename}`, modelType: MODEL_TYPES[owner.model], modelId: owner.id, uploadedByUserId: this.base.viewer?.id ?? null },
      });
    } catch (error) {
      await storage.removeUpload(owner, secret, filename);
      throw error;
    }
  }

  /** `GET /projects/:id/uploads`: Maintainers (admin_upload), newest first. */
  async list(project: ProjectRow, page: PageArgs) {
    await this.base.access.authorize('admin_upload', project);
    const where = this.projectWhere(project);
    return connection(
      page,
      (p) => this.db.upload.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: p.skip, take: p.take }),
      () => this.db.upload.count({ where }),
    );
  }

  /**
   * One upload of the project: by ID for Maintainers only (admin_upload: IDs can be enumerated, secrets cannot), by
   * secret and file name for whoever has guest access (read_upload). A missing one is GitLab's `404 Not found` for an
   * ID (ActiveRecord::RecordNotFound) and `404 Not Found` otherwise.
   */
  async get(project: ProjectRow, target: UploadTarget): Promise<UploadRow> {
    await this.base.access.authorize('id' in target ? 'admin_upload' : 'read_upload', project);
    const row = await this.find(project, target);
    if (!row) throw 'id' in target ? recordNotFound() : notFound();
    return row;
  }

  private find(project: ProjectRow, target: UploadTarget): Promise<UploadRow | null> {
    const where = this.projectWhere(project);
    return 'id' in target
      ? this.db.upload.findFirst({ where: { ...where, id: target.id } })
      : this.db.upload.findFirst({ where: { ...where, path: `${target.secret}/${target.filename}` } });
  }

  /** The upload's bytes as the API sends them (present_carrierwave_file!): `404 Not Found` when its file is gone. */
  async download(row: UploadRow): Promise<FileDownload> {
    const { secret, filename } = pathParts(row.path);
    const file = await this.base.app.uploads.uploadFile(ownerOf(row), secret, filename);
    if (!file) throw notFound();
    return attachmentDownload(file.path, filename);
  }

  /**
   * `DELETE /projects/:id/uploads/…` and `uploadDelete` (Uploads::DestroyService): Maintainers (destroy_upload). A
   * missing ID is a 404; a missing secret and name Uploads::DestroyService's refusal, a 400 (an `errors` entry).
   */
  async destroy(project: ProjectRow, target: UploadTarget): Promise<UploadRow> {
    await this.base.access.authorize('destroy_upload', project);
    const row = await this.find(project, target);
    if (!row) throw 'id' in target ? recordNotFound() : badRequest(`400 Bad request - ${DESTROY_REFUSED}`);
    await this.db.upload.deleteMany({ where: { id: row.id } });
    const { secret, filename } = pathParts(row.path);
    await this.base.app.uploads.removeUpload(ownerOf(row), secret, filename);
    return row;
  }

  /** `uploadDelete` with `groupPath`: groups keep no Markdown uploads here, so there is never one to delete. */
  refuseGroupUpload(): never {
    throw badRequest(`400 Bad request - ${DESTROY_REFUSED}`);
  }

  /**
   * The file of an upload at a web path (`/<project>/uploads/…`, `/uploads/-/system/…`) whose owner the caller was
   * allowed to read, or null (the same 404 for a file that does not exist). A user's temporary uploads are read by
   * that user and administrators only (update_user).
   */
  async webFile(owner: UploadOwner, secret: string, filename: string): Promise<{ path: string; filename: string } | null> {
    if (owner.model === 'user') {
      const user = await this.users.find({ id: owner.id });
      if (!user || !(await this.base.access.can('update_user', user))) return null;
    }
    const uploader = owner.model === 'project' ? FILE_UPLOADER : PERSONAL_FILE_UPLOADER;
    const row = await this.db.upload.findFirst({ where: { modelType: MODEL_TYPES[owner.model], modelId: owner.id, uploader, path: `${secret}/${filename}` } });
    const file = row && (await this.base.app.uploads.uploadFile(owner, secret, filename));
    return file ? { path: file.path, filename } : null;
  }

  /**
   * Snippets::CreateService#move_temporary_files (FileMover): each path (`…/<secret>/<filename>`, as the upload's
   * `url` gave it) names one of the viewer's own temporary uploads (the user the path names is not read: no one moves
   * another's); its file moves to the personal snippet and its row follows. Paths that name none are skipped. Answers
   * the Markdown links to replace in the snippet's description, old by new.
   */
  async moveTemporary(snippetId: number, paths: readonly string[]): Promise<MovedLink[]> {
    const viewer = this.base.viewer;
    if (!viewer) return [];
    const from: UploadOwner = { model: 'user', id: viewer.id };
    const to: UploadOwner = { model: 'personal_snippet', id: snippetId };
    const moved: MovedLink[] = [];
    for (const path of paths) {
      const [secret, filename] = path.split('/').slice(-2);
      if (!secret || !filename) continue;
      const row = await this.db.upload.findFirst({ where: { modelType: MODEL_TYPES.user, modelId: viewer.id, uploader: PERSONAL_FILE_UPLOADER, path: `${secret}/${filename}` } });
      if (!row || !(await this.base.app.uploads.moveUpload(from, to, secret, filename))) continue;
      const updated = await this.db.upload.update({ where: { id: row.id }, data: { modelType: MODEL_TYPES.personal_snippet, modelId: snippetId } });
      moved.push({ from: markdownLink(filename, uploadUrl(row)), to: markdownLink(filename, uploadUrl(updated)) });
    }
    return moved;
  }

  /** Removes every upload of an owner being deleted, rows and files (a project's teardown, a snippet's purge). */
  async removeAll(owner: UploadOwner): Promise<void> {
    await this.db.upload.deleteMany({ where: { modelType: MODEL_TYPES[owner.model], modelId: owner.id } });
    await this.base.app.uploads.removeUploads(owner);
  }
}
