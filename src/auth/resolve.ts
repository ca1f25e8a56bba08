/** Request credentials to a viewer, for every surface (REST, GraphQL over HTTP, graphql-ws). */
import type { App } from '../context.js';
import { authenticate } from '../modules/tokens/service.js';
import { extractToken, type Viewer } from './viewer.js';

interface HeaderSource {
  get(name: string): string | undefined;
}

/** No token gives an anonymous viewer (null); a bad token is UNAUTHENTICATED. */
export async function resolveViewer(app: App, req: HeaderSource, params: Record<string, unknown>): Promise<Viewer | null> {
  const token = extractToken({ header: (name) => req.get(name), param: (name) => params[name] });
  return token ? authenticate(app, token) : null;
}
