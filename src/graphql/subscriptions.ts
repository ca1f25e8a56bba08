/**
 * graphql-ws on `/api/graphql`: the token comes in `connectionParams` (`PRIVATE-TOKEN`, `token` or
 * `Authorization: Bearer`) and is checked when the socket connects (a bad token refuses the connection); the
 * socket closes with 4401 when that token is revoked or expires. Every operation is bounded as over HTTP
 * (ws-limits.ts) and gets a context from the one factory, and its errors the same masking as over HTTP.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { readCredentials, resolveViewer, type CredentialsAuthenticator } from '../auth/credentials.js';
import type { Viewer } from '../auth/viewer.js';
import type { App, Context } from '../context.js';
import { formatError } from './errors.js';
import { CredentialWatch } from './revocation.js';
import { subscribeCompiled } from './compiled-subscriptions.js';
import { limitMessageRate, prepareOperation } from './ws-limits.js';

/** A connection parameter by name, in any case, as HTTP headers are. */
function connectionHeader(params: Record<string, unknown> | undefined, name: string): string | undefined {
  const key = Object.keys(params ?? {}).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : params?.[key];
  return typeof v === 'string' ? v : undefined;
}

const corked = new WeakSet<Socket>();

/**
 * Holds a connection's writes until the current turn of the event loop ends, so that the messages of its many
 * subscriptions an event fans out to leave in one write, not one system call each (ws corks each frame alone).
 */
function coalesceWrites(stream: Socket): void {
  if (corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  setImmediate(() => {
    corked.delete(stream);
    stream.uncork();
  });
}

export interface SubscriptionServer {
  /** Closes every socket, ending their subscriptions. */
  dispose(): Promise<void>;
}

export function startSubscriptionServer(httpServer: Server, app: App, schema: GraphQLSchema, authenticate: CredentialsAuthenticator): SubscriptionServer {
  // Upgrades handed over by hand rather than ws listening on the HTTP server itself, which would also take on the
  // server's own errors (a port in use) and have graphql-ws report them as its own.
  const wsServer = new WebSocketServer({ noServer: true, path: '/api/graphql', maxPayload: app.config.bodyLimit });
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => wsServer.handleUpgrade(req, socket, head, (ws) => wsServer.emit('connection', ws, req));
  httpServer.on('upgrade', upgrade);
  // Before useServer, so that a connection's messages are counted before graphql-ws handles them.
  wsServer.on('connection', (socket) => limitMessageRate(socket, app.config.wsMessagesPerMinute));
  const credentialWatch = new CredentialWatch(app.bus);
  const cleanup = useServer<Record<string, unknown>, { viewer?: Viewer | null; events?: WeakMap<object, Context> }>(
    {
      schema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams;
        const credentials = readCredentials({
          header: (name) => connectionHeader(params, name) ?? (name === 'private-token' ? connectionHeader(params, 'token') : undefined),
          param: () => undefined,
        });
        try {
          ctx.extra.viewer = await resolveViewer(authenticate, credentials);
          credentialWatch.watch(ctx.extra.socket, ctx.extra.viewer);
          return true;
        } catch {
          return false;
        }
      },
      onSubscribe: prepareOperation(app, schema),
      subscribe: subscribeCompiled,
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(e.toJSON(), e)),
      onNext: (ctx, _id, _payload, _args, result) => {
        coalesceWrites(ctx.extra.request.socket);
        return result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e)) } : undefined;
      },
    },
    wsServer,
  );
  return {
    async dispose() {
      credentialWatch.stop();
      await cleanup.dispose();
      httpServer.off('upgrade', upgrade);
      wsServer.close();
    },
  };
}
