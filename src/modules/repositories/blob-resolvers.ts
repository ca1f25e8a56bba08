/**
 * GitLab's presentation of repository files in GraphQL: RepositoryBlob's paths, viewers and abilities (BlobPresenter),
 * trees' entries with their web paths and LFS objects, submodules' links (SubmoduleHelper), a paginated tree.
 */
import { basename } from 'node:path';
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { webUrl } from '../../graphql/resolvers.js';
import type { TreeEntry } from '../../git/repository.js';
import type { ProjectRow } from '../projects/service.js';
import { fileType, isBinary, isBinaryFile, language, lfsPointer, plainHighlight, rawSize, richViewer, simpleViewer, type ViewedFile } from './blob-viewers.js';
import type { BlobRow } from './reads.js';

/** A directory at a ref, with its entries. */
export interface TreeRow {
  project: ProjectRow;
  ref: string;
  path: string;
  entries: TreeEntry[];
}

/** A tree entry with the project and ref it was listed at. */
export type EntryRow = TreeEntry & { project: ProjectRow; ref: string };

/** A route's path with each segment escaped as Rails escapes glob parameters (`/` kept). */
export function escapePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%(21|24|26|27|28|29|2A|2B|2C|3B|3D|3A|40)/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))))
    .join('/');
}

/** ERB::Util.url_encode with slashes kept (BlobHelper#encode_ide_path). */
const ideEscape = (path: string) => encodeURIComponent(path).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%2F/g, '/');

/** `/<full path>/-/<action>/<ref>/<path>`, or null for a blob read without a ref. */
function blobRoute(b: BlobRow, action: string, path = b.path): string | null {
  if (b.ref === null) return null;
  return `/${b.project.fullPath}/-/${action}/${escapePath([b.ref, path].filter(Boolean).join('/'))}`;
}

/** A blob as its viewers see it: its LFS object counts when the project keeps LFS objects (Blob#stored_externally?). */
function viewed(b: BlobRow): ViewedFile {
  const pointer = lfsPointer(b.content);
  const lfsEnabled = b.project.namespace.lfsEnabled;
  return { path: b.path, size: b.size, binaryInRepo: isBinary(b.content), storedExternally: pointer && lfsEnabled ? pointer : null, externalStorageError: !!pointer && !lfsEnabled };
}

/** Whether the blob's ref is a branch of its project. */
async function onBranch(b: BlobRow, ctx: Context): Promise<boolean> {
  return b.ref !== null && ctx.services.repositories.reads.branchExists(b.project, b.ref);
}

/** ChecksCollaboration#can_collaborate_with_project?: the viewer pushes code, or may push to the ref. */
async function canCollaborate(b: BlobRow, ctx: Context): Promise<boolean> {
  if (await ctx.access.can('push_code', b.project)) return true;
  return b.ref !== null && ctx.viewer !== null && ctx.services.repositories.canPushToBranch(b.project, b.ref);
}

const entryId = (e: TreeEntry) => e.sha;

/** BlobHelper#ide_edit_path: someone who may not push edits in a fork in their personal namespace. */
async function ideEditPath(b: BlobRow, ctx: Context): Promise<string | null> {
  if (b.ref === null) return null;
  let projectPath = b.project.fullPath;
  if (ctx.viewer && !(await ctx.access.can('push_code', b.project))) {
    const namespace = await ctx.loaders.namespaces.personalByOwnerId.load(ctx.viewer.id);
    projectPath = `${namespace?.fullPath ?? ctx.viewer.username}/${b.project.path}`;
  }
  return `/-/ide/project/${projectPath}/edit/${ideEscape(b.ref)}${b.path ? `/-/${ideEscape(b.path)}` : ''}`;
}

/** BlobHelper's edit_in_new_fork_notice and edit_in_new_fork_notice_now. */
const FORK_NOTICE = "You're not allowed to make changes to this project directly. A fork of this project has been created that you can make changes in, so you can submit a merge request.";
const FORK_NOTICE_NOW = "You're not allowed to make changes to this project directly. A fork of this project is being created that you can make changes in, so you can submit a merge request.";

/** Ruby's CGI.escape, which Rails' to_query applies to keys and values. */
const cgiEscape = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');

/**
 * BlobHelper#fork_path_for_current_user: the project's fork page, continuing to `path` in the fork with GitLab's
 * notices (Rails' to_query: sorted pairs); null for an anonymous viewer or a blob read without a ref.
 */
