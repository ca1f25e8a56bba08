/**
 * The web paths of Markdown uploads, outside /api/v4 as in GitLab (Rails controllers), mounted after the body parsers.
 * The caller is who the request's token says (`PRIVATE-TOKEN`, `Authorization: Bearer`, as on the API; GitLab's web
 * controllers take a session instead): writes need a token with `api`, reads one with `api` or `read_api`, or none.
 *
 * - `POST /uploads/user?id=<id>` and `POST /uploads/personal_snippet?id=<id>` (UploadsController#create, multipart
 *   `file`): 200 `{"link": {"alt", "url", "markdown"}}`; 422 `"Invalid file."` without a file; 401 anonymous; 404 for a
 *   model the caller may not upload to.
 * - `GET /uploads/-/system/{user,personal_snippet}/<id>/<secret>/<name>` (UploadsController#show): a user's temporary
 *   uploads to that user (and administrators), a personal snippet's to its readers.
 * - `GET /<project full path>/uploads/<secret>/<name>` and `GET /-/project/<id>/uploads/<secret>/<name>`
 *   (Projects::UploadsController#show): a project's uploads to those who may read the project.
 *
 * Files are sent inline when a browser may show them (safe images, videos, audio, PDF), as attachments otherwise;
 * anything not readable goes on to the catch-all 404, as a file that does not exist.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { resolveViewer, type Credentials, type CredentialsAuthenticator } from '../../auth/credentials.js';
import { acceptedScopes, requireScope } from '../../auth/scopes.js';
import { createContext, type App, type Context } from '../../context.js';
import type { Lane } from '../../db/database.js';
import { isCoded } from '../../errors.js';
import { sendError } from '../../rest/adapter.js';
import { contentDisposition } from '../../uploads/avatars.js';
import { UploadedFile, type UploadOwner } from '../../uploads/storage.js';
import { markdownLink, markdownName, uploadUrl, webDisposition } from './files.js';

const ID = /^\d{1,10}$/;
const SECRET = /^[0-9a-f]{32}$/;
/** `/<project full path>/uploads/<secret>/<name>` and `/-/project/<id>/uploads/<secret>/<name>`, still encoded. */
const PROJECT_UPLOAD = /^\/(.+)\/uploads\/([0-9a-f]{32})\/([^/]+)$/;

const validId = (text: string) => ID.test(text) && Number(text) <= 2147483647;

/** The request's context on a lane, for the viewer its token names (a token without the lane's scopes is refused). */
async function contextOf(app: App, authenticate: CredentialsAuthenticator, res: Response, lane: Lane): Promise<Context> {
  const viewer = await resolveViewer(authenticate, res.locals.credentials as Credentials | null);
  requireScope(viewer, acceptedScopes(lane === 'write' ? 'mutation' : 'query', undefined));
  return createContext(app, viewer, { lane });
}

/** A refusal that hides what was asked for goes on to the 404 of unknown paths; any other answers as the API would. */
function fail(app: App, res: Response, next: NextFunction, error: unknown): void {
  if (isCoded(error) && error.extensions.code === 'NOT_FOUND') return next();
  sendError(res, app, error);
}

/** Sends a readable upload as UploadsActions#show does; null goes on to the 404. */
function sendUpload(res: Response, next: NextFunction, file: { path: string; filename: string } | null): void {
  if (!file) return next();
  const { contentType, disposition } = webDisposition(file.filename);
  res.set({
    'Content-Type': contentType,
    'Content-Disposition': contentDisposition(disposition, file.filename),
    'Cache-Control': 'max-age=0, private, must-revalidate',
    'X-Content-Type-Options': 'nosniff',
  });
  res.sendFile(file.path, { cacheControl: false, dotfiles: 'allow' }, (error) => error && next(error));
}

function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

export function markdownUploadsHttp(app: App, authenticators: Record<Lane, CredentialsAuthenticator>): Router {
  const router = Router();

  router.post('/uploads/:model', async (req: Request, res: Response, next: NextFunction) => {
    const model = String(req.params.model);
    const id = String((req.query as Record<string, unknown>).id ?? (req.body as Record<string, unknown> | undefined)?.id ?? '');
    if ((model !== 'user' && model !== 'personal_snippet') || !validId(id)) return next();
    try {
      const ctx = await contextOf(app, authenticators.write, res, 'write');
      // Devise's answer to a JSON request without a session (authenticate_user!).
      if (!ctx.viewer) return void res.status(401).json({ error: 'You need to sign in or sign up before continuing.' });
      const file = (req.body as Record<string, unknown> | undefined)?.file;
      // UploadsActions#create: no file, no upload.
      if (!(file instanceof UploadedFile) || file === UploadedFile.BLANK) return void res.status(422).json('Invalid file.');
      const row = model === 'user' ? await ctx.services.uploads.createForUser(Number(id), file) : await ctx.services.snippets.upload(Number(id), file);
      await ctx.settle();
      const filename = row.path.slice(row.path.indexOf('/') + 1);
      const url = uploadUrl(row);
      res.status(200).json({ link: { alt: markdownName(filename), url, markdown: markdownLink(filename, url) } });
    } catch (error) {
      fail(app, res, next, error);
    }
  });

  router.get('/uploads/-/system/:model/:id/:secret/:filename', async (req: Request, res: Response, next: NextFunction) => {
    const { model, id, secret, filename } = req.params as Record<string, string>;
    if ((model !== 'user' && model !== 'personal_snippet') || !validId(id) || !SECRET.test(secret)) return next();
    try {
      const ctx = await contextOf(app, authenticators.read, res, 'read');
      const owner: UploadOwner = { model, id: Number(id) };
      const file = model === 'user' ? await ctx.services.uploads.webFile(owner, secret, filename) : await ctx.services.snippets.uploadFile(owner.id, secret, filename);
      sendUpload(res, next, file);
    } catch (error) {
      fail(app, res, next, error);
    }
  });

  router.get(PROJECT_UPLOAD, async (req: Request, res: Response, next: NextFunction) => {
    const match = PROJECT_UPLOAD.exec(req.path);
    const where = match && decoded(match[1]!);
    const filename = match && decoded(match[3]!);
    if (!match || !where || !filename || where.startsWith('api/')) return next();
    const byId = /^-\/project\/(\d{1,10})$/.exec(where);
    if (byId ? !validId(byId[1]!) : where.startsWith('-/')) return next();
    try {
      const ctx = await contextOf(app, authenticators.read, res, 'read');
      const project = await ctx.services.projects.find(byId ? { id: Number(byId[1]) } : { path: where });
      sendUpload(res, next, project && (await ctx.services.uploads.webFile({ model: 'project', id: project.id }, match[2]!, filename)));
    } catch (error) {
      fail(app, res, next, error);
    }
  });

  return router;
}
