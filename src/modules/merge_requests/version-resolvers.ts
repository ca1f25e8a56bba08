/**
 * Resolvers of merge request diff versions (versions.ts): the MergeRequest fields that list and find them, the raw
 * diff, and the MergeRequestDiff type (GitLab's Entities::MergeRequestDiff and MergeRequestDiffFull).
 */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId } from '../../graphql/ids.js';
import { unidiff } from '../repositories/history.js';
import type { MergeRequestRow } from './service.js';
import type { VersionView } from './versions.js';

const versions = (ctx: Context) => ctx.services.merge_requests.versions;

/** GitLab's Gitlab::NoCacheHeaders (`no_cache_headers` of `raw_diffs`). */
const NO_CACHE = 'max-age=0, private, must-revalidate, no-store, no-cache';
const EXPIRED = 'Fri, 01 Jan 1990 00:00:00 GMT';

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
  rawDiffs: async (m: MergeRequestRow, _a: unknown, ctx: Context) => {
    const project = await ctx.services.merge_requests.projectOf(m);
    const diff = await versions(ctx).rawDiff(project, await ctx.services.merge_requests.git.diffRefs(m));
    // Grape's default format names the body (send_git_diff sets no content type of its own; Workhorse keeps it).
    return { diff, contentType: 'application/json', contentDisposition: 'inline', cacheControl: NO_CACHE, expires: EXPIRED };
  },
};

/** The raw diff's text or bytes, each made only when asked (REST asks for the bytes alone). */
export const mergeRequestRawDiffResolvers = {
  text: (d: { diff: Buffer }) => d.diff.toString('utf8'),
  encoded: (d: { diff: Buffer }) => d.diff.toString('base64'),
};

export const mergeRequestDiffResolvers = {
  id: (v: VersionView) => globalId('MergeRequestDiff', v.id),
  databaseId: (v: VersionView) => v.id,
  commits: (v: VersionView, _a: unknown, ctx: Context) => versions(ctx).commits(v.project, v),
  diffs: async (v: VersionView, args: { unidiff?: boolean | null }, ctx: Context) => (await versions(ctx).diffs(v.project, v)).map((d) => (args.unidiff ? unidiff(d) : d)),
};
