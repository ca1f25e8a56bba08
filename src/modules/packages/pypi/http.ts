/**
 * The PyPI registry's routes (GitLab's `lib/api/pypi_packages.rb`): twine's multipart upload, its file streamed to the
 * store as it arrives, never held in memory; the PEP 503 simple index pip reads, as GitLab's presenters write it; file
 * downloads. Mounted before the body parsers; every decision is the packages service's (pypi/service.ts).
 *
 * Credentials as the package routes take them (../http.ts), HTTP Basic with a token as the password being what pip and
 * twine send. A 401 carries GitLab's `WWW-Authenticate: Basic realm="GitLab Packages Registry"`, the challenge that
 * makes pip send the credentials it has.
 */
import { basename } from 'node:path/posix';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import express, { type Request, type Response } from 'express';
import type { CredentialsAuthenticator } from '../../../auth/credentials.js';
import type { App, Context } from '../../../context.js';
import type { Lane } from '../../../db/database.js';
import { isCoded, malformedRequest, payloadTooLarge } from '../../../errors.js';
import { escapeHtml } from '../../../markdown.js';
import { parseRef } from '../../../graphql/ids.js';
import type { NamespaceRow } from '../../namespaces/service.js';
import type { ProjectRow } from '../../projects/service.js';
import { packageContext, packageRoute, sendPackageFile, type PackageHandler } from '../http.js';
import { normalizePypiName, PYPI_FORM_FIELDS, type PypiFileLink, type PypiIndexEntry, type PypiRegistry, type PypiUploadFields } from './service.js';
import type { StoredPackageFile } from '../storage.js';

const REALM = 'Basic realm="GitLab Packages Registry"';
/** The most bytes of form fields read, all together (twine sends the whole long description). */
const MAX_FIELDS_SIZE = 10 * 1024 * 1024;
const MAX_FIELDS = 200;
/** The content and, from `twine upload --sign`, its signature (read and dropped). */
const MAX_FILES = 2;

/** ERB::Util.html_escape. */
/** A path segment as Rails' route helpers write it. */
const segment = (text: string) => encodeURIComponent(text).replace(/%(2B|40|3A|21|24|26|27|28|29|2A|2C|3B|3D)/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** SimplePresenterBase#body: GitLab's HTML, its indentation included. */
function simplePage(title: string, links: string[]): string {
  return `        <!DOCTYPE html>
        <html>
          <head>
            <title>Links for ${escapeHtml(title)}</title>
          </head>
          <body>
            <h1>Links for ${escapeHtml(title)}</h1>
            ${links.join('')}
          </body>
        </html>
`;
}

const link = (url: string, requiredPython: string, text: string) => `<a href="${url}" data-requires-python="${escapeHtml(requiredPython)}">${escapeHtml(text)}</a>`;

function sendHtml(res: Response, html: string): void {
  res.status(200).type('text/html; charset=utf-8').send(html);
}

type Owner = { project: ProjectRow } | { group: NamespaceRow };

/** Reads twine's multipart form: the fields, and the `content` file streamed to the store once the fields before it pass. */
function readUpload(req: Request, pypi: PypiRegistry): Promise<{ fields: PypiUploadFields; upload: { fileName: string; stored: StoredPackageFile } | null }> {
  return new Promise((resolve, reject) => {
    const fields: PypiUploadFields = {};
    if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) return resolve({ fields, upload: null });
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fields: MAX_FIELDS, files: MAX_FILES, fieldSize: MAX_FIELDS_SIZE } });
    } catch {
      return reject(malformedRequest());
    }
    let failure: unknown = null;
    let storing: Promise<{ fileName: string; stored: StoredPackageFile }> | null = null;
    let content: Readable | null = null;
    // A refusal answers at once: the rest of the body is not read (the route closes the connection), the file being
    // stored stops (its partial file removed) or, stored already, is removed unless another package file names it.
    const fail = (error: unknown) => {
      if (failure) return;
      failure = error;
      req.unpipe(parser);
      content?.destroy(error instanceof Error ? error : undefined);
      void (storing ?? Promise.resolve(null)).then(
        (upload) => (upload ? pypi.discard(upload.stored) : undefined),
        () => undefined,
      ).finally(() => reject(error));
    };
    let fieldBytes = 0;
    parser.on('field', (name, value, info) => {
      fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (info.valueTruncated || info.nameTruncated || fieldBytes > MAX_FIELDS_SIZE) return fail(payloadTooLarge());
      // GitLab's HandleMalformedStrings answers a NUL byte anywhere in the params.
      if (name.includes('\0') || value.includes('\0')) return fail(malformedRequest());
      const key = PYPI_FORM_FIELDS[name];
      if (key) fields[key] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'content' || !info.filename || storing || failure) return void stream.resume();
      if (info.filename.includes('\0')) {
        stream.resume();
        return fail(malformedRequest());
      }
      // twine sends the form's fields first: what they already refuse stores nothing.
      try {
        if (fields.name !== undefined && fields.version !== undefined) {
          pypi.checkParams(fields, true);
          pypi.checkPackage(fields);
        }
      } catch (error) {
        stream.resume();
        return fail(error);
      }
      const fileName = basename(info.filename.replace(/\\/g, '/'));
      content = stream;
      // Its end is storing's to report; a refusal destroying it after the store finished has no one else to tell.
      stream.on('error', () => undefined);
      storing = pypi.store(stream).then((stored) => ({ fileName, stored }));
      storing.catch((error: unknown) => {
        stream.resume();
        fail(error);
      });
    });
    parser.on('filesLimit', () => fail(payloadTooLarge()));
    parser.on('fieldsLimit', () => fail(payloadTooLarge()));
    parser.on('error', () => fail(malformedRequest()));
    // A body cut off never ends its file: the upload fails rather than waits.
    req.on('close', () => !req.complete && fail(malformedRequest()));
    parser.on('close', () => {
      if (failure) return;
      (storing ?? Promise.resolve(null)).then(
        (upload) => {
          if (!failure) resolve({ fields, upload });
        },
        () => undefined, // reported through fail
      );
    });
    req.pipe(parser);
  });
}

