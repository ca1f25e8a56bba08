/**
 * The byte-level readers of the npm registry, so no tarball is ever held whole in memory:
 *
 * - `publicationReader`: an `npm publish` body is JSON whose `_attachments.<file>.data` is the tarball in base64. The
 *   body streams through a small JSON lexer that follows the object keys; the bytes of that one string are decoded
 *   from base64 as they come and yielded (to the package store), everything else is kept (bounded) as the
 *   "skeleton", the same JSON with an empty `data`, parsed once the body has ended.
 * - `findPackageJson`: the first `…/package.json` entry of a gzipped tar (GitLab's `*∕package.json`), read through
 *   gunzip header by header, other entries skipped without being kept.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** The body is not what npm sends (the tarball string escaped, the metadata beyond its bound). */
export class PublicationError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

interface Level {
  array: boolean;
  /** Objects: the last key read; whether the next string is a key. */
  key: string | null;
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Longest object key followed (an attachment's file name is one). */
const MAX_KEY = 4096;

export interface Publication {
  /** The tarball's bytes, decoded from base64 as the body arrives; iterate to the end of the body. */
  tarball: AsyncGenerator<Buffer>;
  /** After `tarball` is done: the body with an empty `data`, the attachment's key, and the tarball's SHA-512. */
  result(): { skeleton: unknown; attachment: string | null; sha512: Buffer | null };
}

/** Reads an `npm publish` body; the skeleton (everything but the tarball's base64) may be at most `skeletonLimit` bytes. */
export function publicationReader(body: AsyncIterable<Buffer>, skeletonLimit: number): Publication {
  const skeleton: Buffer[] = [];
  let skeletonSize = 0;
  let attachment: string | null = null;
  let sha512: Buffer | null = null;
  let done = false;

  const keep = (bytes: Buffer) => {
    skeletonSize += bytes.length;
    if (skeletonSize > skeletonLimit) throw new PublicationError('Package metadata is too large', true);
    skeleton.push(bytes);
  };

  async function* tarball(): AsyncGenerator<Buffer> {
    const stack: Level[] = [];
    let inString = false;
    let escaped = false;
    /** The string being read is an object key (collected) or the tarball (decoded). */
    let readingKey = false;
    let key: number[] = [];
    let target = false;
    let carry = '';
    const hash = createHash('sha512');
    let seen = false;

    for await (const chunk of body) {
      let from = 0;
      let i = 0;
      while (i < chunk.length) {
        if (inString && target) {
          // The tarball: base64 up to the closing quote; npm never escapes in it.
          const end = chunk.indexOf(QUOTE, i);
          const stop = end === -1 ? chunk.length : end;
          const part = chunk.subarray(i, stop);
          if (part.includes(BACKSLASH)) throw new PublicationError('Invalid attachment data');
          const text = carry + part.toString('latin1');
          const usable = text.length - (text.length % 4);
          carry = text.slice(usable);
          if (usable) {
            const bytes = Buffer.from(text.slice(0, usable), 'base64');
            hash.update(bytes);
            yield bytes;
          }
          // The closing quote stays in the skeleton.
          from = stop;
          i = end === -1 ? stop : end + 1;
          if (end !== -1) {
            if (carry) {
              const bytes = Buffer.from(carry, 'base64');
              hash.update(bytes);
              yield bytes;
              carry = '';
            }
            inString = false;
            target = false;
            sha512 = hash.digest();
          }
          continue;
        }
        const c = chunk[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) {
            inString = false;
            if (readingKey) {
              const top = stack[stack.length - 1]!;
              top.key = key.length <= MAX_KEY ? keyText(key) : null;
              top.expectKey = false;
            }
          }
          if (readingKey && inString && key.length <= MAX_KEY) key.push(c);
          i++;
          continue;
        }
        const top = stack[stack.length - 1];
        if (c === QUOTE) {
          inString = true;
          escaped = false;
          readingKey = !!top && !top.array && top.expectKey;
          key = [];
          if (!readingKey && isTarballPath(stack)) {
            if (seen) throw new PublicationError('Only one attachment is accepted');
            seen = true;
            target = true;
            attachment = stack[1]!.key;
            // Keep the opening quote: the skeleton has `"data":""`.
            keep(chunk.subarray(from, i + 1));
            i++;
            from = i;
            continue;
          }
        } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) stack.push({ array: c === 0x5b, key: null, expectKey: c === 0x7b });
        else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
        else if (c === 0x2c /* , */ && top && !top.array) top.expectKey = true;
        i++;
      }
      if (from < chunk.length) keep(chunk.subarray(from));
    }
    if (inString) throw new PublicationError('Invalid JSON body');
    done = true;
  }

