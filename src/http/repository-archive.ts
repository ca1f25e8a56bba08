/**
 * The repository API's byte streams (GitLab's `lib/api/repositories.rb` archive and `lib/api/project_snapshots.rb`,
 * served by GitLab Workhorse): `GET /projects/:id/repository/archive[.format]` streams `git archive` and
 * `GET /projects/:id/snapshot` a tar of the bare repository, both straight to the client. Not GraphQL: their answers
 * are bytes with Workhorse's headers. Who may have them is the repositories service's decision (src/modules/repositories/archive.ts).
 */
import { Readable, pipeline } from 'node:stream';
import express, { type Request, type Response } from 'express';
import { resolveViewer, type Credentials, type CredentialsAuthenticator } from '../auth/credentials.js';
import { acceptedScopes, requireScope } from '../auth/scopes.js';
import { createContext, type App, type Context } from '../context.js';
import { notFound } from '../errors.js';
import { parseRef } from '../graphql/ids.js';
import { spawnGit } from '../git/run.js';
import type { Lane } from '../db/database.js';
import { ARCHIVE_SUFFIXES, type ArchivePlan } from '../modules/repositories/archive.js';
import { sendError } from '../rest/adapter.js';
import { tarStream } from './tar.js';

type Params = Record<string, unknown>;

const string = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** GitLab's CommaSeparatedToArray: `a,b` and `[a, b]` alike. */
function commaList(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter(Boolean);
}

/** Grape's Boolean coercion of a query parameter. */
function boolean(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 't' || value === 'yes';
}

/** A snapshot holds what Gitaly's GetSnapshot does: HEAD, refs, packed refs, shallow, loose objects and packs. */
function snapshotEntry(path: string, directory: boolean): boolean {
  if (directory) return path === 'refs' || path.startsWith('refs/') || path === 'objects' || /^objects\/([0-9a-f]{2}|pack)$/.test(path);
  if (path.endsWith('.lock')) return false;
  return ['HEAD', 'packed-refs', 'shallow'].includes(path) || path.startsWith('refs/') || /^objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(path) || /^objects\/pack\/pack-[0-9a-f]+\.(pack|idx)$/.test(path);
}

/** A byte stream of git's output: what runs, the headers its answer carries, and what a git failing before any output answers. */
export interface GitStream {
  gitDir: string;
  args: readonly string[];
  headers: Record<string, string>;
  failure: () => Error;
}

/**
 * Streams git's output as it comes (never held whole: a chunk is written before the next is read), the answer's
 * status and headers sent with its first chunk, or at its end when it said nothing; a git that fails before any
 * output answers `failure`, one that fails later cuts the answer short.
 */
export function streamGit(app: App, req: Request, res: Response, stream: GitStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const child = spawnGit(stream.gitDir, stream.args);
    let started = false;
    let exited = false;
    const stderr: Buffer[] = [];
    const start = () => {
      if (started) return;
      started = true;
      res.status(200).set(stream.headers);
    };
    res.on('close', () => {
      if (!exited) child.kill('SIGKILL');
    });
    child.stdin.on('error', () => {});
    child.stdin.end();
    child.stderr.on('data', (chunk: Buffer) => stderr.length < 16 && stderr.push(chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      start();
      if (req.method === 'HEAD') return;
      if (!res.write(chunk)) {
        child.stdout.pause();
        res.once('drain', () => child.stdout.resume());
      }
    });
    child.on('error', (error) => {
      exited = true;
      if (!res.headersSent) sendError(res, app, error);
      else res.destroy();
      resolve();
    });
    child.on('close', (code) => {
      exited = true;
      if (code !== 0) {
        if (!started && !res.headersSent) {
          app.logger.info({ requestId: res.locals.requestId, args: stream.args.slice(0, 1), git: Buffer.concat(stderr).toString('utf8').trim() }, 'git stream failed');
          sendError(res, app, stream.failure());
        } else res.destroy();
      } else {
        start();
        res.end();
      }
      resolve();
    });
  });
}

/** Streams `git archive`; a git that fails first is GitLab's `404 File Not Found`. */
export function streamArchive(app: App, req: Request, res: Response, plan: ArchivePlan): Promise<void> {
  return streamGit(app, req, res, {
    gitDir: plan.gitDir,
    args: plan.args,
    headers: {
      'Content-Disposition': `attachment; filename="${plan.fileName.replace(/["\\\r\n]/g, '_')}"`,
      'Content-Type': plan.contentType,
      'Content-Transfer-Encoding': 'binary',
    },
    failure: () => notFound('File'),
  });
}

