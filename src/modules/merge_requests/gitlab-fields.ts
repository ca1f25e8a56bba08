/**
 * MergeRequest fields of GitLab's MergeRequestType read from what the merge request, its git side, its versions,
 * notes, pipelines and to-do items hold: default commit messages, divergence, commits without merges and their
 * committers, commenters, diff versions oldest first, auto-merge strategies, CI, the source branch's protection,
 * threads, the viewer's to-do items, rendered title and description, and the approval state of GitLab Free.
 */
import type { Context } from '../../context.js';
import { usersByIds } from '../users/loaders.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { renderSingleLine } from '../../markdown.js';
import { TODO_MERGE_REQUEST } from '../todos/service.js';
import { ADD_TO_MERGE_TRAIN } from '../merge_trains/service.js';
import { mergeTrainsEnabled } from '../merge_trains/settings.js';
import { pipelineActive } from './auto_merge.js';
import { MERGE_REQUEST, type MergeRequestRow } from './service.js';

const git = (ctx: Context) => ctx.services.merge_requests.git;
const projectOf = (m: MergeRequestRow, ctx: Context) => ctx.services.merge_requests.projectOf(m);

/** The merge request's commits without merge commits (CommitCollection#without_merge_commits), newest first. */
async function commitsWithoutMerges(m: MergeRequestRow, ctx: Context) {
  return (await git(ctx).commitList(m)).filter((c) => c.parentIds.length <= 1);
}

/**
 * AutoMergeService#available_strategies for the viewer, in GitLab's order: who may merge into the target branch,
 * of an open merge request that is not broken; the merge trains' strategies where the project has them (merge when
 * the pipeline succeeds then is not offered), merge when the pipeline succeeds while the head pipeline runs.
 */
async function availableAutoMergeStrategies(m: MergeRequestRow, ctx: Context): Promise<string[]> {
  if (m.state !== 'opened') return [];
  const project = await projectOf(m, ctx);
  if (!ctx.viewer || !(await ctx.services.repositories.canMergeToBranch(project, m.targetBranch)) || (await git(ctx).broken(m))) return [];
  if (mergeTrainsEnabled(project)) {
    const trains = ctx.services.merge_trains;
    const strategies: string[] = [];
    if (await trains.available(project, m, 'merge_train')) strategies.push('merge_train');
    if (await trains.available(project, m, ADD_TO_MERGE_TRAIN)) strategies.push(ADD_TO_MERGE_TRAIN);
    return strategies;
  }
  const head = await ctx.services.pipelines.headForMergeRequest(m);
  return pipelineActive(head?.status) ? ['merge_when_pipeline_succeeds'] : [];
}

/** MergeRequest#has_ci?: commits to test, and a head pipeline or pipelines of its own. */
async function hasCi(m: MergeRequestRow, ctx: Context): Promise<boolean> {
  const version = await ctx.services.merge_requests.versions.latestOf(m);
  const hasCommits = version ? version.commitsCount > 0 : (await git(ctx).state(m)).hasCommits;
  if (!hasCommits) return false;
  if (await ctx.services.pipelines.headForMergeRequest(m)) return true;
  return ctx.loaders.merge_requests.hasPipelines.load(m.id);
}

const users = (ctx: Context, ids: readonly number[]) => usersByIds(ctx.loaders.users, ids);

export const mergeRequestGitlabFields = {
  defaultMergeCommitMessage: async (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).defaultMessage(await projectOf(m, ctx), m),
  defaultSquashCommitMessage: async (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).defaultSquashMessage(await projectOf(m, ctx), m),
  divergedCommitsCount: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).divergedCommitsCount(m),
  shouldBeRebased: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).shouldBeRebased(m),
  divergedFromTargetBranch: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).divergedFromTarget(m),
  commitsWithoutMergeCommits: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => listConnection(args, await commitsWithoutMerges(m, ctx)),
  // MergeRequest#committers: the users whose e-mail (primary or secondary) committed its commits, merges left out.
  committers: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => {
    const emails = [...new Set((await commitsWithoutMerges(m, ctx)).map((c) => c.committerEmail.toLowerCase()))];
    const found = await Promise.all(emails.map((email) => ctx.loaders.users.byAnyEmail.load(email)));
    const byId = new Map(found.filter((u) => u !== null).map((u) => [u.id, u]));
    return listConnection(args, [...byId.values()].sort((a, b) => a.id - b.id));
  },
  // Noteable#commenters: the authors of its comments (system notes left out), first comment first.
  commenters: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => listConnection(args, await users(ctx, await ctx.services.notes.commenterIds(MERGE_REQUEST, m.id, true))),
  mergeRequestDiffs: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => ctx.services.merge_requests.versions.list(await projectOf(m, ctx), m, args, 'asc'),
  // merge_when_pipeline_succeeds is GitLab's column behind auto_merge_enabled.
  mergeWhenPipelineSucceeds: (m: MergeRequestRow) => m.autoMergeEnabled,
  availableAutoMergeStrategies: (m: MergeRequestRow, _a: unknown, ctx: Context) => availableAutoMergeStrategies(m, ctx),
  preparedAt: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.loaders.merge_requests.preparedAt.load(m.id),
  hasCi: (m: MergeRequestRow, _a: unknown, ctx: Context) => hasCi(m, ctx),
  // MergeRequestType#source_branch_protected: a source project, and a protected branch rule matching the branch there.
  sourceBranchProtected: async (m: MergeRequestRow, _a: unknown, ctx: Context) => {
    const source = await git(ctx).sourceProjectOf(m);
    return !!source && (await ctx.services.repositories.branchProtection(source, m.sourceBranch)).protected;
  },
  // Merge requests have no internal notes: every thread counts.
  userDiscussionsCount: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.notes.userDiscussionsCount(MERGE_REQUEST, m.id, true),
  currentUserTodos: (m: MergeRequestRow, args: PageArgs & { state?: 'pending' | 'done' | null }, ctx: Context) =>
    ctx.services.todos.about({ type: TODO_MERGE_REQUEST, id: m.id }, args.state, args),
  titleHtml: (m: MergeRequestRow) => renderSingleLine(m.title),
  descriptionHtml: (m: MergeRequestRow, _a: unknown, ctx: Context) => (m.description ? ctx.services.notes.markdownHtml(ctx.services, m.description, m.projectId) : ''),
  // ApprovalState where approval rules are not a feature (GitLab Free: approval_feature_available? is false): no
  // rules, none overwritten, no approvers to suggest. Approvals themselves are the approvedBy field's.
  approvalState: () => ({ approvalRulesOverwritten: false, rules: [], invalidApproversRules: [] }),
};

export const mergeRequestApprovalStateResolvers = {
  suggestedApprovers: (_s: unknown, args: PageArgs) => listConnection(args, []),
};
