/**
 * graphql-ws on `/api/graphql`: the token comes in `connectionParams` (`PRIVATE-TOKEN`, `token` or
 * `Authorization: Bearer`) and is checked once, when the socket connects; a bad token refuses the connection.
 * Every operation gets a context from the one factory, and its errors the same masking as over HTTP.
 */
import type { Server } from 'node:http';
import { getOperationAST, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { readCredentials, resolveViewer, type Authenticator } from '../auth/credentials.js';
import type { Viewer } from '../auth/viewer.js';
import { createContext, type App } from '../context.js';
import { formatError } from './errors.js';

/** A connection parameter by name, in any case, as HTTP headers are. */
function connectionHeader(params: Record<string, unknown> | undefined, name: string): string | undefined {
  const key = Object.keys(params ?? {}).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : params?.[key];
  return typeof v === 'string' ? v : undefined;
}

export interface SubscriptionServer {
  /** Closes every socket, ending their subscriptions. */
  dispose(): Promise<void>;
}

export function startSubscriptionServer(httpServer: Server, app: App, schema: GraphQLSchema, authenticate: Authenticator): SubscriptionServer {
  const wsServer = new WebSocketServer({ server: httpServer, path: '/api/graphql' });
  const cleanup = useServer<Record<string, unknown>, { viewer?: Viewer | null }>(
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
          return true;
        } catch {
          return false;
        }
      },
      // Subscriptions and queries read; a mutation sent over the socket writes.
      context: (ctx, _id, _payload, args) =>
        createContext(app, ctx.extra.viewer ?? null, { lane: getOperationAST(args.document, args.operationName)?.operation === 'mutation' ? 'write' : 'read' }),
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatError(e.toJSON(), e)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatError(e.toJSON(), e)) } : undefined,
    },
    wsServer,
  );
  return {
    async dispose() {
      await cleanup.dispose();
      wsServer.close();
    },
  };
}
