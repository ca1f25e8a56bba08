/** GraphQL resolvers of snippets; the REST routes run through them too. */
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import { shownWith } from '../../graphql/resolvers.js';
import type { ProjectRow } from '../projects/service.js';
import { isBinary, lfsPointer, plainHighlight, richViewer, simpleViewer, type ViewedFile } from '../repositories/blob-viewers.js';
import { SNIPPET_BRANCH, type SnippetAction, type SnippetFile, type SnippetFilters, type SnippetInput, type SnippetRow } from './service.js';

/** A file of a snippet at a ref, as SnippetBlob shows it. */
interface BlobSource {
  snippet: SnippetRow;
  ref: string;
  file: SnippetFile;
  /** Its bytes when already read. */
  content?: Buffer;
}

type ListArgs = Omit<SnippetFilters, 'scope' | 'type' | 'visibility'> & {
  scope?: 'AUTHORED' | 'EXPLORE' | null;
  explore?: boolean | null;
  type?: 'personal' | 'project' | null;
  visibility?: string | null;
} & PageArgs;

type MutationInput = SnippetInput & { projectPath?: string | null; blobActions?: SnippetAction[] | null; files?: { filePath?: string | null; content?: string | null }[] | null };

const typeName = (s: SnippetRow) => (s.projectId === null ? 'PersonalSnippet' : 'ProjectSnippet');

async function projectOf(ctx: Context, s: SnippetRow): Promise<ProjectRow | null> {
  return ctx.services.snippets.projectOf(s);
}

/** The snippet's web URL: `/-/snippets/<id>` or `/<project>/-/snippets/<id>`. */
async function webUrl(ctx: Context, s: SnippetRow): Promise<string> {
  const project = await projectOf(ctx, s);
  return `${ctx.config.externalUrl}/${project ? `${project.fullPath}/` : ''}-/snippets/${s.id}`;
}

/** Where its repository is cloned from: `/snippets/<id>.git` or `/<project>/snippets/<id>.git`. */
async function repoPath(ctx: Context, s: SnippetRow): Promise<string> {
  const project = await projectOf(ctx, s);
  return `${project ? `${project.fullPath}/` : ''}snippets/${s.id}.git`;
}

async function projectById(ctx: Context, path: string | null | undefined): Promise<ProjectRow | undefined> {
  return path == null ? undefined : ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));
}


/** A snippet file as the blob viewers see it (snippets keep no LFS objects: a pointer is shown as the file it is). */
async function viewed(ctx: Context, b: BlobSource): Promise<ViewedFile> {
  const content = await blobContent(ctx, b);
  return { path: b.file.path, size: content.length, binaryInRepo: isBinary(content), storedExternally: null };
}

/** GitLab's Markdown extensions (Gitlab::MarkupHelper::MARKDOWN_EXTENSIONS), rendered by richData. */
const MARKDOWN = /\.(mdown|mkd|mkdn|md|markdown|rmd)$/i;

async function blobContent(ctx: Context, b: BlobSource): Promise<Buffer> {
  return (b.content ??= await ctx.services.snippets.fileContent(b.snippet, b.ref, b.file.path));
}

function listFilters(args: ListArgs): SnippetFilters {
  return {
    scope: args.scope === 'AUTHORED' ? 'authored' : args.scope === 'EXPLORE' || args.explore ? 'explore' : null,
    ids: args.ids,
    authorId: args.authorId,
    projectId: args.projectId,
    type: args.type,
    visibility: args.visibility,
    createdAfter: args.createdAfter,
    createdBefore: args.createdBefore,
    repositoryStorage: args.repositoryStorage,
  };
}

function input(args: MutationInput): SnippetInput {
  return {
    title: args.title,
    description: args.description,
    visibilityLevel: args.visibilityLevel,
    blobActions: args.files ? args.files.map((f) => ({ action: 'create' as const, filePath: f.filePath, content: f.content })) : args.blobActions,
    fileName: args.fileName,
    content: args.content,
    uploadedFiles: args.uploadedFiles,
  };
}

