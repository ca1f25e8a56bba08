/** GraphQL resolvers of repositories: `Project.repository`, GitLab's `Repository` fields, commits, refs and files. */
import { basename } from 'node:path';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { webUrl } from '../../graphql/resolvers.js';
import { commitFullTitle, commitTitle, type TreeEntry } from '../../git/repository.js';
import type { ProjectRow } from '../projects/service.js';
import { hashedPath } from '../../git/storages.js';
import { badRequest } from '../../errors.js';
import { renderSingleLine } from '../../markdown.js';
import { blobResolvers, entriesOf, paginatedTree, type TreeRow } from './blob-resolvers.js';
import { isBinary } from './blob-viewers.js';
import { contentSha256, listConnection, type BlobRow, type CommitFilters, type CommitRow, type FileRow, type RefRow } from './reads.js';
import type { CommitActionInput, CommitInput, FileWriteInput } from './writes.js';

interface TreeArgs {
  path?: string | null;
  ref?: string | null;
  refType?: 'HEADS' | 'TAGS' | null;
  recursive?: boolean | null;
}

/** A tree with what its entries' paths and last commit need (the ref as asked, GitLab's tree commit_id). */
async function treeRow(p: ProjectRow, args: TreeArgs, ctx: Context): Promise<TreeRow | null> {
  const ref = args.ref || p.defaultBranch;
  const revision = args.refType ? `${args.refType === 'HEADS' ? 'refs/heads/' : 'refs/tags/'}${ref}` : ref;
  const entries = await ctx.services.repositories.reads.tree(p, revision, args.path, args.recursive ?? false);
  return entries && { project: p, ref, path: (args.path ?? '').replace(/\/+$/, ''), entries };
}

/** `commitCreate`'s input fields (the relay wrapper, src/graphql/mutations.ts, hands them over as arguments). */
interface CommitCreateArgs {
  projectPath: string;
  branch: string;
  startBranch?: string | null;
  message: string;
  actions: CommitActionInput[];
}

/** GitLab's Commit#description: the whole message when the title was cut, else what follows the first line (null for nothing). */
function commitDescription(c: CommitRow): string | null {
  return commitTitle(c.message) !== commitFullTitle(c.message) ? c.message : c.message.split('\n').slice(1).join('\n').trim() || null;
}

/** Commits whose `diffs` one request may ask for, and the files listed per commit (a page's most). */
const DIFF_CALL_LIMIT = 10;
const MAX_DIFF_FILES = 100;
const diffCalls = new WeakMap<Context, number>();

const project = (ctx: Context, id: string) => ctx.services.projects.get(parseRef(id, 'Project', 'projectId'));

const contentType = (content: Buffer) => (isBinary(content) ? 'application/octet-stream' : 'text/plain; charset=utf-8');

const entryFields = {
  name: (e: TreeEntry) => basename(e.path),
  flatPath: (e: TreeEntry) => e.path,
};


