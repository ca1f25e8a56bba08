/**
 * The content types GitLab Workhorse gives the files it serves out of artifact archives:
 * - by extension (Go's mime.TypeByExtension: its built-in table, and the common `text/plain` of a system's
 *   mime.types), `application/octet-stream` otherwise: the job's single-file download;
 * - by content (Workhorse's SafeContentHeaders over Go's http.DetectContentType of the first 512 bytes, every text
 *   type served as `text/plain; charset=utf-8`): the download by ref, which asks Workhorse to detect it.
 */

const BY_EXTENSION: Record<string, string> = {
  '.avif': 'image/avif',
  '.css': 'text/css; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.mjs': 'text/javascript; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file's type by its extension (Go's mime.TypeByExtension, case-insensitively), `application/octet-stream` when unknown. */
export function contentTypeByExtension(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return (dot >= 0 && BY_EXTENSION[base.slice(dot).toLowerCase()]) || 'application/octet-stream';
}

/** Go's http.DetectContentType signatures that are not text, by their first bytes. */
const SIGNATURES: [Buffer, string][] = [
  [Buffer.from('%PDF-'), 'application/pdf'],
  [Buffer.from('%!PS-Adobe-'), 'application/postscript'],
  [Buffer.from([0, 0, 1, 0]), 'image/x-icon'],
  [Buffer.from([0, 0, 2, 0]), 'image/x-icon'],
  [Buffer.from('BM'), 'image/bmp'],
  [Buffer.from('GIF87a'), 'image/gif'],
  [Buffer.from('GIF89a'), 'image/gif'],
  [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
  [Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
  [Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), 'video/webm'],
  [Buffer.from('OggS\0'), 'application/ogg'],
  [Buffer.from('ID3'), 'audio/mpeg'],
  [Buffer.from('wOFF'), 'font/woff'],
  [Buffer.from('wOF2'), 'font/woff2'],
  [Buffer.from([0x1f, 0x8b, 0x08]), 'application/x-gzip'],
  [Buffer.from('PK\x03\x04'), 'application/zip'],
  [Buffer.from('Rar!\x1a\x07\x00'), 'application/x-rar-compressed'],
  [Buffer.from('Rar!\x1a\x07\x01\x00'), 'application/x-rar-compressed'],
  [Buffer.from('\0asm'), 'application/wasm'],
];

/** Go's "binary data byte": a control character text does not hold. */
const binaryByte = (b: number) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

/** An SVG document (Workhorse checks for one before Go's detection, which calls it text). */
const SVG = /^\s*(?:<\?xml[^>]*>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*)*<svg[\s>]/i;

/** The type Workhorse sends for content starting with `head` (its first 512 bytes are looked at). */
export function detectContentType(head: Buffer): string {
  const data = head.subarray(0, 512);
  const riff = data.length >= 14 && data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 14).toString('latin1') === 'WEBPVP';
  if (riff) return 'image/webp';
  for (const [signature, type] of SIGNATURES) if (data.length >= signature.length && data.subarray(0, signature.length).equals(signature)) return type;
  if (!data.some(binaryByte)) return SVG.test(data.toString('utf8')) ? 'image/svg+xml' : 'text/plain; charset=utf-8';
  // Byte order marks: text in Go's detection, whatever follows.
  if (data[0] === 0xfe && data[1] === 0xff) return 'text/plain; charset=utf-8';
  if (data[0] === 0xff && data[1] === 0xfe) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

/**
 * Workhorse's `attachment; filename="<base name>"`, quotes and backslashes escaped, its UTF-8 bytes as they are (as
 * a latin1 string, which Node writes byte for byte); control characters become spaces (Go writes newlines so).
 */
export function attachmentDisposition(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');
  const value = `attachment; filename="${base.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return Buffer.from(value, 'utf8').toString('latin1');
}
