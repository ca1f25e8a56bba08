/**
 * Composition only: the database, the event bus and job queue, one schema and one context factory; express
 * serves `/api/v4` (the REST adapter) and `/api/graphql` (Apollo over HTTP, graphql-ws on the same path), and
 * GraphiQL at `/-/graphql-explorer`.
 * No globals: everything hangs off `startServer`.
 */
import { genericPackagesApi } from './modules/packages/http.js';
import { pypiPackagesApi } from './modules/packages/pypi/http.js';
import { PackageStorage } from './modules/packages/storage.js';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { Config } from './config.js';
import { createApp, createContext, type App, type Context } from './context.js';
import { databaseBounds, openMigratedDatabase, type Database } from './db/database.js';
import { EventBus } from './events/bus.js';
import { JOBS_ENQUEUED, JobQueue, type JobQueueOptions } from './jobs/queue.js';
import { pgliteMaintenanceJobs } from './db/maintenance.js';
import { RepositoryStorages } from './git/storages.js';
import { ArtifactStorage } from './ci/artifact-storage.js';
import { UploadStorage } from './uploads/storage.js';
import { PushHooks } from './git/hooks.js';
import { gitHttp } from './http/git-http.js';
import { runnerApi } from './http/runner-api.js';
import { mergeRequestRawDiffs } from './http/merge-request-raw-diffs.js';
import { repositoryArchives, webArchives } from './http/repository-archive.js';
import { releaseRedirects } from './modules/releases/http.js';
import { createLogger, type Logger } from './logger.js';
import { buildSchema } from './graphql/schema.js';
import { contextError, formatError, unavailableStatus } from './graphql/errors.js';
import { boundsPlugin, refuseLargeQuery } from './graphql/bounds.js';
import { graphqlLanes } from './graphql/lane.js';
import { NoNullBytes, noSubscriptionsOverHttp } from './graphql/input.js';
import { startSubscriptionServer } from './graphql/subscriptions.js';
import { settleEvents } from './graphql/settle.js';
import { restRouter, sendError } from './rest/adapter.js';
import { restRoutes } from './rest/routes.js';
import { byKind, orElse, resolveViewer, type Credentials } from './auth/credentials.js';
import type { Viewer } from './auth/viewer.js';
import type { JobEnvironment } from './modules/module.js';
import { jobTokenAuthenticator } from './auth/job-tokens.js';
import { ActivityRecorder } from './auth/activity.js';
import { CredentialCache } from './auth/credential-cache.js';
import { modules } from './modules/index.js';
import { tokenAuthenticator } from './modules/tokens/service.js';
import { oauthAuthenticator } from './modules/applications/authenticator.js';
import { discoveryHttp, oauthHttp } from './modules/applications/http.js';
import { errorTrackingCollector } from './modules/error_tracking/http.js';
import { alertMetricImageFiles, alertNotifyHttp } from './modules/alert_management/http.js';
import { markdownUploadsHttp } from './modules/uploads/http.js';
import { tokenReuseDetection } from './modules/project_access_tokens/reuse.js';
import { ensureRootUser, recordUserActivity } from './modules/users/service.js';
import { keepInitialRootToken, watchInitialRootToken } from './modules/users/initial-root-token.js';
import { bodyErrors, bodyLimit, jsonWithoutCharset, requestBasics } from './http/middleware.js';
import { answerClientErrors, serverTimeouts } from './http/client-errors.js';
import { trackConnections } from './http/drain.js';
import { multipartBodies } from './http/multipart.js';
import { formBodies, parseParams } from './http/params.js';
import { avatarUploads } from './http/uploads.js';
import { graphqlExplorer } from './http/explorer.js';
import { idVariablesUnified } from './graphql/global-ids.js';
import { bodyEncodingErrors, rejectMalformedInput, verifyBody } from './http/input.js';

export interface RunningServer {
  url: string;
  port: number;
  app: App;
  database: Database;
  /** The root token when this start generated one (printed once). */
  generatedRootToken: string | null;
  /** Where the root administrator's first token is kept until used or a day old (src/modules/users/initial-root-token.ts). */
  initialRootTokenFile: string | null;
  close(): Promise<void>;
}

export interface ServerOptions {
  logger?: Logger;
  /** Use this database instead of opening one from the config (tests). */
  database?: Database;
  /**
   * How often the job queue looks for jobs it was not woken for (other replicas', retries, recurring ones); tests
   * that count statements or hold the connection lengthen it, since jobs enqueued here still run at once.
   */
  jobPollIntervalMs?: JobQueueOptions['pollIntervalMs'];
}

/** Fails when something already listens on the port (port 0 asks for any free one). */
async function portIsFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