export const snippetResolvers = {
  Query: {
    snippets: (_: unknown, args: ListArgs, ctx: Context) => ctx.services.snippets.list(listFilters(args), args),
    snippet: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.snippets.get(args.id),
    snippetUserAgentDetail: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.snippets.userAgentDetail(args.id),
  },
  Project: {
    snippets: (p: ProjectRow, args: ListArgs, ctx: Context) => ctx.services.snippets.listOfProject(p, listFilters(args), args),
    snippet: async (p: ProjectRow, args: { id: number }, ctx: Context) => {
      if (!(await ctx.access.can('read_project_snippets', p))) return null;
      return ctx.services.snippets.get(args.id, p);
    },
  },
  Mutation: {
    createSnippet: async (_: unknown, args: MutationInput, ctx: Context) => {
      const project = (await projectById(ctx, args.projectPath)) ?? null;
      return { snippet: await ctx.services.snippets.create(project, input(args)) };
    },
    updateSnippet: async (_: unknown, args: MutationInput & { id: number; authoredOnly?: boolean | null }, ctx: Context) => {
      const row = await ctx.services.snippets.get(args.id, await projectById(ctx, args.projectPath), !!args.authoredOnly);
      return { snippet: await ctx.services.snippets.update(row, input(args)) };
    },
    destroySnippet: async (_: unknown, args: { id: number; projectPath?: string | null; authoredOnly?: boolean | null }, ctx: Context) => {
      const row = await ctx.services.snippets.get(args.id, await projectById(ctx, args.projectPath), !!args.authoredOnly);
      await ctx.services.snippets.destroy(row);
      return { snippet: null };
    },
  },
  Snippet: {
    id: (s: SnippetRow) => globalId(typeName(s), s.id),
    databaseId: (s: SnippetRow) => s.id,
    visibilityLevel: (s: SnippetRow) => s.visibility,
    descriptionHtml: (s: SnippetRow, _a: unknown, ctx: Context) => ctx.services.notes.markdownHtml(ctx.services, s.description ?? '', s.projectId),
    author: (s: SnippetRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(s.authorId),
    project: (s: SnippetRow, _a: unknown, ctx: Context) => projectOf(ctx, s),
    fileName: async (s: SnippetRow, _a: unknown, ctx: Context) => (await ctx.services.snippets.files(s))[0]?.path ?? '',
    webUrl: (s: SnippetRow, _a: unknown, ctx: Context) => webUrl(ctx, s),
    rawUrl: async (s: SnippetRow, _a: unknown, ctx: Context) => `${await webUrl(ctx, s)}/raw`,
    httpUrlToRepo: async (s: SnippetRow, _a: unknown, ctx: Context) => `${ctx.config.externalUrl}/${await repoPath(ctx, s)}`,
    sshUrlToRepo: async (s: SnippetRow, _a: unknown, ctx: Context) => `git@${new URL(ctx.config.externalUrl).hostname}:${await repoPath(ctx, s)}`,
    repositoryStorage: shownWith('admin_all_resources', () => null, (s: SnippetRow) => s.repositoryStorage),
    imported: () => false,
    importedFrom: () => 'none',
    hidden: () => false,
    expiresAt: () => null,
    blobs: async (s: SnippetRow, args: { paths?: string[] | null } & PageArgs, ctx: Context) => {
      const files = await ctx.services.snippets.files(s);
      const shown = args.paths ? files.filter((f) => args.paths!.includes(f.path)) : files;
      // GitLab's BlobsResolver flags paths it could not read (a path the snippet lacks reads as nil).
      const unretrievable = !!args.paths && args.paths.some((path) => !files.some((f) => f.path === path));
      return Object.assign(listConnection<BlobSource>(args, shown.map((file) => ({ snippet: s, ref: SNIPPET_BRANCH, file }))), { hasUnretrievableBlobs: unretrievable });
    },
    blob: async (s: SnippetRow, args: { ref: string; path: string }, ctx: Context): Promise<BlobSource> => {
      const content = await ctx.services.snippets.fileContent(s, args.ref, args.path);
      return { snippet: s, ref: args.ref, file: { path: args.path, sha: '', mode: '100644', size: content.length }, content };
    },
    rawBlob: async (s: SnippetRow, _a: unknown, ctx: Context): Promise<BlobSource> => {
      const { path, content } = await ctx.services.snippets.rawContent(s);
      return { snippet: s, ref: SNIPPET_BRANCH, file: { path, sha: '', mode: '100644', size: content.length }, content };
    },
    userAgentDetail: (s: SnippetRow, _a: unknown, ctx: Context) => ctx.services.snippets.userAgentDetail(s.id),
    userPermissions: async (s: SnippetRow, _a: unknown, ctx: Context) => {
      const [readSnippet, updateSnippet, adminSnippet] = await Promise.all([
        ctx.services.snippets.can('read_snippet', s),
        ctx.services.snippets.can('update_snippet', s),
        ctx.services.snippets.can('admin_snippet', s),
      ]);
      return { readSnippet, updateSnippet, adminSnippet };
    },
  },
  SnippetBlob: {
    path: (b: BlobSource) => b.file.path,
    name: (b: BlobSource) => b.file.path.split('/').pop() ?? b.file.path,
    size: (b: BlobSource) => b.file.size,
    mode: (b: BlobSource) => b.file.mode,
    binary: async (b: BlobSource, _a: unknown, ctx: Context) => isBinary(await blobContent(ctx, b)),
    rawPath: async (b: BlobSource, _a: unknown, ctx: Context) =>
      `${(await webUrl(ctx, b.snippet)).slice(ctx.config.externalUrl.length)}/raw/${b.ref}/${b.file.path}`,
    rawUrl: async (b: BlobSource, _a: unknown, ctx: Context) => `${await webUrl(ctx, b.snippet)}/raw/${b.ref}/${b.file.path}`,
    rawPlainData: async (b: BlobSource, _a: unknown, ctx: Context) => {
      const content = await blobContent(ctx, b);
      return isBinary(content) ? null : content.toString('utf8');
    },
    base64Content: async (b: BlobSource, _a: unknown, ctx: Context) => (await blobContent(ctx, b)).toString('base64'),
    contentType: () => 'text/plain; charset=utf-8',
    externalStorage: async (b: BlobSource, _a: unknown, ctx: Context) => (lfsPointer(await blobContent(ctx, b)) ? 'lfs' : null),
    plainData: async (b: BlobSource, _a: unknown, ctx: Context) => {
      const content = await blobContent(ctx, b);
      return isBinary(content) ? null : plainHighlight(b.file.path, content.toString('utf8'));
    },
    renderedAsText: async (b: BlobSource, _a: unknown, ctx: Context) => simpleViewer(await viewed(ctx, b)).fileType === 'text',
    simpleViewer: async (b: BlobSource, _a: unknown, ctx: Context) => simpleViewer(await viewed(ctx, b)),
    richViewer: async (b: BlobSource, _a: unknown, ctx: Context) => richViewer(await viewed(ctx, b)),
    richData: async (b: BlobSource, _a: unknown, ctx: Context) => {
      const viewer = richViewer(await viewed(ctx, b));
      if (viewer?.fileType !== 'markup' || !MARKDOWN.test(b.file.path)) return null;
      return ctx.services.notes.markdownHtml(ctx.services, (await blobContent(ctx, b)).toString('utf8'), b.snippet.projectId);
    },
  },
};
