/**
 * Avatars of users, groups and projects as GitLab's Avatarable keeps them: an image file (GitLab's safe image
 * extensions) of at most 200 KB, stored under its sanitized name at `-/system/<model>/avatar/<id>/`, the row keeping
 * only the name; `avatar_url` is `<EXTERNAL_URL>/uploads/-/system/<model>/avatar/<id>/<name>`, null without one
 * (GitLab's answer with Gravatar disabled, as a server that reaches nothing outside is).
 */
import { readFile } from 'node:fs/promises';
import { UploadedFile, type AvatarModel, type UploadStorage } from './storage.js';

/** GitLab's Gitlab::FileTypeDetection::SAFE_IMAGE_EXT. */
export const AVATAR_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'] as const;
/** Avatarable::MAXIMUM_FILE_SIZE. */
export const AVATAR_MAX_BYTES = 200 * 1024;

/** Content types by extension: GitLab's safe images, videos and audio (FileTypeDetection), SVG and PDF. */
const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
  mp3: 'audio/mpeg',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  spx: 'audio/ogg',
  wav: 'audio/wav',
  pdf: 'application/pdf',
};

/**
 * A client's file name as CarrierWave stores it: its base name, anything but word characters, `.`, `-` and `+`
 * becoming `_` (and leading dots, so no stored file is hidden), at most 255 characters; empty when nothing is left.
 */
export function sanitizeFileName(filename: string): string {
  const base = filename.split(/[/\\]/).pop() ?? '';
  return base.replace(/[^\p{L}\p{N}_.+-]/gu, '_').replace(/^\.+/, (dots) => '_'.repeat(dots.length)).slice(-255);
}

/** The name an avatar is stored under (sanitizeFileName). */
export function avatarFileName(file: UploadedFile): string {
  return sanitizeFileName(file.filename) || 'avatar';
}

/** A file name's extension, lower-cased; empty without one. */
export function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Avatarable's validations of a new avatar, in GitLab's words; empty when it may be stored (or is blank, a removal). */
export function avatarProblems(file: UploadedFile): string[] {
  const problems: string[] = [];
  if (file === UploadedFile.BLANK) return problems;
  if (!(AVATAR_EXTENSIONS as readonly string[]).includes(extension(avatarFileName(file)))) {
    problems.push(`file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`);
  }
  if (file.size > AVATAR_MAX_BYTES) problems.push('is too big (should be at most 200 KB)');
  return problems;
}

/**
 * Sets a validated avatar: `update` writes its name to the model's row inside the caller's transaction, whose row
 * lock makes concurrent changes of one model's avatar take turns until commit; then the file is stored and the
 * model's other avatar files removed, so the name the row keeps always has its file. A blank file (`avatar=`,
 * GitLab's way of removing an avatar) makes the row forget its avatar, then its files go.
 */
export async function replaceAvatar<T>(storage: UploadStorage, model: AvatarModel, id: number, file: UploadedFile, update: (name: string | null) => Promise<T>): Promise<T> {
  if (file === UploadedFile.BLANK) {
    const row = await update(null);
    await storage.removeAvatars(model, id);
    return row;
  }
  const name = avatarFileName(file);
  const row = await update(name);
  await storage.storeAvatar(model, id, name, file);
  return row;
}

/** The avatar's absolute URL, or null when there is none. */
export function avatarUrl(externalUrl: string, model: AvatarModel, id: number, avatar: string | null | undefined): string | null {
  return avatar ? `${externalUrl}/uploads/-/system/${model}/avatar/${id}/${encodeURIComponent(avatar)}` : null;
}

/** The Content-Type a stored file (an avatar, a metric image, an upload) is served with, from its extension. */
export function fileContentType(name: string): string {
  return CONTENT_TYPES[extension(name)] ?? 'application/octet-stream';
}

/** `Content-Disposition` for a file sent `inline` or as an `attachment` (Rails' ContentDisposition.format). */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {
  return `${disposition}; filename="${name.replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** A stored file as a download, for a route that sends raw bytes (an avatar, an upload). */
export interface FileDownload {
  filename: string;
  contentType: string;
  contentDisposition: string;
  /** The bytes, base64-encoded. */
  content: string;
}

/** A file sent as GitLab's `present_disk_file!` sends it: an attachment named `filename`, as `application/octet-stream`. */
export async function attachmentDownload(path: string, filename: string): Promise<FileDownload> {
  return {
    filename,
    contentType: 'application/octet-stream',
    contentDisposition: contentDisposition('attachment', filename),
    content: (await readFile(path)).toString('base64'),
  };
}

/**
 * The avatar as GitLab's `GET /projects/:id/avatar` and `GET /groups/:id/avatar` send it (attachmentDownload); null
 * when there is none (or its file is gone).
 */
export async function avatarDownload(storage: UploadStorage, model: AvatarModel, id: number, avatar: string | null): Promise<FileDownload | null> {
  const file = avatar ? await storage.avatarFile(model, id, avatar) : null;
  if (!avatar || !file) return null;
  return attachmentDownload(file.path, avatar);
}
