/**
 * GitLab's runner protocol (lib/api/ci/runner.rb) and the artifact downloads (lib/api/ci/job_artifacts.rb): the
 * routes a runner calls with its own token or its job's, and those that carry bytes. Not GraphQL: their answers
 * are statuses and headers (`204` with `X-GitLab-Last-Update`, `Job-Status`, `Range`) and streams, as GitLab
 * Runner expects them; every decision is the runners service's.
 *
 * `POST /jobs/request` long-polls as GitLab Workhorse does: a runner that sends the `last_update` it was last
 * given, while no job became pending since, is held until one does (a `pending` job message on the bus) or
 * CI_LONG_POLLING_MS passes; the value it is given changes whenever a job becomes pending.
 */
import { randomBytes } from 'node:crypto';
import { pipeline, type Readable } from 'node:stream';
import busboy from 'busboy';
import express, { type Request, type Response } from 'express';
import { resolveViewer, type Credentials, type CredentialsAuthenticator } from '../auth/credentials.js';
import { acceptedScopes, requireScope } from '../auth/scopes.js';
import type { Viewer } from '../auth/viewer.js';
import { createContext, type App, type Context } from '../context.js';
import { digestToken } from '../auth/secrets.js';
import { forbidden, invalidParams, isCoded, malformedRequest, missing, payloadTooLarge } from '../errors.js';
import { parseRef } from '../graphql/ids.js';
import { JOB_UPDATED, type JobUpdatedMessage } from '../modules/pipelines/processing.js';
import type { ArtifactFile, Download } from '../modules/runners/artifacts.js';
import type { RunnerInfo } from '../modules/runners/service.js';
import { TRACE_UPDATE_INTERVAL_SECONDS } from '../modules/runners/trace.js';
import { sendError } from '../rest/adapter.js';
import { attachmentDisposition, contentTypeByExtension, detectContentType } from './content-type.js';
import type { Lane } from '../db/database.js';

/** The largest log patch accepted (GitLab Runner sends at most 1 MiB at a time); 413 beyond. */
export const MAX_TRACE_PATCH_BYTES = 1024 * 1024;

/**
 * The runner queue's state for long polling (GitLab keeps one per runner in Redis; one per replica is enough
 * here): it changes whenever a job becomes pending, which the bus tells every replica.
 */
class QueueTicker {
  private readonly boot = randomBytes(6).toString('hex');
  private tick = 0;
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(app: App) {
    this.unsubscribe = app.bus.subscribe(JOB_UPDATED, (message) => {
      if ((message as JobUpdatedMessage).status !== 'pending') return;
      this.tick += 1;
      for (const wake of [...this.waiters]) wake();
    });
  }

  value(): string {
    return `${this.boot}${this.tick.toString(16).padStart(8, '0')}`;
  }

  /** Resolves once the value is no longer `seen`, after `ms`, when the request goes away, or at close. */
  changed(seen: string, ms: number, req: Request): Promise<void> {
    if (this.value() !== seen || ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        req.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      req.on('close', done);
    });
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const wake of [...this.waiters]) wake();
  }
}

export interface RunnerApiOptions {
  app: App;
  /** Personal access tokens and CI job tokens, by lane (the downloads read, the protocol writes). */
  authenticators: Record<Lane, CredentialsAuthenticator>;
}

type Params = Record<string, unknown>;

const text = (res: Response, status: number, headers: Record<string, string> = {}) => res.status(status).set(headers).type('text/plain').send(String(status));

/** Query string and parsed body together (the body wins), as Grape reads parameters. */
function paramsOf(req: Request): Params {
  return { ...(req.query as Params), ...(req.body && typeof req.body === 'object' ? (req.body as Params) : {}) };
}

function required(params: Params, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || value === '') throw missing(name);
  return value;
}

/** A path or parameter that Grape declares `Integer`; `<name> is invalid` otherwise. */
function integer(value: unknown, name: string): number {
  const textValue = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^-?\d{1,10}$/.test(textValue) || Math.abs(Number(textValue)) > 2147483647) throw invalidParams([`${name} is invalid`]);
  return Number(textValue);
}

function optionalInteger(value: unknown, name: string): number | null {
  return value === undefined || value === null || value === '' ? null : integer(value, name);
}

/** The string fields of the runner's `info` GitLab keeps. */
function runnerInfo(value: unknown): RunnerInfo | null {
  if (typeof value !== 'object' || value === null) return null;
  const info = value as Record<string, unknown>;
  const pick = (key: string) => (typeof info[key] === 'string' ? (info[key] as string) : undefined);
  return { name: pick('name'), version: pick('version'), revision: pick('revision'), platform: pick('platform'), architecture: pick('architecture'), executor: pick('executor') };
}