  return {
    tarball: tarball(),
    result() {
      if (!done) throw new Error('the body has not been read');
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(skeleton).toString('utf8'));
      } catch {
        throw new PublicationError('Invalid JSON body');
      }
      return { skeleton: parsed, attachment, sha512 };
    },
  };
}

function keyText(bytes: number[]): string {
  try {
    return JSON.parse(`"${Buffer.from(bytes).toString('utf8')}"`) as string;
  } catch {
    throw new PublicationError('Invalid JSON body');
  }
}

/** `_attachments.<file>.data` of the top-level object. */
function isTarballPath(stack: Level[]): boolean {
  return stack.length === 3 && !stack[0]!.array && stack[0]!.key === '_attachments' && !stack[1]!.array && !stack[2]!.array && stack[2]!.key === 'data';
}

export class TarballError extends Error {}

/** GitLab's bound of the package.json it reads from a tarball. */
const MAX_PACKAGE_JSON = 4 * 1024 * 1024;

/** The text of the tarball's first `*∕package.json` entry; null when it has none. */
export async function findPackageJson(tarball: Readable): Promise<string | null> {
  const gunzip = createGunzip();
  const input = tarball.pipe(gunzip);
  tarball.on('error', (error) => gunzip.destroy(error));
  let buffer: Buffer = Buffer.alloc(0);
  let skip = 0;
  /** The next entry's name from a GNU long name or a pax header. */
  let longName: string | null = null;
  let reading: { size: number; kind: 'target' | 'longname' | 'pax' } | null = null;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        if (skip) {
          const n = Math.min(skip, buffer.length);
          buffer = buffer.subarray(n);
          skip -= n;
          if (skip) break;
        }
        if (reading) {
          const padded = Math.ceil(reading.size / 512) * 512;
          if (buffer.length < reading.size) break;
          const data = buffer.subarray(0, reading.size);
          if (reading.kind === 'target') return data.toString('utf8');
          if (reading.kind === 'longname') longName = data.toString('utf8').replace(/\0.*$/s, '');
          else longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1] ?? longName;
          reading = null;
          skip = padded;
          continue;
        }
        if (buffer.length < 512) break;
        const header = buffer.subarray(0, 512);
        buffer = buffer.subarray(512);
        if (header.every((b) => b === 0)) return null;
        const size = octal(header.subarray(124, 136));
        const type = String.fromCharCode(header[156]!);
        const text = (from: number, to: number) => header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
        const prefix = header.subarray(257, 262).toString('latin1') === 'ustar' ? text(345, 500) : '';
        const name = longName ?? (prefix ? `${prefix}/${text(0, 100)}` : text(0, 100));
        if (type === 'L' || type === 'x') {
          if (size > MAX_PACKAGE_JSON) throw new TarballError('invalid package file');
          reading = { size, kind: type === 'L' ? 'longname' : 'pax' };
          continue;
        }
        longName = null;
        if ((type === '0' || type === '\0') && name.endsWith('/package.json')) {
          if (size > MAX_PACKAGE_JSON) throw new TarballError('package.json file too large');
          reading = { size, kind: 'target' };
          continue;
        }
        skip = Math.ceil(size / 512) * 512;
      }
    }
    return null;
  } finally {
    input.destroy();
    tarball.destroy();
  }
}

function octal(field: Buffer): number {
  // GNU base-256 for sizes beyond 8 GB.
  if (field[0]! & 0x80) return field.subarray(1).reduce((n, b) => n * 256 + b, 0);
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (!/^[0-7]*$/.test(text)) throw new TarballError('invalid package file');
  return text ? parseInt(text, 8) : 0;
}