async function forkPath(b: BlobRow, ctx: Context, path: string | null): Promise<string | null> {
  if (!ctx.viewer || path === null) return null;
  const namespace = await ctx.loaders.namespaces.personalByOwnerId.load(ctx.viewer.id);
  const pairs = [
    ['continue[notice]', FORK_NOTICE],
    ['continue[notice_now]', FORK_NOTICE_NOW],
    ['continue[to]', path],
    ...(namespace ? [['namespace_key', String(namespace.id)]] : []),
  ].map(([key, value]) => `${cgiEscape(key)}=${cgiEscape(value)}`);
  return `/${b.project.fullPath}/-/forks?${pairs.sort().join('&')}`;
}

export const blobResolvers = {
  RepositoryBlob: {
    id: (b: BlobRow) => b.sha,
    oid: (b: BlobRow) => b.sha,
    name: (b: BlobRow) => basename(b.path),
    size: (b: BlobRow) => b.size,
    rawSize: (b: BlobRow) => rawSize(viewed(b)),
    rawBlob: (b: BlobRow) => b.content.toString('utf8'),
    rawTextBlob: (b: BlobRow) => (isBinaryFile(viewed(b)) ? null : b.content.toString('utf8')),
    plainData: (b: BlobRow) => (isBinaryFile(viewed(b)) ? null : plainHighlight(b.path, b.content.toString('utf8'))),
    webPath: (b: BlobRow) => blobRoute(b, 'blob'),
    rawPath: (b: BlobRow) => blobRoute(b, 'raw'),
    blamePath: (b: BlobRow) => blobRoute(b, 'blame'),
    historyPath: (b: BlobRow) => blobRoute(b, 'commits'),
    editBlobPath: (b: BlobRow) => blobRoute(b, 'edit'),
    replacePath: (b: BlobRow) => blobRoute(b, 'update'),
    findFilePath: (b: BlobRow) => blobRoute(b, 'find_file'),
    projectBlobPathRoot: (b: BlobRow) => blobRoute(b, 'blob', ''),
    permalinkPath: async (b: BlobRow, _a: unknown, ctx: Context) => {
      if (b.ref === null) return null;
      const commit = await ctx.services.repositories.reads.refCommit(b.project, b.ref);
      return commit && `/${b.project.fullPath}/-/blob/${escapePath(`${commit.sha}/${b.path}`)}`;
    },
    ideEditPath: (b: BlobRow, _a: unknown, ctx: Context) => ideEditPath(b, ctx),
    forkAndEditPath: (b: BlobRow, _a: unknown, ctx: Context) => forkPath(b, ctx, blobRoute(b, 'edit')),
    forkAndViewPath: (b: BlobRow, _a: unknown, ctx: Context) => forkPath(b, ctx, blobRoute(b, 'blob')),
    ideForkAndEditPath: async (b: BlobRow, _a: unknown, ctx: Context) => forkPath(b, ctx, await ideEditPath(b, ctx)),
    pipelineEditorPath: async (b: BlobRow, _a: unknown, ctx: Context) => {
      if (b.ref === null || b.path !== (b.project.ciConfigPath || '.gitlab-ci.yml')) return null;
      return (await canCollaborate(b, ctx)) ? `/${b.project.fullPath}/-/ci/editor?branch_name=${encodeURIComponent(b.ref)}` : null;
    },
    language: (b: BlobRow) => language(b.path),
    fileType: (b: BlobRow) => fileType(b.path),
    archived: (b: BlobRow) => b.project.archived,
    lfsOid: (b: BlobRow) => lfsPointer(b.content)?.oid ?? null,
    storedExternally: (b: BlobRow) => viewed(b).storedExternally !== null,
    externalStorage: (b: BlobRow) => (lfsPointer(b.content) ? 'lfs' : null),
    canModifyBlob: async (b: BlobRow, _a: unknown, ctx: Context) => !viewed(b).storedExternally && (await onBranch(b, ctx)) && canCollaborate(b, ctx),
    canCurrentUserPushToBranch: async (b: BlobRow, _a: unknown, ctx: Context) => ctx.viewer !== null && (await onBranch(b, ctx)) && ctx.services.repositories.canPushToBranch(b.project, b.ref!),
    simpleViewer: (b: BlobRow) => simpleViewer(viewed(b)),
    richViewer: (b: BlobRow) => richViewer(viewed(b)),
  },
  TreeEntry: {
    id: entryId,
    webPath: (e: EntryRow) => `/${e.project.fullPath}/-/tree/${escapePath(`${e.ref}/${e.path}`)}`,
    webUrl: (e: EntryRow, _a: unknown, ctx: Context) => webUrl(ctx, `${e.project.fullPath}/-/tree/${escapePath(`${e.ref}/${e.path}`)}`),
  },
  Blob: {
    id: entryId,
    webPath: (e: EntryRow) => `/${e.project.fullPath}/-/blob/${escapePath(`${e.ref}/${e.path}`)}`,
    webUrl: (e: EntryRow, _a: unknown, ctx: Context) => webUrl(ctx, `${e.project.fullPath}/-/blob/${escapePath(`${e.ref}/${e.path}`)}`),
    lfsOid: async (e: EntryRow, _a: unknown, ctx: Context) => (await ctx.services.repositories.reads.lfsPointer(e.project, e.sha))?.oid ?? null,
  },
  Submodule: {
    id: entryId,
    webUrl: async (e: EntryRow, _a: unknown, ctx: Context) => (await submoduleLinks(e, ctx))[0],
    treeUrl: async (e: EntryRow, _a: unknown, ctx: Context) => (await submoduleLinks(e, ctx))[1],
  },
  Tree: {
    lastCommit: (t: TreeRow, _a: unknown, ctx: Context) => ctx.services.repositories.reads.lastCommitFor(t.project, t.ref, t.path),
  },
};

