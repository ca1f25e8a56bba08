/**
 * `multipart/form-data` bodies, parsed once for every route after git and the runner's streams, like JSON and form
 * bodies: fields become `req.body` with the urlencoded parser's shapes (repeated names and `a[]` make arrays, `a[b]`
 * nests, `a[][b]` fills objects of an array), files stream to temporary files (UploadedFile values), never held in
 * memory, and are removed when the response ends. Beyond BODY_LIMIT (the whole body, or the declared length) the
 * answer is GitLab's 413, as for other bodies; a body busboy cannot read is a 400.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { malformedRequest, payloadTooLarge } from '../errors.js';
import { UploadedFile, type UploadStorage } from '../uploads/storage.js';
import { sendCoded } from './middleware.js';

/** Keys that would reach an object's prototype; such parameters are dropped. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** GitLab's (Rack's) and the urlencoded parser's bound on the number of parameters. */
const MAX_FIELDS = 1000;
const MAX_FILES = 100;

class TooLarge extends Error {}

/** `a[b][]` as `['a', 'b', '']`; a name that is not of that shape is one key, as it is. */
function keyPath(name: string): [string, ...string[]] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name);
  if (!match) return [name];
  return [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof UploadedFile);
}

/** Sets `value` at `path` under `node[key]`, with the urlencoded parser's rules for repeats and arrays. */
function assign(node: Record<string, unknown>, key: string, path: string[], value: unknown): void {
  if (UNSAFE_KEYS.has(key)) return;
  const existing = node[key];
  if (path.length === 0) {
    node[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    return;
  }
  const [next, ...rest] = path;
  if (next === '') {
    const list = Array.isArray(existing) ? existing : existing === undefined ? [] : [existing];
    node[key] = list;
    if (rest.length === 0) {
      list.push(value);
      return;
    }
    // `a[][b]`: into the last object of the list while it lacks `b`, else a new object (Rack's rule).
    const last: unknown = list[list.length - 1];
    const target = isRecord(last) && !(rest[0] in last) ? last : {};
    if (target !== last) list.push(target);
    assign(target, rest[0], rest.slice(1), value);
    return;
  }
  const child = isRecord(existing) ? existing : {};
  node[key] = child;
  assign(child, next, rest, value);
}

/** The middleware; `limit` is BODY_LIMIT. */
export function multipartBodies(storage: UploadStorage, limit: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) return next();
    const temporary: string[] = [];
    const writes: Promise<void>[] = [];
    const files: Readable[] = [];
    // Files are removed once the response has gone and every write has stopped (a write still opening its file
    // would otherwise create it after the removal).
    const removeFiles = async () => {
      await Promise.allSettled(writes);
      await Promise.all(temporary.map((path) => rm(path, { force: true })));
    };
    res.on('close', () => void removeFiles());
    const refuse = (error: ReturnType<typeof malformedRequest>) => {
      req.unpipe();
      req.resume(); // read the rest away, so the connection can carry the answer
      for (const file of files) file.destroy();
      void removeFiles().then(() => {
        if (!res.headersSent) sendCoded(res, error);
      });
    };
    if (Number(req.headers['content-length']) > limit) return refuse(payloadTooLarge());
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fields: MAX_FIELDS, files: MAX_FILES, fieldSize: limit, fileSize: limit } });
    } catch {
      return refuse(malformedRequest()); // no boundary, or a content type busboy does not take
    }
    const body: Record<string, unknown> = {};
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      refuse(error instanceof TooLarge ? payloadTooLarge() : malformedRequest());
    };
    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > limit) return done(new TooLarge());
        done(null, chunk);
      },
    });
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) return fail(new TooLarge());
      const [key, ...path] = keyPath(name);
      assign(body, key, path, value);
    });
    parser.on('file', (name, stream, info) => {
      // A file input left empty sends a part with no file name: no file, as Rack reads it.
      const filename = info.filename;
      if (!filename || failed) return void stream.resume();
      const path = storage.temporaryPath();
      temporary.push(path);
      files.push(stream);
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => fail(new TooLarge()));
      // A file that cannot be written is the server's failure (500), not the body's.
      const written = pipeline(stream, createWriteStream(path, { mode: 0o600 })).then(() => {
        const [key, ...rest] = keyPath(name);
        assign(body, key, rest, new UploadedFile(path, filename, info.mimeType, size));
      });
      written.catch(() => undefined); // handled once the body ends (Promise.all below); no unhandled rejection meanwhile
      writes.push(written);
    });
    parser.on('fieldsLimit', () => fail(new TooLarge()));
    parser.on('filesLimit', () => fail(new TooLarge()));
    parser.on('partsLimit', () => fail(new TooLarge()));
    parser.on('error', fail);
    counted.on('error', fail);
    parser.on('close', () => {
      Promise.all(writes).then(
        () => {
          if (failed) return;
          req.body = body;
          next();
        },
        (error: unknown) => {
          if (failed) return;
          failed = true;
          req.unpipe();
          req.resume();
          next(error);
        },
      );
    });
    // Not `pipeline`: a refused body must leave the request (and its socket) open for the answer.
    req.pipe(counted).pipe(parser);
  };
}
