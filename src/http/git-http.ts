/**
 * Git over HTTP (git's smart-HTTP protocol, v0/v1 and v2) at `<namespace>/<project>[.git]/info/refs`,
 * `…/git-upload-pack` and `…/git-receive-pack`, as GitLab Workhorse serves it: `git upload-pack` or
 * `git receive-pack --stateless-rpc` streams straight between the client and the repository, so no pack is ever
 * held in memory; a gzip request body is decompressed as it streams. Who may do what is decided by the
 * repositories service (Basic authentication as GitLab's git clients use it, `download_code`, `push_code`, and per
 * ref `authorizeRefUpdate` from the pre-receive hook); every push ends in one `refsUpdated` with the refs git updated.
 */
import type { GitProcess } from '../git/spawner.js';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { authenticateGitClient, readBasicCredentials, type GitClientAuthenticators } from '../auth/credentials.js';
import { GIT_SCOPES } from '../auth/scopes.js';
import type { Viewer } from '../auth/viewer.js';
import { createContext, type App } from '../context.js';
import { isCoded } from '../errors.js';
import type { PushHooks } from '../git/hooks.js';
import { parsePushOptions } from '../git/push-options.js';
import type { RefUpdate } from '../git/repository.js';
import { spawnGit } from '../git/run.js';
import type { ProjectRow } from '../modules/projects/service.js';
import type { SnippetRow } from '../modules/snippets/service.js';

type Service = 'upload-pack' | 'receive-pack';

/** `<full path>[.git]/<action>`; the path still percent-encoded, as express keeps `req.path`. */
const GIT_ROUTE = /^\/(.+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/** A namespace or project path segment as GitLab allows it. */
const PATH_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** What git clients put in `Git-Protocol` (`version=2`, `version=2:object-format=sha1`). */
const GIT_PROTOCOL = /^[A-Za-z0-9=:._-]{1,256}$/;

/** GitLab's texts (Repositories::GitHttpController, Gitlab::GitAccess). */
const TEXTS = {
  accessDenied:
    "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped.",
  projectNotFound: "The project you were looking for could not be found or you don't have permission to view it.",
  download: 'You are not allowed to download code from this project.',
  authDownload: 'You are not allowed to download code.',
  authUpload: 'You are not allowed to upload code.',
  command: "The command you're trying to execute is not allowed.",
  internal: 'Internal API error',
} as const;

/** git http-backend's `hdr_nocache`. */
const NO_CACHE = { Expires: 'Fri, 01 Jan 1980 00:00:00 GMT', Pragma: 'no-cache', 'Cache-Control': 'no-cache, max-age=0, must-revalidate' };

interface GitRequest {
  fullPath: string;
  service: Service;
  advertise: boolean;
}

function text(res: Response, status: number, body: string, headers: Record<string, string> = {}): void {
  res.status(status).set(headers).type('text/plain').send(`${body}\n`);
}

/** 401 with GitLab's Basic challenge, so git asks for credentials. */
function challenge(res: Response): void {
  text(res, 401, TEXTS.accessDenied, { 'WWW-Authenticate': 'Basic realm="GitLab"' });
}

/** pkt-line framing: four hex digits of length (itself included), then the data. */
function pktLine(data: string): string {
  return (data.length + 4).toString(16).padStart(4, '0') + data;
}

/** What the request asks for, or a status to answer when it asks for nothing git serves. */
function parse(req: Request): GitRequest | 'next' | { status: number; body: string } {
  const match = GIT_ROUTE.exec(req.path);
  if (!match || req.path.startsWith('/api/')) return 'next';
  const [, rawPath, action] = match;
  let fullPath: string;
  try {
    fullPath = decodeURIComponent(rawPath);
  } catch {
    return { status: 400, body: 'Bad Request' };
  }
  const segments = fullPath.split('/');
  if (segments.length < 2 || !segments.every((s) => PATH_SEGMENT.test(s) && s.length <= 255)) return { status: 404, body: 'Not Found' };
  if (action === 'info/refs') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return 'next';
    const service = req.query.service;
    if (service !== 'git-upload-pack' && service !== 'git-receive-pack') return { status: 403, body: TEXTS.command };
    return { fullPath, service: service.slice(4) as Service, advertise: true };
  }
  if (req.method !== 'POST') return 'next';
  return { fullPath, service: action.slice(4) as Service, advertise: false };
}

