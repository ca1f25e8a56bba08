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
import { addParam, MAX_PARAMS } from './params.js';

/** GitLab's (Rack's) and the urlencoded parser's bound on the number of parameters. */
const MAX_FIELDS = MAX_PARAMS;
const MAX_FILES = 100;

class TooLarge extends Error {}

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
      addParam(body, name, value);
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
        addParam(body, name, new UploadedFile(path, filename, info.mimeType, size));
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
