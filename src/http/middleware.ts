/** Express middleware shared by every surface: request ids, access logs, security headers, rate limits, body errors. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express, NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.js';
import { readCredentials } from '../auth/credentials.js';
import { invalidParams, payloadTooLarge, rateLimited, restError, type RestName } from '../errors.js';
import type { GraphQLError } from 'graphql';

/** GitLab sets these on every API response. */
const SECURITY_HEADERS: [string, string][] = [
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Content-Type-Options', 'nosniff'],
  ['Cache-Control', 'no-cache'],
];

/**
 * What every request gets first, in one step rather than a chain of middleware: a request id (`X-Request-Id`,
 * the caller's or a new one), one JSON access-log line when it finishes (method, route, status, duration),
 * GitLab's security headers, its token read once (`res.locals.credentials`: its digest, or null), and the rate
 * limit.
 */
export function requestBasics(logger: Logger, rateLimitPerMinute: number) {
  const limited = rateLimit(rateLimitPerMinute);
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    const id = req.get('x-request-id') ?? randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    res.on('finish', () => {
      // Handlers name their route template in res.locals.route; anything else (404s, GraphQL) logs its path.
      const path = req.originalUrl.split('?')[0];
      logger.info({
        requestId: id,
        method: req.method,
        route: typeof res.locals.route === 'string' ? res.locals.route : path,
        path,
        status: res.statusCode,
        durationMs: Number((process.hrtime.bigint() - start) / 1000n) / 1000,
      });
    });
    res.locals.credentials = readCredentials({ header: (n) => req.get(n), param: (n) => (req.query as Record<string, unknown>)[n] });
    const refused = limited(res.locals.credentials?.digest ?? `ip:${req.ip}`);
    if (refused) return sendCoded(res, refused);
    next();
  };
}

/**
 * Fixed-window limit per token (or per address for anonymous callers), in this replica's memory:
 * 429 `{"message":"429 Too Many Requests"}` with `Retry-After`, as GitLab's `too_many_requests!`.
 */
function rateLimit(perMinute: number): (key: string) => GraphQLError | null {
  const windows = new Map<string, { start: number; count: number }>();
  return (key) => {
    if (perMinute <= 0) return null;
    const now = Date.now();
    let w = windows.get(key);
    if (!w || now - w.start >= 60_000) {
      if (windows.size > 100_000) windows.clear();
      w = { start: now, count: 0 };
      windows.set(key, w);
    }
    w.count += 1;
    return w.count > perMinute ? rateLimited(Math.ceil((w.start + 60_000 - now) / 1000)) : null;
  };
}

/** Answers a coded error with its status, body and headers from the table in src/errors.ts. */
export function sendCoded(res: Response, error: GraphQLError, restName?: RestName): void {
  // A body refused as it arrived (bodyLimit) is answered already; its parser may report the same body later.
  if (res.headersSent) return;
  const { status, body, headers, text } = restError(error, restName);
  res.set(headers ?? {});
  if (text) res.status(status).type('text/plain').send(body);
  else res.status(status).json(body);
}

/** How long a refused request's remaining body is read away before its connection is closed (nginx's lingering close). */
const LINGER_MS = 10_000;

/**
 * Answers a request whose body will not be read (too large, malformed): the answer at once, with `Connection:
 * close`. What the client still sends is read away, so it gets the answer rather than a reset, but only for
 * LINGER_MS: then the connection is closed, whatever is left.
 */
export function refuseBody(req: IncomingMessage, res: Response, error: GraphQLError): void {
  if (!res.headersSent) {
    res.setHeader('Connection', 'close');
    sendCoded(res, error);
  }
  if (req.complete) return;
  req.unpipe();
  req.resume();
  closeAfterLinger(req.socket);
}

/** Closes a connection whose answer is its last once LINGER_MS have passed, if the client has not closed it by then. */
export function closeAfterLinger(socket: Duplex): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Bodies are held to the limit in the bytes that arrive, before the parsers: one declared larger is refused before a
 * byte of it is read, one sent without a length (chunked) as soon as it passes the limit. The body parsers stop at
 * the limit too (of what a compressed body inflates to), but answer only once they have read the rest away, however
 * long it is. Git's packs and the runner's artifacts and traces have their own limits and come earlier.
 */
export function bodyLimit(limit: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = req.headers['content-length'];
    if (Number(declared) > limit) return refuseBody(req, res, payloadTooLarge());
    if (declared === undefined && req.headers['transfer-encoding'] !== undefined) {
      // The parsers after this one start reading in this same turn, so flowing now loses them nothing.
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limit) return;
        req.off('data', count);
        refuseBody(req, res, payloadTooLarge());
      };
      req.on('data', count);
    }
    next();
  };
}

/** Body-parser failures: malformed JSON is a 400, an oversized body a 413; never a stack trace. */
export function bodyErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.too.large') return sendCoded(res, payloadTooLarge());
  if (e?.type === 'entity.parse.failed' || e?.status === 400) return sendCoded(res, invalidParams(['The request body could not be parsed']));
  next(err);
}

/**
 * Every JSON answer (`res.json`: REST results, errors, catch-alls) carries `Content-Type: application/json` without a
 * charset, as GitLab's Grape API sends it; Express would append `; charset=utf-8` to a string body, not to bytes.
 * HEAD gets the same headers with no body (Express's `send`).
 */
export function jsonWithoutCharset(web: Express): void {
  web.response.json = function json(this: Response, body: unknown): Response {
    // setHeader, not Express's `set`, which would add the charset back.
    if (!this.get('Content-Type')) this.setHeader('Content-Type', 'application/json');
    return this.send(Buffer.from(JSON.stringify(body) ?? ''));
  };
}