/** The job token a request carries: `JOB-TOKEN`, else the `token` parameter. */
const jobToken = (req: Request, params: Params = req.query as Params): unknown => req.get('job-token') ?? params.token;

/** Reads a request body up to `limit` bytes; PAYLOAD_TOO_LARGE beyond. */
async function readBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? NaN);
  if (declared > limit) throw payloadTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw payloadTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Null for an unknown token; any other failure goes on. */
function unlessUnauthenticated(error: unknown): null {
  if (isCoded(error) && error.extensions.code === 'UNAUTHENTICATED') return null;
  throw error;
}

const CONTENT_TYPES: Record<string, string> = { zip: 'application/zip', gzip: 'application/gzip' };

function sendDownload(res: Response, download: Download): void {
  const name = download.fileName.replace(/["\\\r\n]/g, '_');
  res.status(200).set({
    'Content-Type': CONTENT_TYPES[download.format] ?? 'application/octet-stream',
    'Content-Length': String(download.size),
    'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(download.fileName)}`,
  });
  const stream = download.open();
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

/** Go's http.NotFound, which Workhorse answers for a path the archive does not hold. */
function entryNotFound(res: Response): void {
  res.status(404).set({ 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }).send('404 page not found\n');
}

/**
 * One file of an archive as Workhorse streams it: `Content-Length` from the archive, `attachment` with its base
 * name, and its type by extension, or (`detect`) by its first bytes.
 */
async function sendArtifactFile(res: Response, file: ArtifactFile | null, detect: boolean): Promise<void> {
  if (!file) return entryNotFound(res);
  const stream = file.open();
  const head = detect ? await peek(stream, 512).catch(() => null) : [];
  // A member that does not inflate at its start: nothing was sent yet.
  if (!head) return entryNotFound(res);
  // Set as they are: Express's `set` would add a charset to `application/json`.
  res.statusCode = 200;
  res.setHeader('Content-Type', detect ? detectContentType(Buffer.concat(head)) : contentTypeByExtension(file.name));
  res.setHeader('Content-Length', String(file.size));
  res.setHeader('Content-Disposition', attachmentDisposition(file.name));
  for (const chunk of head) res.write(chunk);
  // Once bytes are sent, a failure can only cut the answer short; a client that goes away stops the inflating.
  pipeline(stream, res, () => undefined);
}

/** The first chunks of a stream, at least `n` bytes of them unless it ends sooner; the stream paused after them. */
function peek(stream: Readable, n: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    const done = () => {
      stream.off('data', take).off('end', done).off('error', reject);
      stream.pause();
      resolve(chunks);
    };
    const take = (chunk: Buffer) => {
      chunks.push(chunk);
      seen += chunk.length;
      if (seen >= n) done();
    };
    stream.on('data', take).once('end', done).once('error', reject);
  });
}

/** An `*artifact_path` as Express hands it (its segments, decoded). */
const wildcard = (value: unknown): string => ([] as string[]).concat(value as string[]).join('/');

export function runnerApi({ app, authenticators }: RunnerApiOptions) {
  const queue = new QueueTicker(app);
  const protocol = () => createContext(app, null, { lane: 'write' });

  /** Runs a handler, answering errors as the REST adapter does; a failed upload also stops reading the request. */
  const route = (template: string, handle: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    res.locals.route = `/api/v4${template}`;
    try {
      await handle(req, res);
    } catch (error) {
      // A client that went away mid-body (a runner cut off while patching its log) has nobody to answer: no error of ours.
      if (req.destroyed && !req.complete) return app.logger.debug({ requestId: res.locals.requestId, route: res.locals.route }, 'client closed the request');
      if (!req.complete) res.set('Connection', 'close');
      sendError(res, app, error);
    }
  };

  /** A user's (or a job token's) viewer for a download: GitLab's job_token_allowed read routes. */
  async function downloader(res: Response): Promise<Context> {
    const viewer: Viewer | null = await resolveViewer(authenticators.read, res.locals.credentials as Credentials | null);
    requireScope(viewer, acceptedScopes('query', { jobToken: true }));
    return createContext(app, viewer, { lane: 'read' });
  }

  /** Routes whose bodies are bytes: before the body parsers. */
  const streams = express.Router();

  streams.patch(
    '/jobs/:id/trace',
    route('/jobs/:id/trace', async (req, res) => {
      const jobId = integer(req.params.id, 'id');
      const body = await readBody(req, MAX_TRACE_PATCH_BYTES);
      const context = protocol();
      const result = await context.services.runners.appendTrace(jobId, jobToken(req), req.get('content-range'), body);
      await context.settle();
      if (result.status === 416) {
        res.status(416).set('Range', `0-${result.size}`).json({ message: '416 Range Not Satisfiable' });
        return;
      }
      res
        .status(202)
        .set({ 'Job-Status': result.jobStatus, Range: `0-${result.size}`, 'X-GitLab-Trace-Update-Interval': String(TRACE_UPDATE_INTERVAL_SECONDS) })
        .end();
    }),
  );

  streams.post(
    '/jobs/:id/artifacts',
    route('/jobs/:id/artifacts', async (req, res) => {
      const jobId = integer(req.params.id, 'id');
      const declared = Number(req.get('content-length') ?? NaN);
      // The file is within the multipart body: a body much larger than the limit cannot hold an acceptable file.
      if (declared > app.config.ciMaxArtifactSize + 1024 * 1024) throw payloadTooLarge();
      const fields: Params = { ...(req.query as Params) };
      const context = protocol();
      let parser: busboy.Busboy;
      try {
        parser = busboy({ headers: req.headers, limits: { files: 1, fields: 20, fieldSize: 64 * 1024 } });
      } catch {
        throw missing('file');
      }
      const uploaded = await new Promise<boolean>((resolve, reject) => {
        let started = false;
        // A multipart body that does not parse fails the file's stream too: the answer is the client's 400 either way.
        let malformed = false;
        parser.on('field', (name, value) => {
          if (!(name in fields)) fields[name] = value;
        });
        parser.on('file', (name, file, info) => {
          // A body that ends early fails the file's stream as well as the parser: the parser's error answers it.
          file.on('error', () => undefined);
          if (name !== 'file' || started) return void file.resume();
          started = true;
          const upload = {
            type: typeof fields.artifact_type === 'string' && fields.artifact_type !== '' ? fields.artifact_type : 'archive',
            format: typeof fields.artifact_format === 'string' && fields.artifact_format !== '' ? fields.artifact_format : 'zip',
            expireIn: typeof fields.expire_in === 'string' && fields.expire_in !== '' ? fields.expire_in : null,
            fileName: info.filename || 'artifacts.zip',
          };
          context.services.runners.uploadArtifact(jobId, jobToken(req, fields), upload, file).then(
            () => resolve(true),
            (error: unknown) => {
              file.resume();
              // The parser says whether the body was at fault once it has seen the rest of it.
              setImmediate(() => reject(malformed && !isCoded(error) ? malformedRequest() : error));
            },
          );
        });
        parser.on('close', () => !started && resolve(false));
        parser.on('error', () => {
          malformed = true;
          reject(malformedRequest());
        });
        req.pipe(parser);
      }).finally(() => req.unpipe(parser));
      if (!uploaded) throw missing('file');
      await context.settle();
      text(res, 201);
    }),
  );

  /** Routes with small bodies: after the body parsers and the edge checks. */
  const json = express.Router();

  json.post(
    '/runners/verify',
    route('/runners/verify', async (req, res) => {
      const params = paramsOf(req);
      const token = required(params, 'token');
      const runner = await protocol().services.runners.verify(token, runnerInfo(params.info), req.ip ?? null);
      res.status(200).json({ id: runner.id, token, token_expires_at: null });
    }),
  );

  json.delete(
    '/runners',
    route('/runners', async (req, res) => {
      await protocol().services.runners.unregister(required(paramsOf(req), 'token'));
      res.status(204).end();
    }),
  );

  json.post(
    '/runners/reset_authentication_token',
    route('/runners/reset_authentication_token', async (req, res) => {
      const { token } = await protocol().services.runners.resetToken(required(paramsOf(req), 'token'));
      res.status(201).json({ token, token_expires_at: null });
    }),
  );

  json.post(
    '/jobs/request',
    route('/jobs/request', async (req, res) => {
      const params = paramsOf(req);
      const token = required(params, 'token');
      // On the read lane: who asks and what it is handed are reads (its contact is written at most once a minute);
      // only the claim and the pipeline's processing write, on the write lane whatever the request's.
      const context = createContext(app, null, { lane: 'read' });
      const runners = context.services.runners;
      const runner = await runners.heartbeat(await runners.authenticate(token), runnerInfo(params.info), req.ip ?? null);
      // Workhorse holds any runner that has the latest state, a paused one too: it asks no sooner than a job comes.
      if (typeof params.last_update === 'string' && params.last_update !== '') {
        await queue.changed(params.last_update, app.config.ciLongPollingMs, req);
        if (queue.value() === params.last_update) {
          res.status(204).set('X-GitLab-Last-Update', params.last_update).end();
          return;
        }
      }
      // Read before looking: a job that becomes pending meanwhile changes it, so the runner's next request looks again.
      const value = queue.value();
      const job = await runners.requestJob(runner);
      await context.settle();
      if (!job) {
        res.status(204).set('X-GitLab-Last-Update', value).end();
        return;
      }
      res.status(201).json(job);
    }),
  );

  json.put(
    '/jobs/:id',
    route('/jobs/:id', async (req, res) => {
      const jobId = integer(req.params.id, 'id');
      const params = paramsOf(req);
      const token = required(params, 'token');
      const output = typeof params.output === 'object' && params.output !== null ? (params.output as Params) : {};
      const checksum = [output.checksum, params.checksum].find((c): c is string => typeof c === 'string') ?? null;
      const context = protocol();
      const result = await context.services.runners.updateJob(jobId, token, {
        state: typeof params.state === 'string' ? params.state : null,
        failureReason: typeof params.failure_reason === 'string' ? params.failure_reason : null,
        exitCode: optionalInteger(params.exit_code, 'exit_code'),
        checksum,
      });
      await context.settle();
      text(res, result.status, { 'Job-Status': result.jobStatus });
    }),
  );

  json.post(
    '/jobs/:id/artifacts/authorize',
    route('/jobs/:id/artifacts/authorize', async (req, res) => {
      const jobId = integer(req.params.id, 'id');
      const params = paramsOf(req);
      await protocol().services.runners.runningJob(jobId, jobToken(req, params));
      const filesize = optionalInteger(params.filesize, 'filesize');
      const maximum = app.config.ciMaxArtifactSize;
      if (filesize !== null && filesize > maximum) {
        res.status(413).json({ message: 'file size has reached maximum size limit' });
        return;
      }
      res.status(200).type('application/vnd.gitlab-workhorse+json').send(JSON.stringify({ MaximumSize: maximum }));
    }),
  );

  json.get(
    '/jobs/:id/artifacts',
    route('/jobs/:id/artifacts', async (req, res) => {
      const jobId = integer(req.params.id, 'id');
      const token = jobToken(req);
      // A running job's token: the runner downloads a dependency as that job's user (GitLab's authenticate_job_via_dependent_job!).
      const viewer = typeof token === 'string' && token !== '' ? await resolveViewer(authenticators.read, { digest: digestToken(token), kind: 'job' }).catch(unlessUnauthenticated) : null;
      // Not a running job's token: GitLab's authenticate_job! answers 403 to a runner.
      if (!viewer) throw forbidden();
      sendDownload(res, await createContext(app, viewer, { lane: 'read' }).services.runners.dependencyArchive(jobId));
    }),
  );

  json.get(
    '/projects/:id/jobs/:job_id/artifacts',
    route('/projects/:id/jobs/:job_id/artifacts', async (req, res) => {
      const jobId = integer(req.params.job_id, 'job_id');
      const { services } = await downloader(res);
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      sendDownload(res, await services.runners.archive(project, jobId));
    }),
  );

  json.get(
    '/projects/:id/jobs/artifacts/*ref/raw/*artifact_path',
    route('/projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path', async (req, res) => {
      const ref = wildcard(req.params.ref);
      const job = required(req.query as Params, 'job');
      const { services } = await downloader(res);
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      await sendArtifactFile(res, await services.runners.latestArtifactFile(project, ref, job, wildcard(req.params.artifact_path)), true);
    }),
  );

  json.get(
    '/projects/:id/jobs/:job_id/artifacts/*artifact_path',
    route('/projects/:id/jobs/:job_id/artifacts/*artifact_path', async (req, res) => {
      const jobId = integer(req.params.job_id, 'job_id');
      const { services } = await downloader(res);
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      await sendArtifactFile(res, await services.runners.artifactFile(project, jobId, wildcard(req.params.artifact_path)), false);
    }),
  );

  json.get(
    '/projects/:id/jobs/artifacts/*ref/download',
    route('/projects/:id/jobs/artifacts/:ref_name/download', async (req, res) => {
      const ref = wildcard(req.params.ref);
      const job = required(req.query as Params, 'job');
      const { services } = await downloader(res);
      const project = await services.projects.get(parseRef(String(req.params.id), 'Project', 'id'));
      sendDownload(res, await services.runners.latestArchive(project, ref, job));
    }),
  );

  return {
    streams,
    json,
    /** Ends held requests at once (answered 204), so a stopping server does not wait out their long polls. */
    close: () => queue.close(),
  };
}
