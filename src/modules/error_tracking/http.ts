/**
 * The Sentry-compatible collector (GitLab's lib/api/error_tracking/collector.rb) under
 * `/api/v4/error_tracking/collector`: a DSN `…/collector/<project_id>` makes Sentry SDKs post to
 * `…/collector/api/<project_id>/store/` and `…/envelope/`. Not GraphQL: its callers are SDKs, authenticated by the
 * DSN's client key (`sentry_key` in the query or the X-Sentry-Auth header), looked up on every request so a deleted
 * key stops working at once. Mounted before the body parsers: it reads its own bodies, gzip, deflate or brotli
 * compressed, with the decompressed size bounded (413 beyond).
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import express, { type Request, type Response } from 'express';
import { createContext, type App } from '../../context.js';
import { badRequest, notFoundAs, payloadTooLarge, unsupportedMediaType } from '../../errors.js';
import { sendError } from '../../rest/adapter.js';
import { CollectorRefusal, FAILED_TO_PARSE, parseEnvelope, parseStore, sentryKey } from './collector.js';

/** GitLab's CompressedJson middleware: at most 200 KB once decompressed. */
export const MAX_DECOMPRESSED_BYTES = 200 * 1024;

/** Content types the collector declares (GitLab's `content_type` lines); none at all is taken too. */
const CONTENT_TYPES = new Set(['application/x-sentry-envelope', 'application/json', 'text/plain']);

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/** Reads the request's bytes, refusing (413) once more than `limit` came. */
function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.resume();
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (!done) reject(error);
    });
  });
}

/** A zlib stream (RFC 1950) begins with a header whose check bits make it a multiple of 31; raw deflate does not. */
const zlibWrapped = (body: Buffer) => body.length >= 2 && (body[0] & 0x0f) === 8 && ((body[0] << 8) | body[1]) % 31 === 0;

/** The body decompressed as its Content-Encoding says, at most MAX_DECOMPRESSED_BYTES. */
async function decoded(body: Buffer, encoding: string): Promise<Buffer> {
  const options = { maxOutputLength: MAX_DECOMPRESSED_BYTES };
  try {
    switch (encoding) {
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return await gunzip(body, options);
      case 'deflate':
        return await (zlibWrapped(body) ? inflate(body, options) : inflateRaw(body, options));
      case 'br':
        return await brotli(body, options);
      default:
        throw unsupportedMediaType();
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw payloadTooLarge();
    if (error instanceof Error && 'errno' in error) throw badRequest(FAILED_TO_PARSE);
    throw error;
  }
}

export function errorTrackingCollector(app: App, bodyLimit: number) {
  const router = express.Router();
  const collect = (kind: 'store' | 'envelope') => async (req: Request, res: Response) => {
    try {
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type && !CONTENT_TYPES.has(type)) throw unsupportedMediaType();
      const key = sentryKey(req.query, req.get('x-sentry-auth'));
      const { services } = createContext(app, null);
      const projectRef = String(req.params.projectId);
      const { projectId, enabled, keyFound } = await services.error_tracking.collectorProject(projectRef, key ?? '');
      if (projectId == null) throw notFoundAs('404 Project Not Found');
      // GitLab's collector answers a project whose integrated error tracking is off as it answers an unknown route.
      if (!enabled) throw notFoundAs('404 Not Found');
      if (!key) throw badRequest(FAILED_TO_PARSE);
      if (!keyFound) throw notFoundAs('404 Not Found');
      const raw = await readBody(req, bodyLimit);
      const body = await decoded(raw, (req.headers['content-encoding'] ?? '').trim().toLowerCase());
      if (!body.length) throw badRequest(FAILED_TO_PARSE);
      const { events, sessions } = kind === 'store' ? parseStore(body) : parseEnvelope(body);
      await services.error_tracking.collect(projectId, events, sessions);
      // Some SDKs insist on 200; nothing is told back (gitlab-org/gitlab#343531).
      res.status(200).json({});
    } catch (error) {
      if (!req.readableEnded) req.resume();
      sendError(res, app, error instanceof CollectorRefusal ? badRequest(error.message) : error);
    }
  };
  router.post('/api/:projectId/store{/}', collect('store'));
  router.post('/api/:projectId/envelope{/}', collect('envelope'));
  return router;
}
