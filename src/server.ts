/**
 * Composition: one schema, one context factory; express serves `/api/v4` (the REST adapter) and
 * `/api/graphql` (Apollo over HTTP, graphql-ws on the same path). No globals: everything hangs off `startServer`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { expressMiddleware } from '@as-integrations/express5';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Config } from './config.js';
import { createContext, type App, type Context } from './context.js';
import { openMigratedDatabase, type Database } from './db/database.js';
import { EventBus } from './events/bus.js';
import { JobQueue } from './jobs/queue.js';
import { createLogger, type Logger } from './logger.js';
import { buildSchema, GRAPHQL_DIR } from './graphql/schema.js';
import { compileOperations } from './rest/compile.js';
import { prepareRoutes, restRouter, sendError } from './rest/adapter.js';
import { restRoutes } from './rest/routes/index.js';
import { resolveViewer } from './auth/resolve.js';
import { requireWriteScope } from './auth/policy.js';
import { fromDatabase, isCoded } from './errors.js';
import { ensureRootUser } from './modules/users/service.js';
import { accessLog, bodyErrors, rateLimit, requestId, securityHeaders } from './http/middleware.js';

export interface RunningServer {
  url: string;
  port: number;
  app: App;
  database: Database;
  /** The root token when this start generated one (printed once). */
  generatedRootToken: string | null;
  close(): Promise<void>;
}

export interface ServerOptions {
  logger?: Logger;
  /** Use this database instead of opening one from the config (tests). */
  database?: Database;
}

/** Apollo's own codes for a bad request (syntax, validation, variables): the client's to see. */
const APOLLO_CLIENT_ERRORS = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/** Errors GraphQL clients see: ours and Apollo's request errors with their code; anything else masked. */
function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const known = fromDatabase(error);
  if (known) return { message: known.message, locations: formatted.locations, path: formatted.path, extensions: { code: 'CONFLICT' } };
  const code = formatted.extensions?.code;
  if (isCoded(error) || (typeof code === 'string' && APOLLO_CLIENT_ERRORS.has(code))) {
    const { stacktrace: _drop, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  }
  return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** Mutations need a token with the `api` scope, as REST writes do. */
const writeScopePlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, contextValue }) {
        if (operation?.operation === 'mutation') requireWriteScope(contextValue.viewer);
      },
    };
  },
};

function connectionToken(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const p = params ?? {};
  const header = (name: string) => {
    const v = p[name] ?? p[name.toLowerCase()] ?? p[name.toUpperCase()];
    return typeof v === 'string' ? v : undefined;
  };
  const bearer = header('Authorization');
  return { private_token: header('PRIVATE-TOKEN') ?? header('token') ?? (bearer ? bearer.replace(/^Bearer\s+/i, '') : undefined) };
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = options.database ?? (await openMigratedDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })).db;
  const bus = new EventBus(database, { logger });
  await bus.start();
  const jobs = new JobQueue(database, { logger });
  const app: App = { db: database.prisma, config, bus, jobs, logger };
  const generatedRootToken = await ensureRootUser(database.prisma, config.rootToken);

  const schema = buildSchema();
  const routes = prepareRoutes(restRoutes, compileOperations(schema, `${GRAPHQL_DIR}rest`));

  const web = express();
  web.disable('x-powered-by');
  web.set('query parser', 'extended');
  web.set('trust proxy', true);
  const httpServer: Server = createServer(web);
  // Requests Node's parser refuses never reach express: answer them in JSON too (an over-long URL is a 414).
  httpServer.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, text] = err.code === 'HPE_HEADER_OVERFLOW' ? [414, 'URI Too Long'] : [400, 'Bad Request'];
    const body = JSON.stringify({ message: `${status} ${text}` });
    socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });

  const wsServer = new WebSocketServer({ server: httpServer, path: '/api/graphql' });
  const wsCleanup = useServer<Record<string, unknown>, { viewer?: Context['viewer'] }>(
    {
      schema,
      onConnect: async (ctx) => {
        try {
          ctx.extra.viewer = await resolveViewer(app, { get: () => undefined }, connectionToken(ctx.connectionParams));
          return true;
        } catch {
          return false;
        }
      },
      context: (ctx) => createContext(app, ctx.extra.viewer ?? null),
      // The same masking as over HTTP: coded errors keep their code, anything else says nothing.
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(e.toJSON(), e)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e)) } : undefined,
    },
    wsServer,
  );

  const apollo = new ApolloServer<Context>({
    schema,
    formatError,
    includeStacktraceInErrorResponses: false,
    introspection: true,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginDrainHttpServer({ httpServer }),
      writeScopePlugin,
      { async serverWillStart() { return { async drainServer() { await wsCleanup.dispose(); } }; } },
    ],
  });
  await apollo.start();

  web.use(requestId, accessLog(logger), securityHeaders, rateLimit(config.rateLimitPerMinute));
  web.use(express.json({ limit: config.bodyLimit, type: ['application/json', 'application/*+json'] }));
  web.use(express.urlencoded({ extended: true, limit: config.bodyLimit }));
  web.use(bodyErrors);
  web.use(
    '/api/graphql',
    expressMiddleware(apollo, {
      context: async ({ req }) => {
        try {
          return createContext(app, await resolveViewer(app, req, req.query as Record<string, unknown>));
        } catch (error) {
          if (isCoded(error)) throw new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 401 } } });
          throw error;
        }
      },
    }),
  );
  web.use('/api/v4', restRouter(app, schema, routes));
  web.get('/-/health', (_req, res) => res.json({ status: 'ok' }));
  web.use('/api/v3', (_req, res) => res.status(410).json({ error: 'API V3 is no longer supported. Use API V4 instead.' }));
  web.use((_req: Request, res: Response) => res.status(404).json({ error: '404 Not Found' }));
  web.use((error: unknown, _req: Request, res: Response, _next: unknown) => sendError(res, app, error));

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, resolve);
  });
  const port = (httpServer.address() as AddressInfo).port;
  jobs.start();

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    app,
    database,
    generatedRootToken,
    close: () =>
      (closing ??= (async () => {
        await apollo.stop(); // drains HTTP: stops accepting, finishes in-flight requests
        wsServer.close();
        await jobs.stop();
        await bus.stop();
        if (!options.database) await database.close();
      })()),
  };
}