export function pypiPackagesApi(app: App, authenticators: Record<Lane, CredentialsAuthenticator>) {
  const router = express.Router();
  const base = '/projects/:id/packages/pypi';
  const groupBase = '/groups/:id/-/packages/pypi';
  const route = packageRoute(app);
  const api = app.config.externalUrl + '/api/v4';

  /** GitLab's BasicAuthHelpers#unauthorized!: every 401 of these routes challenges for Basic credentials. */
  const challenged = (template: string, handle: PackageHandler) =>
    route(template, async (req, res) => {
      try {
        await handle(req, res);
      } catch (error) {
        if (isCoded(error) && error.extensions.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', REALM);
        throw error;
      }
    });

  type Resolved<T> = { pypi: PypiRegistry; context: Context } & T;

  async function projectOf(req: Request, res: Response, lane: Lane): Promise<Resolved<{ project: ProjectRow }>> {
    const context = await packageContext(app, authenticators)(req, res, lane);
    const pypi = context.services.packages.pypi;
    const ref = parseRef(String(req.params.id), 'Project', 'id');
    return { project: await pypi.project(ref, await context.services.projects.find(ref), lane === 'write' ? 'read_project' : 'read_package'), pypi, context };
  }

  async function ownerOf(req: Request, res: Response): Promise<Resolved<{ owner: Owner }>> {
    if (!req.path.startsWith('/groups/')) {
      const { project, ...rest } = await projectOf(req, res, 'read');
      return { owner: { project }, ...rest };
    }
    const context = await packageContext(app, authenticators)(req, res, 'read');
    const pypi = context.services.packages.pypi;
    return { owner: { group: pypi.group(await context.services.groups.find(parseRef(String(req.params.id), 'Group', 'id'))) }, pypi, context };
  }

  const prefixOf = (owner: Owner) => ('project' in owner ? `${api}/projects/${owner.project.id}/packages/pypi` : `${api}/groups/${owner.group.id}/-/packages/pypi`);
  const wildcard = (req: Request, name: string) => {
    const value = req.params[name] as unknown;
    return (Array.isArray(value) ? value.filter((part) => part !== '').join('/') : String(value ?? '')) || '';
  };

  router.post(
    base,
    challenged(base, async (req, res) => {
      const { project, pypi, context } = await projectOf(req, res, 'write');
      await pypi.authorizeUpload(project);
      const { fields, upload } = await readUpload(req, pypi);
      if (!upload) pypi.checkParams(fields, false);
      else {
        try {
          await pypi.record(project, fields, upload.fileName, upload.stored);
        } catch (error) {
          await pypi.discard(upload.stored);
          throw error;
        }
      }
      await context.settle();
      res.status(201).json({ message: '201 Created' });
    }),
  );

  for (const prefix of [base, groupBase]) {
    const simple = `${prefix}/simple`;
    router.get(
      simple,
      challenged(simple, async (req, res) => {
        const { owner, pypi } = await ownerOf(req, res);
        const entries: PypiIndexEntry[] = await pypi.index(owner);
        const links = entries.map((entry) => link(`${prefixOf(owner)}/simple/${segment(normalizePypiName(entry.name))}`, entry.requiredPython, entry.name));
        sendHtml(res, simplePage('project' in owner ? owner.project.name : owner.group.name, links));
      }),
    );

    const simplePackage = `${prefix}/simple/*package_name`;
    router.get(
      simplePackage,
      challenged(simplePackage, async (req, res) => {
        const { owner, pypi } = await ownerOf(req, res);
        const { name, files } = await pypi.versions(owner, wildcard(req, 'package_name'));
        const url = (file: PypiFileLink) => `${prefixOf(owner)}/files/${file.sha256}/${segment(file.fileName)}#sha256=${file.sha256}`;
        sendHtml(res, simplePage(name, files.map((file) => link(url(file), file.requiredPython, file.fileName))));
      }),
    );

    const files = `${prefix}/files/:sha256/*file_identifier`;
    router.get(
      files,
      challenged(files, async (req, res) => {
        const { owner, pypi } = await ownerOf(req, res);
        sendPackageFile(req, res, await pypi.download(owner, String(req.params.sha256), wildcard(req, 'file_identifier')));
      }),
    );
  }

  return router;
}
