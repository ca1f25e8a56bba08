/**
 * Resolvers of merge request diff versions (versions.ts): the MergeRequest fields that list and find them, their
 * diff stats, and the MergeRequestDiff type (GitLab's Entities::MergeRequestDiff and MergeRequestDiffFull).
 */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId } from '../../graphql/ids.js';
import { unidiff } from '../repositories/history.js';
import type { MergeRequestRow } from './service.js';
import type { VersionView } from './versions.js';

const versions = (ctx: Context) => ctx.services.merge_requests.versions;

/** The merge request's diff stats between its diff refs (MergeRequest#diff_stats). */
async function statsOf(m: MergeRequestRow, ctx: Context) {
  const project = await ctx.services.merge_requests.projectOf(m);
  return versions(ctx).diffStats(project, await ctx.services.merge_requests.git.diffRefs(m));
}

export const mergeRequestVersionFields = {
  diffVersions: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => versions(ctx).list(await ctx.services.merge_requests.projectOf(m), m, args),
  diffVersion: async (m: MergeRequestRow, args: { id: number }, ctx: Context): Promise<VersionView> => {
    const [project, version] = await Promise.all([ctx.services.merge_requests.projectOf(m), versions(ctx).find(m, args.id)]);
    return { ...version, project };
  },
  diffStats: async (m: MergeRequestRow, args: { path?: string | null }, ctx: Context) => {
    const stats = await statsOf(m, ctx);
    return args.path ? stats.filter((s) => s.path === args.path) : stats;
  },
  // MergeRequestDiffSummaryBatchLoader: the stats summed, and how many files they name.
  diffStatsSummary: async (m: MergeRequestRow, _a: unknown, ctx: Context) => {
    const stats = await statsOf(m, ctx);
    const additions = stats.reduce((n, s) => n + s.additions, 0);
    const deletions = stats.reduce((n, s) => n + s.deletions, 0);
    return { additions, deletions, changes: additions + deletions, fileCount: stats.length };
  },
};

export const mergeRequestDiffResolvers = {
  id: (v: VersionView) => globalId('MergeRequestDiff', v.id),
  databaseId: (v: VersionView) => v.id,
  // A version is written once, never changed after (its diff and commits are read from its refs): updated when created.
  updatedAt: (v: VersionView) => v.createdAt,
  commits: (v: VersionView, _a: unknown, ctx: Context) => versions(ctx).commits(v.project, v),
  diffs: async (v: VersionView, args: { unidiff?: boolean | null }, ctx: Context) => (await versions(ctx).diffs(v.project, v)).map((d) => (args.unidiff ? unidiff(d) : d)),
};