/** The tree of one page of a directory's entries (GitLab's paginatedTree: 100 entries a page unless asked). */
export function paginatedTree(tree: TreeRow | null, args: PageArgs) {
  if (!tree) return null;
  const page = listConnection({ first: args.first ?? 100, after: args.after }, tree.entries);
  return { count: page.count, pageInfo: page.pageInfo, nodes: page.nodes.then((entries) => [{ ...tree, entries }]) };
}

/** The entries of one kind of a tree, each with its project and ref. */
export const entriesOf = (type: TreeEntry['type']) => (tree: TreeRow, args: PageArgs) =>
  listConnection(
    args,
    tree.entries.filter((e) => e.type === type).map((e) => ({ ...e, project: tree.project, ref: tree.ref })),
  );

/** SubmoduleHelper#submodule_links: the submodule's repository page and its tree at the commit, from its `.gitmodules` URL. */
async function submoduleLinks(e: EntryRow, ctx: Context): Promise<[string | null, string | null]> {
  let url = (await ctx.services.repositories.reads.submoduleUrls(e.project, e.ref)).get(e.path);
  if (!url) return [null, null];
  const external = webUrl(ctx, '').replace(/\/$/, '');
  if (url === '.' || url === './') url = `${external}/${e.project.fullPath}`;
  const match = /([^/:]+)\/([^/]+?)(?:\.git)?$/.exec(url);
  if (!match) return [sanitized(url), null];
  if (url.startsWith('../') || url.startsWith('./')) {
    // Relative to the project's own URL: `../other` is a sibling project, `../../group/other` one in another namespace.
    const base = e.project.fullPath.split('/');
    for (const part of url.replace(/\.git$/, '').split('/')) {
      if (part === '..') base.pop();
      else if (part !== '.' && part !== '') base.push(part);
    }
    const target = base.join('/');
    return [`/${target}`, `/${target}/-/tree/${e.sha}`];
  }
  if (url.startsWith(`${external}/`)) {
    const path = url.slice(external.length + 1).replace(/\.git$/, '');
    return [`/${path}`, `/${path}/-/tree/${e.sha}`];
  }
  const [, namespace, project] = match;
  if (/github\.com[/:][^/]+\/[^/]+$/.test(url) && !/gist\.github\.com/.test(url)) {
    return [`https://github.com/${namespace}/${project}`, `https://github.com/${namespace}/${project}/tree/${e.sha}`];
  }
  if (/gitlab\.com[/:][^/]+\/[^/]+$/.test(url)) {
    return [`https://gitlab.com/${namespace}/${project}`, `https://gitlab.com/${namespace}/${project}/-/tree/${e.sha}`];
  }
  return [sanitized(url), null];
}

/** An http(s) URL without its credentials; null for any other URL (SubmoduleHelper#sanitize_submodule_url). */
function sanitized(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return null;
  }
}
