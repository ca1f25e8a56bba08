/**
 * The npm registry's HTTP (GitLab's `lib/api/npm_project_packages.rb`, `npm_instance_packages.rb` and the NpmEndpoints
 * concern), what the `npm` CLI calls with `_authToken` (a Bearer token: personal, project access or CI job token):
 *
 *   /api/v4/projects/:id/packages/npm/…   PUT <name> (publish; `Npm-Command: deprecate`: deprecate), GET <name> (metadata), GET <name>/-/<file> (tarball),
 *                                          GET|PUT|DELETE -/package/<name>/dist-tags[/<tag>], POST -/npm/v1/security/…
 *   /api/v4/packages/npm/…                 the same reads and dist-tags, the project found from the name's scope
 *
 * Names may be scoped and URL-encoded (`@scope%2fname`); the path is decoded before it is matched. Mounted before the
 * body parsers: a publication streams (npm.ts), a dist-tag's version is read here, bounded.
 */
import express, { type Request } from 'express';
import type { CredentialsAuthenticator } from '../../../auth/credentials.js';
import type { App, Context } from '../../../context.js';
import type { Lane } from '../../../db/database.js';
import { badRequest, notFound, payloadTooLarge, unauthenticated } from '../../../errors.js';
import { parseRef } from '../../../graphql/ids.js';
import { packageContext, packageRoute, sendPackageFile } from '../http.js';
import type { ProjectRow } from '../../projects/service.js';

/** Bound of a dist-tag request's body (a JSON string: the version). */
const MAX_TAG_BODY = 64 * 1024;

const PROJECT = /^\/api\/v4\/projects\/([^/]+)\/packages\/npm(\/.*)$/;
const INSTANCE = /^\/api\/v4\/packages\/npm(\/.*)$/;

type Scope = { kind: 'project'; id: string } | { kind: 'instance' };

/** Bound of `npm deprecate`'s body: the package's metadata, every version, sent back. */
const MAX_DEPRECATE_BODY = 10 * 1024 * 1024;

async function readBody(req: Request, limit: number): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw payloadTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('Invalid JSON body');
  }
}

/** The version of `npm dist-tag add`: a JSON string (GitLab reads `env['api.request.body']`), or the bare text. */
function versionOf(text: string): string {
  const trimmed = text.trim();
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'string' ? parsed : '';
  } catch {
    return trimmed;
  }
}

function decodePath(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

export function npmPackagesApi(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();
  const route = packageRoute(app);
  const contextFor = packageContext(app, authenticators);

  /** GitLab's `authenticate_non_get!`: a write needs a viewer before the project is looked up. */
  async function writer(req: Request, res: Parameters<typeof contextFor>[1]): Promise<Context> {
    const context = await contextFor(req, res, 'write');
    if (!context.viewer) throw unauthenticated();
    return context;
  }

  /** The project of the request: by `:id`, or at instance level from the package name's scope (404 without one). */
  async function projectOf(context: Context, scope: Scope, name: string | null): Promise<ProjectRow> {
    const { services } = context;
    if (scope.kind === 'project') return services.projects.get(parseRef(scope.id, 'Project', 'id'));
    const id = name ? await services.packages.npm.instanceProjectId(name) : null;
    if (id === null) throw notFound('Project');
    return services.projects.get({ id });
  }

  router.use((req, res, next) => {
    const url = req.originalUrl.split('?')[0]!;
    const project = PROJECT.exec(url);
    const instance = project ? null : INSTANCE.exec(url);
    if (!project && !instance) return next();
    const scope: Scope = project ? { kind: 'project', id: decodePath(project[1]!) ?? '' } : { kind: 'instance' };
    const base = project ? '/projects/:id/packages/npm' : '/packages/npm';
    const path = decodePath((project ?? instance)![project ? 2 : 1]!);
    if (path === null) return next();
    const method = req.method === 'HEAD' ? 'GET' : req.method;

    let match: RegExpExecArray | null;
    if ((match = /^\/-\/package\/(.+)\/dist-tags$/.exec(path)) && method === 'GET') {
      const name = match[1]!;
      return void route(`${base}/-/package/*package_name/dist-tags`, async () => {
        const context = await contextFor(req, res, 'read');
        res.status(200).json(await context.services.packages.npm.listTags(await projectOf(context, scope, name), name));
      })(req, res);
    }
    if ((match = /^\/-\/package\/(.+)\/dist-tags\/([^/]+)$/.exec(path)) && (method === 'PUT' || method === 'DELETE')) {
      const [, name, tag] = match as unknown as [string, string, string];
      return void route(`${base}/-/package/*package_name/dist-tags/:tag`, async () => {
        const context = await writer(req, res);
        const registry = context.services.packages.npm;
        const target = await projectOf(context, scope, name);
        if (method === 'PUT') await registry.addTag(target, name, tag, versionOf(await readBody(req, MAX_TAG_BODY)));
        else await registry.removeTag(target, name, tag);
        await context.settle();
        res.status(204).end();
      })(req, res);
    }
    if ((match = /^\/-\/npm\/v1\/security\/(?:advisories\/bulk|audits\/quick)$/.exec(path)) && method === 'POST') {
      // No forwarding to npmjs.org: GitLab's answer without it, an empty report, for a reader of the project.
      return void route(`${base}${path}`, async () => {
        const context = await contextFor(req, res, 'read');
        await context.services.packages.npm.auditReport(await projectOf(context, scope, null));
        req.resume();
        res.status(200).json([]);
      })(req, res);
    }
    if ((match = /^\/(.+?)\/-\/(.+)$/.exec(path)) && method === 'GET' && scope.kind === 'project') {
      const [, name, fileName] = match as unknown as [string, string, string];
      return void route(`${base}/*package_name/-/*file_name`, async () => {
        const context = await contextFor(req, res, 'read');
        sendPackageFile(req, res, await context.services.packages.npm.tarball(await projectOf(context, scope, name), name, fileName));
      })(req, res);
    }
    if ((match = /^\/([^-].*)$/.exec(path)) && method === 'GET') {
      const name = match[1]!;
      return void route(`${base}/*package_name`, async () => {
        const context = await contextFor(req, res, 'read');
        res.status(200).json(await context.services.packages.npm.metadata(await projectOf(context, scope, name), name));
      })(req, res);
    }
    if ((match = /^\/([^-].*)$/.exec(path)) && method === 'PUT' && scope.kind === 'project') {
      const name = match[1]!;
      return void route(`${base}/:package_name`, async () => {
        const context = await writer(req, res);
        const registry = context.services.packages.npm;
        if (req.get('npm-command') === 'deprecate') {
          const target = await projectOf(context, scope, name);
          await registry.deprecate(target, name, parseJson(await readBody(req, MAX_DEPRECATE_BODY)));
          await context.settle();
          return void res.status(200).json({});
        }
        const pkg = await registry.publish(await projectOf(context, scope, name), name, req);
        await context.settle();
        res.status(200).json({
          id: pkg.id,
          project_id: pkg.projectId,
          name: pkg.name,
          version: pkg.version,
          package_type: pkg.packageType,
          status: pkg.status,
          created_at: pkg.createdAt.toISOString(),
          updated_at: pkg.updatedAt.toISOString(),
        });
      })(req, res);
    }
    return next();
  });

  return router;
}
