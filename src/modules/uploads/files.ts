/**
 * How an upload is named and shown, as GitLab's FileUploader and PersonalFileUploader show it: its URL in Markdown
 * (`/uploads/<secret>/<name>`, relative to its project; a personal upload's names its owner,
 * `/uploads/-/system/<model>/<id>/<secret>/<name>`), its Markdown link (an image for images, videos and SVGs), and how
 * its bytes are sent.
 */
import { extension, fileContentType } from '../../uploads/avatars.js';
import type { UploadOwner } from '../../uploads/storage.js';

/** Gitlab::FileTypeDetection's extensions. */
const SAFE_IMAGE = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
const SAFE_VIDEO = ['mp4', 'm4v', 'mov', 'webm', 'ogv'];
const SAFE_AUDIO = ['mp3', 'oga', 'ogg', 'spx', 'wav'];
const DANGEROUS_IMAGE = ['svg'];

/** GitLab's uploader classes, as the uploads table names them. */
export const FILE_UPLOADER = 'FileUploader';
export const PERSONAL_FILE_UPLOADER = 'PersonalFileUploader';

/** The models an upload belongs to, as the uploads table names them, by the owner's folder kind. */
export const MODEL_TYPES: Record<UploadOwner['model'], string> = { project: 'Project', user: 'User', personal_snippet: 'Snippet' };

/** What locating an upload's file and URL needs of its row. */
export interface UploadLocation {
  modelType: string;
  modelId: number;
  path: string;
}

/** The upload's owner folder, from its row. */
export function ownerOf(row: Pick<UploadLocation, 'modelType' | 'modelId'>): UploadOwner {
  const model = (Object.keys(MODEL_TYPES) as UploadOwner['model'][]).find((m) => MODEL_TYPES[m] === row.modelType) ?? 'project';
  return { model, id: row.modelId };
}

/** The `<secret>` and `<filename>` of a row's path. */
export function pathParts(path: string): { secret: string; filename: string } {
  const slash = path.indexOf('/');
  return { secret: path.slice(0, slash), filename: path.slice(slash + 1) };
}

const isImageOrVideo = (name: string) => [...SAFE_IMAGE, ...SAFE_VIDEO].includes(extension(name));

/** FileUploader#markdown_name: an image's or video's name without its extension, `]` escaped. */
export function markdownName(filename: string): string {
  const ext = extension(filename);
  const name = isImageOrVideo(filename) ? filename.slice(0, filename.length - ext.length - 1) : filename;
  return name.replace(/]/g, '\\]');
}

/** FileUploader#markdown_link: `[name](url)`, an image (`!`) for images, videos and SVGs. */
export function markdownLink(filename: string, url: string): string {
  const link = `[${markdownName(filename)}](${url})`;
  return isImageOrVideo(filename) || DANGEROUS_IMAGE.includes(extension(filename)) ? `!${link}` : link;
}

/** The URL Markdown names the upload by (FileUploader#secure_url, PersonalFileUploader's `/uploads/-/system/…`). */
export function uploadUrl(row: UploadLocation): string {
  const owner = ownerOf(row);
  return owner.model === 'project' ? `/uploads/${row.path}` : `/uploads/-/system/${owner.model}/${owner.id}/${row.path}`;
}

/** GitLab's `banzai_upload_path`: the project's upload by project ID (`/-/project/<id>/uploads/…`); a personal one's URL. */
export function uploadFullPath(row: UploadLocation): string {
  const owner = ownerOf(row);
  return owner.model === 'project' ? `/-/project/${owner.id}/uploads/${row.path}` : uploadUrl(row);
}

/**
 * How the web paths send an upload (UploadsActions#show): inline when a browser may show it in the page (safe images,
 * videos, audio) or a PDF, with its type; anything else as an attachment of `application/octet-stream`.
 */
export function webDisposition(filename: string): { contentType: string; disposition: 'inline' | 'attachment' } {
  const ext = extension(filename);
  if ([...SAFE_IMAGE, ...SAFE_VIDEO, ...SAFE_AUDIO, 'pdf'].includes(ext)) return { contentType: fileContentType(filename), disposition: 'inline' };
  return { contentType: 'application/octet-stream', disposition: 'attachment' };
}