/** The answer for a refusal from the services, in git's plain text. */
function sendRefusal(res: Response, error: GraphQLError, service: Service): void {
  const ext = error.extensions as { code: string; reason?: string };
  if (ext.code === 'UNAUTHENTICATED') return challenge(res);
  if (ext.code === 'NOT_FOUND') return text(res, 404, TEXTS.projectNotFound);
  if (ext.code === 'FORBIDDEN') return text(res, 403, ext.reason ?? (service === 'upload-pack' ? TEXTS.download : TEXTS.authUpload));
  text(res, 500, TEXTS.internal);
}

export interface GitHttpOptions {
  app: App;
  authenticators: GitClientAuthenticators;
  hooks: PushHooks;
}

export function gitHttp({ app, authenticators, hooks }: GitHttpOptions) {
  const logFailure = (res: Response, error: unknown, what: string) =>
    app.logger.error({ err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error), requestId: res.locals.requestId }, what);
  const fail = (res: Response, error: unknown, service: Service) => {
    if (isCoded(error) && !res.headersSent) return sendRefusal(res, error, service);
    logFailure(res, error, 'git over HTTP failed');
    // Once git's answer has begun, only cutting the connection tells the client it is incomplete.
    if (!res.headersSent) text(res, 500, TEXTS.internal);
    else res.destroy();
  };

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const request = parse(req);
    if (request === 'next') return next();
    if ('status' in request) return text(res, request.status, request.body);
    const { service } = request;
    res.locals.route = `/:project.git/${request.advertise ? 'info/refs' : `git-${service}`}`;
    try {
      const credentials = readBasicCredentials(req.get('authorization'));
      if (credentials === 'malformed') return challenge(res);
      const viewer = credentials ? await authenticateGitClient(authenticators, credentials) : null;
      const scopes: readonly string[] = service === 'upload-pack' ? GIT_SCOPES.download : GIT_SCOPES.push;
      if (viewer && !viewer.scopes.some((s) => scopes.includes(s))) {
        return text(res, 403, service === 'upload-pack' ? TEXTS.authDownload : TEXTS.authUpload);
      }
      const context = createContext(app, viewer, { lane: service === 'upload-pack' ? 'read' : 'write' });
      // A snippet's repository: `snippets/<id>` or `<project>/snippets/<id>` (the snippets module decides who may).
      const snippet = await context.services.snippets.gitRepository(request.fullPath, service === 'receive-pack').catch((error: unknown) => {
        if (!viewer && isCoded(error) && (error.extensions as { code: string }).code === 'NOT_FOUND') return 'challenge' as const;
        throw error;
      });
      if (snippet === 'challenge') return challenge(res);
      if (snippet) return await serveSnippet(req, res, request, snippet, viewer);
      const project = await context.services.projects.find({ path: request.fullPath }, { followRedirects: true });
      if (!project) return viewer ? text(res, 404, TEXTS.projectNotFound) : challenge(res);
      const repositories = context.services.repositories;
      if (service === 'upload-pack') await repositories.authorizeRead(project);
      else await repositories.authorizeWrite(project);
      const gitDir = (await repositories.open(project)).path;
      if (request.advertise) return advertise(req, res, gitDir, service);
      const contentType = `application/x-git-${service}-request`;
      if (req.get('content-type') !== contentType) return text(res, 415, 'Unsupported Media Type');
      const encoding = (req.get('content-encoding') ?? 'identity').toLowerCase();
      if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') return text(res, 415, 'Unsupported Media Type');
      if (service === 'upload-pack') return await rpc(req, res, gitDir, service, encoding !== 'identity', null);
      await push(req, res, gitDir, project, viewer as Viewer, encoding !== 'identity');
    } catch (error) {
      fail(res, error, service);
    }
  };

  /** Git over HTTP of a snippet's repository: as a project's, with the snippet's own checks of a push's refs. */
  async function serveSnippet(req: Request, res: Response, request: GitRequest, snippet: { row: SnippetRow; gitDir: string }, viewer: Viewer | null): Promise<void> {
    const { service } = request;
    if (request.advertise) return advertise(req, res, snippet.gitDir, service);
    const contentType = `application/x-git-${service}-request`;
    if (req.get('content-type') !== contentType) return text(res, 415, 'Unsupported Media Type');
    const encoding = (req.get('content-encoding') ?? 'identity').toLowerCase();
    if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') return text(res, 415, 'Unsupported Media Type');
    const gzip = encoding !== 'identity';
    if (service === 'upload-pack') return rpc(req, res, snippet.gitDir, service, gzip, null);
    let updated = false;
    const registration = hooks.register(snippet.gitDir, {
      preReceive: async (updates, env) => {
        try {
          return await createContext(app, viewer, { lane: 'write' }).services.snippets.checkPush(snippet.row, updates, env);
        } catch (error) {
          logFailure(res, error, 'pre-receive check failed');
          return TEXTS.internal;
        }
      },
      postReceive: (updates) => void (updated ||= updates.length > 0),
    });
    const done = async () => {
      if (updated) await createContext(app, viewer, { lane: 'write' }).services.snippets.pushed(snippet.row);
    };
    try {
      await rpc(req, res, snippet.gitDir, 'receive-pack', gzip, { ...registration, done });
    } finally {
      registration.release();
    }
  }

  /** The ref advertisement, with git http-backend's `# service=` preamble unless the client speaks protocol v2. */
  function advertise(req: Request, res: Response, gitDir: string, service: Service): Promise<void> {
    const protocol = gitProtocol(req);
    const child = spawnGit(gitDir, [...serviceConfig(service), service, '--stateless-rpc', '--advertise-refs', '.'], protocol ? { GIT_PROTOCOL: protocol } : {});
    const preamble = /(^|:)version=2(:|$)/.test(protocol ?? '') ? '' : `${pktLine(`# service=git-${service}\n`)}0000`;
    return stream(res, child, `application/x-git-${service}-advertisement`, preamble, null, false);
  }

  /** One stateless RPC: the request body into git, git's output out; `done` runs after git exits, before the response ends. */
  function rpc(req: Request, res: Response, gitDir: string, service: Service, gzip: boolean, extra: { args: string[]; env: Record<string, string>; done: () => Promise<void> } | null): Promise<void> {
    const protocol = gitProtocol(req);
    const env = { ...(protocol ? { GIT_PROTOCOL: protocol } : {}), ...extra?.env };
    const child = spawnGit(gitDir, [...(extra?.args ?? []), ...serviceConfig(service), service, '--stateless-rpc', '.'], env);
    const onInputError = () => child.kill('SIGKILL');
    if (gzip) pipeline(req, createGunzip(), child.stdin!, (error) => error && onInputError());
    else pipeline(req, child.stdin!, (error) => error && onInputError());
    return stream(res, child, `application/x-git-${service}-result`, '', extra?.done ?? null, true);
  }

  /** A push: pre-receive checks each ref update, post-receive collects those git made, then one `refsUpdated`. */
  async function push(req: Request, res: Response, gitDir: string, project: ProjectRow, viewer: Viewer, gzip: boolean): Promise<void> {
    const updated: RefUpdate[] = [];
    const pushOptions: string[] = [];
    const registration = hooks.register(gitDir, {
      preReceive: async (updates, env) => {
        try {
          // A fresh context: the project as it is now (an earlier push may have changed its default branch).
          const { services } = createContext(app, viewer, { lane: 'write' });
          const current = await services.projects.get({ id: project.id });
          const repositories = services.repositories;
          for (const update of updates) await repositories.authorizeRefUpdate(current, update, {}, env);
          // git locks the refs after this hook: a lock a killed git left behind would refuse the push.
          await (await repositories.open(current)).clearStaleLocks(updates.map((u) => u.ref));
          return null;
        } catch (error) {
          if (isCoded(error)) return (error.extensions as { reason?: string }).reason ?? error.message;
          logFailure(res, error, 'pre-receive check failed');
          return TEXTS.internal;
        }
      },
      postReceive: (updates, options) => {
        updated.push(...updates);
        pushOptions.push(...options);
      },
    });
    const done = async () => {
      if (updated.length === 0) return;
      const context = createContext(app, viewer, { lane: 'write' });
      const current = await context.services.projects.get({ id: project.id });
      await context.services.repositories.refsUpdated(current, viewer.id, updated, parsePushOptions(pushOptions));
      await context.settle();
    };
    try {
      await rpc(req, res, gitDir, 'receive-pack', gzip, { ...registration, done });
    } finally {
      registration.release();
    }
  }

  /**
   * Streams git's output as the response (headers once git has said something), kills git when the client goes
   * away, and resolves when both are done. A git that fails before saying anything read a request it could not
   * parse when `clientInput` (a 400, as git http-backend's clients see it), else failed on its own (a 500).
   */
  function stream(res: Response, child: GitProcess, contentType: string, preamble: string, done: (() => Promise<void>) | null, clientInput: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      let started = false;
      let exited = false;
      const stderr: Buffer[] = [];
      const start = () => {
        if (started) return;
        started = true;
        res.status(200).set({ ...NO_CACHE, 'Content-Type': contentType });
        if (preamble) res.write(preamble);
      };
      res.on('close', () => {
        if (!exited) child.kill('SIGKILL');
      });
      child.stderr!.on('data', (chunk: Buffer) => stderr.length < 16 && stderr.push(chunk));
      child.stdout!.on('data', (chunk: Buffer) => {
        start();
        if (!res.write(chunk)) {
          child.stdout!.pause();
          res.once('drain', () => child.stdout!.resume());
        }
      });
      child.stdin!.on('error', () => {});
      child.on('error', (error) => {
        exited = true;
        fail(res, error, 'upload-pack');
        resolve();
      });
      child.on('close', (code) => {
        exited = true;
        void (async () => {
          if (code !== 0 && !started) {
            const said = Buffer.concat(stderr).toString('utf8').trim();
            if (res.destroyed || res.headersSent) return;
            if (clientInput) {
              app.logger.info({ requestId: res.locals.requestId, git: said }, 'git refused the request body');
              return text(res, 400, 'Bad Request');
            }
            return fail(res, new Error(`git exited with ${code}: ${said}`), 'upload-pack');
          }
          try {
            if (done) await done();
          } catch (error) {
            logFailure(res, error, 'recording a push failed');
          }
          start();
          res.end();
        })().finally(resolve);
      });
    });
  }
}

/** The client's `Git-Protocol` header when it is what git sends; anything else is ignored, as git ignores unknown keys. */
function gitProtocol(req: Request): string | null {
  const value = req.get('git-protocol');
  return value && GIT_PROTOCOL.test(value) ? value : null;
}

/**
 * What GitLab (Gitaly) configures for each service: partial clones for fetches, push options for pushes, and its
 * internal refs: `refs/keep-around/` hidden from both (Gitaly's hidden references: no client sees or writes the refs
 * that keep merge request versions' commits alive), `refs/merge-requests/` fetchable but not pushed to (read-only).
 */
function serviceConfig(service: Service): string[] {
  const hidden = ['-c', 'transfer.hideRefs=refs/keep-around/'];
  return service === 'upload-pack'
    ? ['-c', 'uploadpack.allowFilter=true', '-c', 'uploadpack.allowAnySHA1InWant=true', ...hidden]
    : ['-c', 'receive.advertisePushOptions=true', ...hidden, '-c', 'receive.hideRefs=refs/merge-requests/'];
}