/** An API byte stream's handler: its route named for the logs, what fails before the answer started answered as the API does. */
export function streamRoute(app: App, template: string, handle: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response) => {
    res.locals.route = `/api/v4${template}`;
    try {
      await handle(req, res);
    } catch (error) {
      if (!res.headersSent) sendError(res, app, error);
      else res.destroy();
    }
  };
}

/** The request's services as a reader: the credentials' viewer with a read scope, on the read lane. */
export async function readerContext(authenticators: Record<Lane, CredentialsAuthenticator>, app: App, res: Response): Promise<Context> {
  const viewer = await resolveViewer(authenticators.read, res.locals.credentials as Credentials | null);
  requireScope(viewer, acceptedScopes('query', undefined));
  return createContext(app, viewer, { lane: 'read' });
}

export function repositoryArchives(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();

  const route = (template: string, handle: (req: Request, res: Response) => Promise<void>) => streamRoute(app, template, handle);

  const reader = (res: Response) => readerContext(authenticators, app, res);

  // `archive`, `archive.zip`, `archive.tar.gz`, …: one segment, its suffix GitLab's format.
  router.get(
    '/projects/:id/repository/:archive',
    async (req, res, next) => {
      const segment = String(req.params.archive);
      if (segment !== 'archive' && !segment.startsWith('archive.')) return next();
      const suffix = segment === 'archive' ? null : segment.slice('archive.'.length).toLowerCase();
      // Any other suffix matches no route of GitLab's: its catch-all 404.
      if (suffix !== null && !(ARCHIVE_SUFFIXES as readonly string[]).includes(suffix)) return next();
      await route('/projects/:id/repository/archive', async () => {
        const query = req.query as Params;
        const { services } = await reader(res);
        const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
        const plan = await services.repositories.archives.archive(project, {
          sha: string(query.sha),
          format: suffix ?? string(query.format),
          path: string(query.path),
          excludePaths: commaList(query.exclude_paths),
        });
        await streamArchive(app, req, res, plan);
      })(req, res);
    },
  );

  router.get(
    '/projects/:id/snapshot',
    route('/projects/:id/snapshot', async (req, res) => {
      const { services } = await reader(res);
      const gitDir = await services.repositories.archives.snapshot(() => services.projects.get(parseRef(String(req.params.id), 'Project', 'id')), boolean((req.query as Params).wiki));
      res.status(200).set({ 'Content-Disposition': 'attachment; filename="snapshot.tar"', 'Content-Type': 'application/x-tar', 'Content-Transfer-Encoding': 'binary', 'Cache-Control': 'private' });
      if (req.method === 'HEAD') return void res.end();
      await new Promise<void>((resolve) => {
        pipeline(Readable.from(tarStream(gitDir, snapshotEntry)), res, (error) => {
          if (error) app.logger.info({ requestId: res.locals.requestId, err: error.message }, 'snapshot stream ended early');
          resolve();
        });
      });
    }),
  );

  return router;
}

/**
 * GitLab's web archive route (RepositoriesController#archive, `/<project>/-/archive/<ref>/<name>.<format>`), the URL of
 * a release's sources: the same archive as the API's, the ref being every segment but the last, the format the last
 * segment's suffix. Like GitLab's (`authenticate_sessionless_user!(:archive)`), it takes a token as the API does.
 */
export function webArchives(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();
  const suffixes = [...ARCHIVE_SUFFIXES].sort((a, b) => b.length - a.length);
  router.get(/^\/(.+?)\/-\/archive\/(.+)\/([^/]+)$/, async (req, res, next) => {
    const params = req.params as unknown as Record<string, string>;
    const file = params[2]!;
    const format = suffixes.find((s) => file.toLowerCase().endsWith(`.${s}`));
    if (!format) return next();
    res.locals.route = '/:namespace/:project/-/archive/*id';
    try {
      const { services } = await readerContext(authenticators, app, res);
      const project = await services.projects.get({ path: params[0]! });
      const plan = await services.repositories.archives.archive(project, { sha: params[1]!, format });
      await streamArchive(app, req, res, plan);
    } catch (error) {
      if (!res.headersSent) sendError(res, app, error);
      else res.destroy();
    }
  });
  return router;
}
