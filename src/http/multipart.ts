/**
 * `multipart/form-data` bodies, parsed once for every route after git and the runner's streams, like JSON and form
 * bodies: fields become `req.body` with the urlencoded parser's shapes (repeated names and `a[]` make arrays, `a[b]`
 * nests, `a[][b]` fills objects of an array), files stream to temporary files (UploadedFile values), never held in
 * memory, and are removed when the response ends. Beyond BODY_LIMIT, or beyond GitLab's bounds on parts and
 * fields, the answer is GitLab's 413, as for other bodies; a body busboy cannot read (a part header too long) is a
 * 400. Either answer comes at once, whatever the files were doing, and leaves no file open or behind.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { malformedRequest, payloadTooLarge } from '../errors.js';
import { UploadedFile, type UploadStorage } from '../uploads/storage.js';
import { refuseBody } from './middleware.js';
import { addParam, MAX_PARAMS } from './params.js';

/** GitLab's (Rack's) and the urlencoded parser's bound on the number of parameters. */
const MAX_FIELDS = MAX_PARAMS;
const MAX_FILES = 100;

class TooLarge extends Error {}

/** The middleware; `limit` is BODY_LIMIT (a declared length beyond it was refused before: bodyLimit). */
export function multipartBodies(storage: UploadStorage, limit: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) return next();
    const temporary: string[] = [];
    const writes: Promise<void>[] = [];
    const streams: (Readable | WriteStream)[] = [];
    // Each file settles once its file is closed, whatever happened to the part: `pipeline` never settles for a part
    // that busboy ended but nobody read yet when it was destroyed, and a body cut off never ends its last part.
    const closed: Promise<void>[] = [];
    let removing: Promise<void> | undefined;
    // Once the answer is decided (a refusal) or has gone (the response closed), nothing needs the files: their
    // streams stop, and the files are removed once closed (a file still opening would otherwise be created after).
    const removeFiles = () =>
      (removing ??= (async () => {
        for (const stream of streams) stream.destroy();
        await Promise.all(closed);
        await Promise.all(temporary.map((path) => rm(path, { force: true })));
      })());
    res.on('close', () => void removeFiles());
    const refuse = (error: GraphQLError) => {
      req.unpipe();
      void removeFiles().then(() => refuseBody(req, res, error));
    };
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
      const file = createWriteStream(path, { mode: 0o600 });
      streams.push(stream, file);
      closed.push(new Promise((resolve) => file.once('close', () => resolve())));
      let size = 0;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => fail(new TooLarge()));
      // A file that cannot be written is the server's failure (500), not the body's.
      const written = pipeline(stream, file).then(() => {
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
