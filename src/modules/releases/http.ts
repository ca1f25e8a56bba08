/**
 * The Releases API's redirects (GitLab's `lib/api/releases.rb`), which answer no JSON:
 *
 * - `GET /projects/:id/releases/permalink/latest(/*suffix)`: 302 to the same API path of the latest release's tag,
 *   the suffix and every query parameter but `order_by` kept (so `permalink/latest/evidence`, `/assets/links`, … work);
 * - `GET /projects/:id/releases/:tag_name/downloads/*direct_asset_path`: 302 to the URL of the release's link with
 *   that direct asset path.
 *
 * Who may follow them is the releases service's decision; the answer is Grape's `redirect`.
 */
import express, { type Request, type Response } from 'express';
import { resolveViewer, type Credentials, type CredentialsAuthenticator } from '../../auth/credentials.js';
import { acceptedScopes, requireScope } from '../../auth/scopes.js';
import { createContext, type App } from '../../context.js';
import type { Lane } from '../../db/database.js';
import { parseRef } from '../../graphql/ids.js';
import { sendError } from '../../rest/adapter.js';

/** Grape's `redirect`: 302, the URL in Location and in a one-line text body. */
function redirect(res: Response, location: string): void {
  res.status(302).set({ Location: location, 'Content-Type': 'text/plain' }).send(`This resource has been moved temporarily to ${location}.`);
}

/** The query string without `order_by` (GitLab keeps that name for a future ordering of `latest`). */
function queryWithoutOrderBy(req: Request): string {
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const kept = query.split('&').filter((pair) => pair && decodeURIComponent(pair.split('=')[0]!.replace(/\+/g, ' ')) !== 'order_by');
  return kept.length ? `?${kept.join('&')}` : '';
}

export function releaseRedirects(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();

  const handle = (template: string, run: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    res.locals.route = `/api/v4${template}`;
    try {
      await run(req, res);
    } catch (error) {
      sendError(res, app, error);
    }
  };

  async function context(res: Response) {
    const viewer = await resolveViewer(authenticators.read, res.locals.credentials as Credentials | null);
    requireScope(viewer, acceptedScopes('query', undefined));
    return createContext(app, viewer, { lane: 'read' });
  }

  router.get(
    /^\/projects\/([^/]+)\/releases\/permalink\/latest(?:\/(.*))?$/,
    handle('/projects/:id/releases/permalink/latest(/)(*suffix_path)', async (req, res) => {
      const params = req.params as unknown as Record<string, string | undefined>;
      const { services } = await context(res);
      const project = await services.projects.get(parseRef(decodeURIComponent(params[0]!), 'Project', 'id'));
      const latest = await services.releases.latest(project);
      const suffix = params[1] ? `/${params[1]}` : '';
      redirect(res, `/api/v4/projects/${project.id}/releases/${encodeURIComponent(latest.tag)}${suffix}${queryWithoutOrderBy(req)}`);
    }),
  );

  router.get(
    /^\/projects\/([^/]+)\/releases\/([^/]+)\/downloads\/(.+)$/,
    handle('/projects/:id/releases/:tag_name/downloads/*direct_asset_path', async (req, res) => {
      const params = req.params as unknown as Record<string, string>;
      const { services } = await context(res);
      const project = await services.projects.get(parseRef(decodeURIComponent(params[0]!), 'Project', 'id'));
      const link = await services.releases.links.download(project, decodeURIComponent(params[1]!), `/${params[2]}`);
      redirect(res, link.url);
    }),
  );

  return router;
}
