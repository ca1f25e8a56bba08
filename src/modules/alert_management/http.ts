/**
 * The alert notify endpoints, outside /api/v4 as in GitLab (a Rails controller on the project's web path):
 *
 * - `POST /:project_full_path/alerts/notify/:name/:endpoint_identifier(.json)`: an integration's own URL (`:name` is
 *   cosmetic, only the identifier selects the integration);
 * - `POST /:project_full_path/prometheus/alerts/notify(.json)`: the project's Prometheus integration;
 * - `POST /:project_full_path/alerts/notify(.json)`: the legacy URL.
 *
 * The key comes as `Authorization: Bearer <key>` or as the password of HTTP Basic (any user name). Mounted before
 * the API's body parsers: the body is read here, at most 1 MB (413 beyond, at once when Content-Length says so),
 * strict UTF-8 JSON (400 otherwise, nothing stored).
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { readBasicCredentials } from '../../auth/credentials.js';
import { createContext, type App } from '../../context.js';
import { badRequest, notFound, payloadTooLarge } from '../../errors.js';
import { PAYLOAD_MAX_BYTES } from './payload.js';
import type { NotifyTarget } from './service.js';

const PROMETHEUS = /^\/(.+\/[^/]+)\/prometheus\/alerts\/notify(?:\.json)?$/;
const INTEGRATION = /^\/(.+\/[^/]+)\/alerts\/notify\/([^/]+)\/([A-Za-z0-9]+)(?:\.json)?$/;
const LEGACY = /^\/(.+\/[^/]+)\/alerts\/notify(?:\.json)?$/;

function route(path: string): { projectPath: string; target: NotifyTarget } | null {
  let m = PROMETHEUS.exec(path);
  if (m) return { projectPath: m[1]!, target: { kind: 'prometheus' } };
  m = INTEGRATION.exec(path);
  if (m) return { projectPath: m[1]!, target: { kind: 'http', endpointIdentifier: m[3]! } };
  m = LEGACY.exec(path);
  if (m) return { projectPath: m[1]!, target: { kind: 'legacy' } };
  return null;
}

/** The key a request presents: a Bearer token first, else the Basic password (GitLab's from_bearer_authorization, then Basic). */
function presentedKey(req: Request): string | null {
  const header = req.headers.authorization;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (bearer) return bearer;
  const basic = readBasicCredentials(header);
  return basic && basic !== 'malformed' ? basic.password || null : null;
}

/** The body, at most PAYLOAD_MAX_BYTES; throws 413 beyond. */
async function readBody(req: Request): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > PAYLOAD_MAX_BYTES) throw payloadTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > PAYLOAD_MAX_BYTES) throw payloadTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The payload: `{}` for an empty body, as GitLab reads a request without JSON. */
function parsePayload(body: Buffer): unknown {
  if (!body.length) return {};
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw badRequest('The payload is not valid UTF-8');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    throw badRequest(`The payload is not valid JSON: ${(error as Error).message}`);
  }
  // PostgreSQL's text and jsonb hold no NUL character.
  if (text.includes('\\u0000') && JSON.stringify(payload).includes('\\u0000')) throw badRequest('The payload must not contain NUL characters');
  return payload;
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    throw notFound('Project');
  }
}

/** Express middleware for the notify endpoints; anything else goes on. */
export function alertNotifyHttp(app: App) {
  const router = Router();
  router.post(/\/alerts\/notify/, (req: Request, res: Response, next: NextFunction) => {
    const target = route(req.path);
    if (!target) return next();
    void (async () => {
      const payload = parsePayload(await readBody(req));
      const ctx = createContext(app, null);
      const alerts = await ctx.services.alert_management.notify(decodePath(target.projectPath), target.target, presentedKey(req), payload);
      await ctx.settle();
      res.status(200).json(alerts);
    })().catch((error: unknown) => {
      // The rest of a refused body is not read: close the connection after answering.
      if (!req.complete) res.set('Connection', 'close');
      next(error);
    });
  });
  return router;
}
