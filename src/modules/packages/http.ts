/**
 * Generic packages (GitLab's `lib/api/generic_packages.rb`): the routes whose bodies and answers are a file's bytes,
 * streamed to and from the content-addressed store, never held in memory. Not GraphQL: mounted before the body
 * parsers; every decision is the packages service's.
 *
 * Credentials as GitLab's package routes take them: `PRIVATE-TOKEN`, `JOB-TOKEN`, `Authorization: Bearer`, or HTTP
 * Basic with a token as the password (the login `gitlab-ci-token` with a CI job token).
 */
import express, { type Request, type Response } from 'express';
import { readBasicCredentials, resolveViewer, type Credentials, type CredentialsAuthenticator } from '../../auth/credentials.js';
import { acceptedScopes, requireScope } from '../../auth/scopes.js';
import { digestToken } from '../../auth/secrets.js';
import { createContext, type App, type Context } from '../../context.js';
import type { Lane } from '../../db/database.js';
import { recordNotFound, unauthenticated } from '../../errors.js';
import { parseRef } from '../../graphql/ids.js';
import { sendError } from '../../rest/adapter.js';
import { npmPackagesApi } from './npm/http.js';
import type { PackageDownload, PackageFileRow } from './service.js';

const CI_JOB_TOKEN_LOGIN = 'gitlab-ci-token';

/**
 * The request's credentials: the token headers the edge read, else HTTP Basic's password. A Bearer token that is a
 * CI job token (`glcbt-`, as npm's `_authToken=${CI_JOB_TOKEN}` sends it) is taken as one.
 */
function credentialsOf(req: Request, res: Response): Credentials | null {
  const read = res.locals.credentials as Credentials | null;
  const bearer = /^Bearer\s+(glcbt-\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  if (read && bearer && read.digest === digestToken(bearer)) return { digest: read.digest, kind: 'job' };
  if (read) return read;
  const basic = readBasicCredentials(req.get('authorization'));
  if (basic === 'malformed') throw unauthenticated();
  if (!basic || !basic.password) return null;
  return { digest: digestToken(basic.password), kind: basic.login === CI_JOB_TOKEN_LOGIN ? 'job' : 'token' };
}

/** A package route's handler: its errors answered as the REST API's, the request's route named for the logs. */
export const packageRoute = (app: App) => (template: string, handle: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
  res.locals.route = `/api/v4${template}`;
  try {
    await handle(req, res);
  } catch (error) {
    if (req.destroyed && !req.complete) return;
    if (!req.complete) res.set('Connection', 'close');
    sendError(res, app, error);
  }
};

/** The request's context on a lane: its viewer from the credentials, with the scopes a package route accepts. */
export const packageContext =
  (app: App, authenticators: Record<Lane, CredentialsAuthenticator>) =>
  async (req: Request, res: Response, lane: Lane): Promise<Context> => {
    const viewer = await resolveViewer(authenticators[lane], credentialsOf(req, res));
    requireScope(viewer, acceptedScopes(lane === 'write' ? 'mutation' : 'query', { jobToken: true }));
    return createContext(app, viewer, { lane });
  };

const param = (req: Request, name: string) => String(req.params[name]);

/** A path id: an id no record can have names nothing (404). */
function integer(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw recordNotFound();
  return Number(text);
}

/** GitLab's PackageFile entity as `select=package_file` answers it. */
function packageFileEntity(file: PackageFileRow) {
  return {
    id: file.id,
    package_id: file.packageId,
    created_at: file.createdAt.toISOString(),
    updated_at: file.updatedAt.toISOString(),
    size: Number(file.size),
    file_store: 1,
    file_md5: file.fileMd5,
    file_sha1: file.fileSha1,
    file_name: file.fileName,
    file: { url: `/${file.fileName}` },
    file_sha256: file.fileSha256,
  };
}

export type PackageHandler = (req: Request, res: Response) => Promise<void>;

/** Streams a package file as an attachment. */
export function sendPackageFile(req: Request, res: Response, download: PackageDownload): void {
  const name = download.file.fileName;
  res.status(200).set({
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(download.file.size),
    'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`,
  });
  if (req.method === 'HEAD') return void res.end();
  const stream = download.open();
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

export function genericPackagesApi(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();
  const path = '/projects/:id/packages/generic/:package_name/:package_version/:file_name';

  const route = packageRoute(app);
  const contextFor = packageContext(app, authenticators);

  router.put(
    path,
    route(path, async (req, res) => {
      const context = await contextFor(req, res, 'write');
      const { services } = context;
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      const declared = req.get('content-length');
      const query = req.query as Record<string, unknown>;
      const file = await services.packages.uploadGeneric(
        project,
        { name: param(req, 'package_name'), version: param(req, 'package_version'), fileName: param(req, 'file_name'), status: typeof query.status === 'string' ? query.status : null },
        req,
        declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null,
      );
      await context.settle();
      if (query.select === 'package_file') res.status(201).json(packageFileEntity(file));
      else res.status(201).json({ message: '201 Created' });
    }),
  );

  router.get(
    path,
    route(path, async (req, res) => {
      const { services } = await contextFor(req, res, 'read');
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      sendPackageFile(req, res, await services.packages.downloadGeneric(project, param(req, 'package_name'), param(req, 'package_version'), param(req, 'file_name')));
    }),
  );

  // GitLab 18.4's download of any package file by id (`lib/api/package_files.rb`).
  const fileDownload = '/projects/:id/packages/:package_id/package_files/:package_file_id/download';
  router.get(
    fileDownload,
    route(fileDownload, async (req, res) => {
      const { services } = await contextFor(req, res, 'read');
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      sendPackageFile(req, res, await services.packages.downloadFile(project, integer(param(req, 'package_id')), integer(param(req, 'package_file_id'))));
    }),
  );

  router.use(npmPackagesApi(app, authenticators));
  return router;
}