export const repositoryResolvers = {
  Query: {
    projectRepository: async (_: unknown, args: { projectId: string }, ctx: Context) => {
      const row = await project(ctx, args.projectId);
      await ctx.services.repositories.authorizeRead(row);
      return row;
    },
  },
  Mutation: {
    commitCreate: async (_: unknown, args: CommitCreateArgs, ctx: Context) => {
      const row = await project(ctx, args.projectPath);
      const input = { branch: args.branch, startBranch: args.startBranch, commitMessage: args.message, actions: args.actions };
      const commit = await ctx.services.repositories.writes.createCommit(row, input);
      // GitLab's CommitCreate answers the actions' contents and the ETag path its pages poll for the commit's pipeline.
      return { commit, commitPipelinePath: `/api/graphql:pipelines/sha/${commit.sha}`, content: args.actions.map((a) => a.content ?? '') };
    },
    repositoryCommitCreate: async (_: unknown, args: { projectId: string; input: CommitInput }, ctx: Context) => ({
      commit: await ctx.services.repositories.writes.createCommit(await project(ctx, args.projectId), args.input, { api: 'commits' }),
    }),
    repositoryFileCreate: async (_: unknown, args: { projectId: string; input: FileWriteInput }, ctx: Context) => ({
      repositoryFileCommit: await ctx.services.repositories.writes.writeFile(await project(ctx, args.projectId), 'CREATE', args.input),
    }),
    repositoryFileUpdate: async (_: unknown, args: { projectId: string; input: FileWriteInput }, ctx: Context) => ({
      repositoryFileCommit: await ctx.services.repositories.writes.writeFile(await project(ctx, args.projectId), 'UPDATE', args.input),
    }),
    repositoryFileDelete: async (_: unknown, args: { projectId: string; input: FileWriteInput }, ctx: Context) => ({
      repositoryFileCommit: await ctx.services.repositories.writes.writeFile(await project(ctx, args.projectId), 'DELETE', args.input),
    }),
    repositoryBranchCreate: async (_: unknown, args: { projectId: string; branch: string; ref: string }, ctx: Context) => ({
      branch: await ctx.services.repositories.writes.createBranch(await project(ctx, args.projectId), args.branch, args.ref),
    }),
    repositoryBranchDelete: async (_: unknown, args: { projectId: string; branch: string }, ctx: Context) => ({
      branch: await ctx.services.repositories.writes.deleteBranch(await project(ctx, args.projectId), args.branch),
    }),
    repositoryTagCreate: async (_: unknown, args: { projectId: string; tagName: string; ref: string; message?: string | null }, ctx: Context) => ({
      tag: await ctx.services.repositories.writes.createTag(await project(ctx, args.projectId), args.tagName, args.ref, args.message),
    }),
    repositoryTagDelete: async (_: unknown, args: { projectId: string; tagName: string }, ctx: Context) => ({
      tag: await ctx.services.repositories.writes.deleteTag(await project(ctx, args.projectId), args.tagName),
    }),
  },
  Project: {
    repository: async (p: ProjectRow, _a: unknown, ctx: Context) => ((await ctx.access.can('download_code', p)) ? p : null),
    languages: async (p: ProjectRow, _a: unknown, ctx: Context) => ((await ctx.access.can('download_code', p)) ? ctx.services.repositories.reads.languages(p) : null),
  },
  Repository: {
    rootRef: (p: ProjectRow) => (p.emptyRepo ? null : p.defaultBranch),
    empty: (p: ProjectRow) => p.emptyRepo,
    exists: (p: ProjectRow, _a: unknown, ctx: Context) => ctx.services.repositories.exists(p),
    tree: (p: ProjectRow, args: TreeArgs, ctx: Context) => treeRow(p, args, ctx),
    paginatedTree: async (p: ProjectRow, args: TreeArgs & PageArgs, ctx: Context) => paginatedTree(await treeRow(p, args, ctx), args),
    branchNames: (p: ProjectRow, args: { searchPattern: string; offset: number; limit: number }, ctx: Context) =>
      ctx.services.repositories.reads.branchNames(p, args.searchPattern, args.offset, args.limit),
    // GitLab's read_storage_disk_path: administrators only; the hashed path without `.git`.
    diskPath: (p: ProjectRow, _a: unknown, ctx: Context) => (ctx.access.allowed('admin_all_resources') ? hashedPath(p.id).replace(/\.git$/, '') : null),
    treeEntries: (p: ProjectRow, args: TreeArgs & PageArgs, ctx: Context) => ctx.services.repositories.reads.treeConnection(p, args.ref, args.path, args.recursive ?? false, args),
    blobs: async (p: ProjectRow, args: { paths: string[]; ref?: string | null; refType?: 'HEADS' | 'TAGS' | null }, ctx: Context) =>
      listConnection({ first: 100 }, await ctx.services.repositories.reads.blobs(p, args.paths, args.ref, args.refType)),
    blob: (p: ProjectRow, args: { sha: string }, ctx: Context) => ctx.services.repositories.reads.blob(p, args.sha),
    commits: (p: ProjectRow, args: CommitFilters & PageArgs, ctx: Context) => ctx.services.repositories.reads.commits(p, args, args),
    commit: (p: ProjectRow, args: { ref: string }, ctx: Context) => ctx.services.repositories.reads.commit(p, args.ref),
    file: (p: ProjectRow, args: { filePath: string; ref?: string | null }, ctx: Context) => ctx.services.repositories.reads.file(p, args.filePath, args.ref),
    branches: async (p: ProjectRow, args: { search?: string | null } & PageArgs, ctx: Context) => listConnection(args, await ctx.services.repositories.reads.branches(p, args.search)),
    branch: (p: ProjectRow, args: { name: string }, ctx: Context) => ctx.services.repositories.reads.branch(p, args.name),
    tags: async (p: ProjectRow, args: { search?: string | null; orderBy?: 'name' | 'updated' | null; sort?: 'ASC' | 'DESC' | null } & PageArgs, ctx: Context) =>
      listConnection(args, await ctx.services.repositories.reads.tags(p, args.search, args.orderBy, args.sort)),
    tag: (p: ProjectRow, args: { name: string }, ctx: Context) => ctx.services.repositories.reads.tag(p, args.name),
    compare: (p: ProjectRow, args: { from: string; to: string; straight?: boolean | null }, ctx: Context) => ctx.services.repositories.reads.compare(p, args.from, args.to, args.straight ?? false),
  },
  Tree: {
    trees: entriesOf('tree'),
    blobs: entriesOf('blob'),
    submodules: entriesOf('commit'),
    ...blobResolvers.Tree,
  },
  TreeEntry: { ...entryFields, ...blobResolvers.TreeEntry },
  Blob: { ...entryFields, ...blobResolvers.Blob },
  Submodule: { ...entryFields, ...blobResolvers.Submodule },
  RepositoryBlob: {
    ...blobResolvers.RepositoryBlob,
    base64Content: (b: BlobRow) => b.content.toString('base64'),
    encoding: () => 'base64',
    contentType: (b: BlobRow) => contentType(b.content),
  },
  RepositoryFile: {
    fileName: (f: FileRow) => basename(f.filePath),
    size: (f: FileRow) => f.content.length,
    encoding: () => 'base64',
    contentSha256: (f: FileRow) => contentSha256(f.content),
    executeFilemode: (f: FileRow) => f.mode === '100755',
    content: (f: FileRow) => f.content.toString('base64'),
    contentType: (f: FileRow) => contentType(f.content),
  },
  Commit: {
    id: (c: CommitRow) => `gid://gitlab/Commit/${c.sha}`,
    author: (c: CommitRow, _a: unknown, ctx: Context) => (c.authorEmail ? ctx.loaders.users.byAnyEmail.load(c.authorEmail) : null),
    // GravatarService#execute with Gravatar disabled: the server reaches no outside service.
    authorGravatar: () => null,
    shortId: (c: CommitRow) => c.sha.slice(0, 11),
    title: (c: CommitRow) => commitTitle(c.message),
    fullTitle: (c: CommitRow) => commitFullTitle(c.message),
    // GitLab's Commit#description: the whole message when the title was cut.
    description: commitDescription,
    createdAt: (c: CommitRow) => c.committedDate,
    stats: (c: CommitRow, _a: unknown, ctx: Context) => ctx.services.repositories.reads.stats(c),
    projectId: (c: CommitRow) => c.project.id,
    webUrl: (c: CommitRow, _a: unknown, ctx: Context) => webUrl(ctx, `${c.project.fullPath}/-/commit/${c.sha}`),
    webPath: (c: CommitRow) => `/${c.project.fullPath}/-/commit/${c.sha}`,
    titleHtml: (c: CommitRow) => renderSingleLine(commitTitle(c.message)),
    fullTitleHtml: (c: CommitRow) => renderSingleLine(commitFullTitle(c.message)),
    descriptionHtml: (c: CommitRow, _a: unknown, ctx: Context) => {
      const description = commitDescription(c);
      return description === null ? null : ctx.services.notes.markdownHtml(ctx.services, description, c.project.id);
    },
    diffs: async (c: CommitRow, _a: unknown, ctx: Context) => {
      // GitLab's FieldCallCount limit: diffs of at most 10 commits per request.
      const calls = (diffCalls.get(ctx) ?? 0) + 1;
      diffCalls.set(ctx, calls);
      if (calls > DIFF_CALL_LIMIT) throw badRequest(`'diffs' field can be requested only for ${DIFF_CALL_LIMIT} Commit(s) at a time.`);
      return (await ctx.services.repositories.history.diff(c.project, c.sha, false, { first: MAX_DIFF_FILES })).nodes;
    },
    signature: (c: CommitRow, _a: unknown, ctx: Context) => ctx.services.repositories.history.signatureOf(c),
  },
  Branch: {
    merged: (b: RefRow, _a: unknown, ctx: Context) => ctx.services.repositories.reads.isMerged(b),
    protected: async (b: RefRow, _a: unknown, ctx: Context) => (await ctx.services.repositories.branchProtection(b.project, b.name)).protected,
    developersCanPush: async (b: RefRow, _a: unknown, ctx: Context) => (await ctx.services.repositories.branchProtection(b.project, b.name)).developersCanPush,
    developersCanMerge: async (b: RefRow, _a: unknown, ctx: Context) => (await ctx.services.repositories.branchProtection(b.project, b.name)).developersCanMerge,
    canPush: async (b: RefRow, _a: unknown, ctx: Context) => (await ctx.services.repositories.branchProtection(b.project, b.name)).canPush,
    default: (b: RefRow) => b.name === b.project.defaultBranch,
    webUrl: (b: RefRow, _a: unknown, ctx: Context) => webUrl(ctx, `${b.project.fullPath}/-/tree/${b.name}`),
  },
  Tag: {
    protected: () => false,
  },
  Compare: {
    webUrl: (c: { project: ProjectRow; from: string; to: string }, _a: unknown, ctx: Context) => webUrl(ctx, `${c.project.fullPath}/-/compare/${c.from}...${c.to}`),
  },
  Diff: {
    collapsed: (d: { collapsed?: boolean }) => d.collapsed ?? false,
    tooLarge: (d: { tooLarge?: boolean }) => d.tooLarge ?? false,
    generatedFile: () => false,
  },
};