async function openConfiguredDatabase(config: Config, logger: Logger): Promise<Database> {
  const { db, pending, applied } = await openMigratedDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteWorker: config.pgliteWorker, bounds: databaseBounds(config) });
  logger.debug({ pending, applied }, 'migrations checked');
  return db;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const opening = options.database ? Promise.resolve(options.database) : openConfiguredDatabase(config, logger);
  // Built while the database opens: PGlite boots in its worker thread meanwhile (about a tenth of a start each).
  const schema = buildSchema();
  const routes = restRoutes(schema);
  const database = await opening;
  const bus = new EventBus(database, { logger });
  await bus.start();
  const jobs = new JobQueue(database, { logger, pollIntervalMs: options.jobPollIntervalMs, announceEnqueued: (tx) => bus.publish(JOBS_ENQUEUED, null, tx) });
  // A transaction that enqueued jobs has committed: every replica looks for them now, not at its next poll.
  bus.subscribe(JOBS_ENQUEUED, () => jobs.wake());
  const repositories = await RepositoryStorages.open(config);
  const artifacts = await ArtifactStorage.open(config);
  const packages = await PackageStorage.open(config);
  const uploads = await UploadStorage.open(config);
  const app = createApp({ db: database.prisma, readDb: database.readPrisma, config, bus, jobs, logger, repositories, artifacts, packages, uploads });
  const jobEnvironment: JobEnvironment = { app, contextFor: (viewer: Viewer | null) => createContext(app, viewer) };
  for (const module of modules) {
    const handlers = typeof module.jobs === 'function' ? module.jobs(jobEnvironment) : (module.jobs ?? {});
    for (const [kind, handle] of Object.entries(handlers)) jobs.register(kind, handle);
  }
  if (database.kind === 'pglite') for (const [kind, handle] of Object.entries(pgliteMaintenanceJobs)) jobs.register(kind, handle);
  const teardowns = modules.flatMap((module) => (module.projectTeardown ? [module.projectTeardown] : []));
  app.teardownProject = async (projectId) => {
    for (const teardown of teardowns) await teardown(jobEnvironment, projectId);
  };
  // One memory of tokens for both lanes; each lane looks a token up on its own connections.
  const credentialCache = new CredentialCache(bus);
  // Whoever a token authenticates is active today (GET /user/activities).
  const activity = new ActivityRecorder(
    (userId, day) => recordUserActivity(database.prisma, userId, day),
    (error) => logger.warn({ err: error }, 'could not record user activity'),
  );
  const tokens = {
    // Personal access tokens, then OAuth access tokens (src/modules/applications).
    read: activity.wrap(credentialCache.wrap(orElse(tokenAuthenticator(database.readPrisma, config.externalUrl), oauthAuthenticator(database.readPrisma, config.externalUrl)))),
    write: activity.wrap(credentialCache.wrap(orElse(tokenAuthenticator(database.prisma, config.externalUrl), oauthAuthenticator(database.prisma, config.externalUrl)))),
  };
  // Job tokens are not remembered: one stops working the moment its job ends.
  const jobTokens = { read: activity.wrap(jobTokenAuthenticator(database.readPrisma)), write: activity.wrap(jobTokenAuthenticator(database.prisma)) };
  const authenticators = { read: byKind(tokens.read, jobTokens.read), write: byKind(tokens.write, jobTokens.write) };
  const pushHooks = await PushHooks.start();
  const laneOf = graphqlLanes();
  // A port already taken fails the start before root is seeded, so its token is never made and then lost unseen.
  await portIsFree(config.host, config.port);
  const generatedRootToken = await ensureRootUser(database.prisma, config.rootToken);
  if (generatedRootToken) await keepInitialRootToken(config.dataDir, generatedRootToken);

  const web = express();
  web.disable('x-powered-by');
  jsonWithoutCharset(web);
  // GitLab's (Rack's) nesting of parameter names, the same for query strings, form bodies and multipart fields.
  web.set('query parser', parseParams);
  // Only configured proxies may say who the client is: the rate limit keys anonymous callers by address.
  web.set('trust proxy', config.trustedProxies.length ? config.trustedProxies : false);
  const httpServer: Server = createServer(serverTimeouts(config), web);
  const connections = trackConnections(httpServer);
  answerClientErrors(httpServer);

  const subscriptions = startSubscriptionServer(httpServer, app, schema, authenticators.read);
  const apollo = new ApolloServer<Context>({
    schema,
    formatError,
    includeStacktraceInErrorResponses: false,
    introspection: true,
    validationRules: [NoNullBytes],
    plugins: [ApolloServerPluginLandingPageDisabled(), idVariablesUnified(schema), noSubscriptionsOverHttp, boundsPlugin(config.graphqlMaxNodes), unavailableStatus, settleEvents],
  });
  await apollo.start();

  web.use(requestBasics(logger, config.rateLimitPerMinute));
  // Git over HTTP streams its bodies (packs) itself: before the body parsers, and without their size limit.
  web.use(gitHttp({ app, authenticators: { personalAccessToken: tokens.read, jobToken: jobTokens.read }, hooks: pushHooks }));
  // So do a runner's log patches and artifact uploads; the rest of the runner protocol comes after the parsers.
  const runners = runnerApi({ app, authenticators });
  web.use('/api/v4', runners.streams);
  // The Sentry-compatible collector reads its own (compressed) bodies too, with its own bound.
  web.use('/api/v4/error_tracking/collector', errorTrackingCollector(app, config.bodyLimit));
  // Generic packages' files stream in and out the same way.
  web.use('/api/v4', genericPackagesApi(app, authenticators));
  web.use('/api/v4', pypiPackagesApi(app, authenticators));
  // Alert notifications read their own bodies, with GitLab's 1 MB limit (src/modules/alert_management/http.ts).
  web.use(alertNotifyHttp(app));
  web.use(bodyLimit(config.bodyLimit));
  web.use(express.json({ limit: config.bodyLimit, type: ['application/json', 'application/*+json'], verify: verifyBody }));
  web.use(express.text({ type: 'application/x-www-form-urlencoded', limit: config.bodyLimit, verify: verifyBody }), formBodies);
  web.use(multipartBodies(uploads, config.bodyLimit));
  web.use(bodyEncodingErrors, bodyErrors, rejectMalformedInput);
  web.use('/api/v4', runners.json);
  // Repository archives and snapshots are byte streams from git, with Workhorse's headers.
  web.use('/api/v4', repositoryArchives(app, authenticators));
  // A merge request's raw diff, streamed from git as it comes.
  web.use('/api/v4', mergeRequestRawDiffs(app, authenticators));
  // The Releases API's redirects (latest release, asset downloads).
  web.use('/api/v4', releaseRedirects(app, authenticators));
  // The web archive URLs releases list as their sources.
  web.use(webArchives(app, authenticators));
  web.use(
    '/api/graphql',
    expressMiddleware(apollo, {
      context: async ({ req, res }) => {
        const deadline = Date.now() + config.graphqlTimeoutMs;
        const params = (req.method === 'GET' ? req.query : req.body) as { query?: unknown; operationName?: unknown } | undefined;
        const lane = laneOf(params?.query, params?.operationName);
        let viewer;
        try {
          viewer = await resolveViewer(authenticators[lane], res.locals.credentials as Credentials | null);
        } catch (error) {
          throw contextError(error);
        }
        refuseLargeQuery(req); // after authentication, as in GitLab's controller
        return createContext(app, viewer, { lane, deadline });
      },
    }),
  );
  // A rotated token presented again to a rotation endpoint revokes its family before authentication refuses it.
  web.use('/api/v4', tokenReuseDetection(app));
  web.use('/api/v4', restRouter(app, authenticators, routes));
  web.use(avatarUploads(app, authenticators.read));
  web.use(alertMetricImageFiles(app, authenticators.read));
  // Markdown uploads' web paths: users' temporary uploads (POST /uploads/user), and the files under project paths.
  web.use(markdownUploadsHttp(app, authenticators));
  web.get('/-/health', (_req, res) => res.json({ status: 'ok' }));
  // GraphiQL, at GitLab's path for it.
  web.use('/-/graphql-explorer', graphqlExplorer());
  // OAuth 2 (Doorkeeper's routes): tokens, the authorization page, token info and revocation.
  web.use('/oauth', oauthHttp(app));
  // OpenID Connect discovery and the keys that verify CI/CD ID tokens.
  web.use(discoveryHttp(app));
  web.use('/api/v3', (_req, res) => res.status(410).json({ error: 'API V3 is no longer supported. Use API V4 instead.' }));
  web.use((_req: Request, res: Response) => res.status(404).json({ error: '404 Not Found' }));
  web.use((error: unknown, _req: Request, res: Response, _next: unknown) => sendError(res, app, error));

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, resolve);
  });
  const port = (httpServer.address() as AddressInfo).port;
  jobs.start();
  const initialRootToken = await watchInitialRootToken(database.prisma, config.dataDir);

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    app,
    database,
    generatedRootToken,
    initialRootTokenFile: initialRootToken.file,
    close: () =>
      (closing ??= (async () => {
        initialRootToken.stop();
        // Stop accepting and finish every accepted request; meanwhile close subscriptions with 1001 (going away).
        const drained = connections.drain(config.shutdownTimeoutMs);
        // Runners held waiting for a job are answered at once rather than at the end of their long poll.
        runners.close();
        await subscriptions.dispose();
        await drained;
        await apollo.stop();
        await jobs.stop();
        credentialCache.stop();
        app.memberships.stop();
        app.projectSubjects.stop();
        await bus.stop();
        if (!options.database) await database.close();
        await pushHooks.close();
        await repositories.close();
        await artifacts.close();
        await packages.close();
        await uploads.close();
      })()),
  };
}
