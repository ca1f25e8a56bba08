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
import { readBasicCredentials, resolveViewer, type Credentials, type CredentialsAuthenticator } from '../../auth/credentials.js';
import { fileContentType, contentDisposition } from '../../uploads/avatars.js';
import { createContext, type App } from '../../context.js';
import { badRequest, notFound, payloadTooLarge } from '../../errors.js';
import { PAYLOAD_MAX_BYTES } from './payload.js';
import { METRIC_IMAGE_MODEL, type NotifyTarget } from './service.js';

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

/**
 * GitLab's UploadsController for metric images: `GET /uploads/-/system/alert_metric_image/file/:id/:filename`
 * sends the file inline to those who may read the alert's images (the request's token says who asks); everyone
 * else gets the same 404 as for a file that does not exist.
 */
export function alertMetricImageFiles(app: App, authenticate: CredentialsAuthenticator): Router {
  const router = Router();
  router.get(`/uploads/-/system/${METRIC_IMAGE_MODEL}/file/:id/:filename`, async (req: Request, res: Response, next: NextFunction) => {
    const { id, filename } = req.params as Record<string, string>;
    if (!/^\d{1,10}$/.test(id) || Number(id) > 2147483647) return next();
    try {
      const viewer = await resolveViewer(authenticate, res.locals.credentials as Credentials | null).catch(() => null);
      const file = await createContext(app, viewer, { lane: 'read' }).services.alert_management.metricImageFile(Number(id), filename);
      if (!file) return next();
      res.set({ 'Content-Type': fileContentType(filename), 'Content-Disposition': contentDisposition('inline', filename), 'Cache-Control': 'max-age=300, private, must-revalidate' });
      res.sendFile(file.path, { cacheControl: false, dotfiles: 'allow' }, (error) => error && next(error));
    } catch (error) {
      next(error);
    }
  });
  return router;
}
