/** GraphQL resolvers of the repository's history: blame, a commit's diff, refs, signature and merge requests, merge bases, contributors, cherry-picks and reverts. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import type { ProjectRow } from '../projects/service.js';
import type { SignatureRow } from './history.js';

interface ChangeArgs {
  projectId: string;
  sha: string;
  branch: string;
  dryRun?: boolean | null;
  message?: string | null;
}

const project = (ctx: Context, id: string) => ctx.services.projects.get(parseRef(id, 'Project', 'projectId'));

export const repositoryHistoryResolvers = {
  Mutation: {
    repositoryCommitCherryPick: async (_: unknown, args: ChangeArgs, ctx: Context) =>
      ctx.services.repositories.history.change(await project(ctx, args.projectId), 'cherryPick', args.sha, args.branch, { dryRun: args.dryRun, message: args.message }),
    repositoryCommitRevert: async (_: unknown, args: ChangeArgs, ctx: Context) =>
      ctx.services.repositories.history.change(await project(ctx, args.projectId), 'revert', args.sha, args.branch, { dryRun: args.dryRun }),
  },
  Repository: {
    blame: (p: ProjectRow, args: { filePath: string; ref: string; range?: { start: number; end: number } | null }, ctx: Context) =>
      ctx.services.repositories.history.blame(p, args.filePath, args.ref, args.range?.start, args.range?.end),
    commitDiff: (p: ProjectRow, args: { sha: string; unidiff?: boolean | null } & PageArgs, ctx: Context) => ctx.services.repositories.history.diff(p, args.sha, args.unidiff ?? false, args),
    commitRefs: (p: ProjectRow, args: { sha: string; type?: 'branch' | 'tag' | 'all' | null } & PageArgs, ctx: Context) =>
      ctx.services.repositories.history.refs(p, args.sha, args.type ?? 'all', args),
    commitSignature: (p: ProjectRow, args: { sha: string }, ctx: Context) => ctx.services.repositories.history.signature(p, args.sha),
    commitMergeRequests: (p: ProjectRow, args: { sha: string } & PageArgs, ctx: Context) => ctx.services.repositories.history.mergeRequests(p, args.sha, args),
    mergeBase: (p: ProjectRow, args: { refs: string[] }, ctx: Context) => ctx.services.repositories.history.mergeBase(p, args.refs),
    contributors: (p: ProjectRow, args: { ref?: string | null; orderBy?: 'name' | 'email' | 'commits' | null; sort?: 'asc' | 'desc' | null } & PageArgs, ctx: Context) =>
      ctx.services.repositories.history.contributors(p, args.ref, args.orderBy ?? 'commits', args.sort ?? 'asc', args),
  },
  // Internal values are REST's words, as Grape's entity shows them.
  VerificationStatus: Object.fromEntries(
    ['multiple_signatures', 'other_user', 'revoked_key', 'same_user_different_email', 'unknown_key', 'unverified', 'unverified_key', 'verified', 'verified_system'].map((v) => [v.toUpperCase(), v]),
  ),
  CommitSignature: {
    __resolveType: (s: SignatureRow) => ({ gpg: 'GpgSignature', ssh: 'SshSignature', x509: 'X509Signature' })[s.kind],
  },
  GpgSignature: {
    gpgKeyId: () => null,
    commitSource: () => 'gitaly',
  },
  SshSignature: {
    commitSource: () => 'gitaly',
    user: (s: SignatureRow, _a: unknown, ctx: Context) => (s.userId ? ctx.loaders.users.byId.load(s.userId) : null),
  },
  X509Signature: { commitSource: () => 'gitaly' },
};
