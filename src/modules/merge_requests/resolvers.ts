/** GraphQL resolvers of merge requests; the REST routes run through them too. */
import type { Context } from '../../context.js';
import { usersByIds } from '../users/loaders.js';
import { cannotCancel, setAutoMerge } from './auto_merge.js';
import { invalidArgument } from '../../errors.js';
import { connection, listConnection, type PageArgs } from '../../graphql/connection.js';
import { unidiff } from '../repositories/history.js';
import { globalId, iidOf, parseRef } from '../../graphql/ids.js';
import { lowerEnum, webUrl } from '../../graphql/resolvers.js';
import { humanDuration, timeEstimateArgument, trackTime, type TimeTrackingInput } from '../issues/durations.js';
import { legacyAssignees, splitNames } from '../issues/service.js';
import { labelInParent } from '../labels/loaders.js';
import { milestoneParent } from '../milestones/resolvers.js';
import type { MilestoneRow } from '../milestones/service.js';
import type { IssueRow } from '../issues/service.js';
import type { LabelView } from '../labels/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { refused } from '../../errors.js';
import { MERGE_REQUEST_SUBSCRIPTIONS } from './live.js';
import { MERGE_REQUEST, type MergeRequestChanges, type MergeRequestFilters, type MergeRequestOrderBy, type MergeRequestRow, type MergeRequestScope } from './service.js';
import { participant } from '../subscriptions/service.js';
import { noteableFields } from '../notes/resolvers.js';
import { mergeRequestDiffResolvers, mergeRequestVersionFields } from './version-resolvers.js';
import { mergeRequestApprovalStateResolvers, mergeRequestGitlabFields } from './gitlab-fields.js';
import { contextCommitFields, contextCommitMutations } from './context-commits.js';
import { asMergeRequestUser, INTERACTING_WITH, type Interaction, type MergeRequestUser } from './interactions.js';

export interface ListArgs extends PageArgs {
  iids?: string[] | null;
  sourceBranches?: (string | null)[] | null;
  targetBranches?: (string | null)[] | null;
  state?: MergeRequestFilters['state'];
  draft?: boolean | null;
  wip?: string | null;
  labels?: string[] | null;
  milestoneTitle?: string | null;
  sort?: string | null;
  authorUsername?: string | null;
  assigneeUsername?: string | null;
  reviewerUsername?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  search?: string | null;
  authorId?: number | null;
  assigneeId?: string | null;
  reviewerId?: string | null;
  scope?: MergeRequestFilters['scope'];
  orderBy?: MergeRequestOrderBy | null;
  direction?: 'ASC' | 'DESC' | null;
}

/** GitLab's MergeRequestSort values as REST's order_by and sort. */
const SORTS: Record<string, [MergeRequestOrderBy, 'asc' | 'desc']> = {
  CREATED_DESC: ['created_at', 'desc'],
  CREATED_ASC: ['created_at', 'asc'],
  UPDATED_DESC: ['updated_at', 'desc'],
  UPDATED_ASC: ['updated_at', 'asc'],
  created_desc: ['created_at', 'desc'],
  created_asc: ['created_at', 'asc'],
  updated_desc: ['updated_at', 'desc'],
  updated_asc: ['updated_at', 'asc'],
  MERGED_AT_ASC: ['merged_at', 'asc'],
  MERGED_AT_DESC: ['merged_at', 'desc'],
  CLOSED_AT_ASC: ['closed_at', 'asc'],
  CLOSED_AT_DESC: ['closed_at', 'desc'],
  TITLE_ASC: ['title', 'asc'],
  TITLE_DESC: ['title', 'desc'],
  PRIORITY_ASC: ['priority', 'asc'],
  PRIORITY_DESC: ['priority', 'desc'],
  LABEL_PRIORITY_ASC: ['label_priority', 'asc'],
  LABEL_PRIORITY_DESC: ['label_priority', 'desc'],
  MILESTONE_DUE_ASC: ['milestone_due', 'asc'],
  MILESTONE_DUE_DESC: ['milestone_due', 'desc'],
};

export function filtersOf(args: ListArgs): MergeRequestFilters {
  const [sortBy, sortDirection] = SORTS[args.sort ?? 'CREATED_DESC'] ?? SORTS.CREATED_DESC;
  const iids = args.iids?.map((iid) => {
    if (!/^\d{1,9}$/.test(iid)) throw invalidArgument('iids');
    return Number(iid);
  });
  return {
    state: args.state,
    labels: splitNames(args.labels),
    milestone: args.milestoneTitle,
    authorId: args.authorId,
    authorUsername: args.authorUsername,
    assigneeId: args.assigneeId,
    assigneeUsername: args.assigneeUsername,
    reviewerId: args.reviewerId,
    reviewerUsername: args.reviewerUsername,
    sourceBranches: args.sourceBranches?.filter((b): b is string => b !== null),
    targetBranches: args.targetBranches?.filter((b): b is string => b !== null),
    search: args.search,
    scope: args.scope,
    createdAfter: args.createdAfter,
    createdBefore: args.createdBefore,
    updatedAfter: args.updatedAfter,
    updatedBefore: args.updatedBefore,
    iids,
    draft: args.draft ?? (args.wip == null ? null : args.wip === 'yes' ? true : args.wip === 'no' ? false : wipRefused()),
    orderBy: args.orderBy ?? sortBy,
    sort: args.direction ? (args.direction.toLowerCase() as 'asc' | 'desc') : args.orderBy ? 'desc' : sortDirection,
  };
}

/** Gitlab::Utils.to_boolean: true and false, or their spellings `true`/`1` and `false`/`0`; null otherwise. */
function toBoolean(value: unknown): boolean | null {
  if (value === true || value === 'true' || value === '1' || value === 1) return true;
  if (value === false || value === 'false' || value === '0' || value === 0) return false;
  return null;
}

const wipRefused = (): never => {
  throw invalidArgument('wip');
};

const list = (scope: MergeRequestScope, args: ListArgs, ctx: Context) => ctx.services.merge_requests.list(scope, filtersOf(args), args);


const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));
const projectOfMr = async (mr: MergeRequestRow, ctx: Context): Promise<ProjectRow> => (await ctx.loaders.projects.byId.load(mr.projectId))!;

const user = (ctx: Context, id: number | null | undefined) => (id == null ? null : ctx.loaders.users.byId.load(id));
const users = (ctx: Context, ids: readonly number[]) => usersByIds(ctx.loaders.users, ids);

/** Users as one of the merge request's user types (MergeRequestAuthor, …): UserCore's row, with the merge request beside it. */
const mrUser = async (ctx: Context, mr: MergeRequestRow, id: number | null) => {
  const found = await user(ctx, id);
  return found && asMergeRequestUser(found, mr);
};
const mrUsers = async (ctx: Context, mr: MergeRequestRow, ids: readonly number[]) => (await users(ctx, ids)).map((u) => asMergeRequestUser(u, mr));

/** UserMergeRequestInteraction of the user object of one of the merge request's user types. */
const interaction = (u: MergeRequestUser<{ id: number }>): Interaction => ({ userId: u.id, mergeRequest: u[INTERACTING_WITH] });
const interactionField = { mergeRequestInteraction: interaction };
const interactions = (ctx: Context) => ctx.services.merge_requests.interactions;

/** Task list items of a description (`- [ ]`, `* [x]`, `1. [ ]`), as GitLab's TaskList counts them. */
function tasks(description: string | null): { count: number; completed: number } {
  const items = description?.match(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[ xX]\][ \t]/gm) ?? [];
  return { count: items.length, completed: items.filter((i) => /\[[xX]\]/.test(i)).length };
}

async function path(mr: MergeRequestRow, ctx: Context): Promise<string> {
  return `${(await projectOfMr(mr, ctx)).fullPath}/-/merge_requests/${mr.iid}`;
}

const git = (ctx: Context) => ctx.services.merge_requests.git;

interface MrIid {
  projectPath: string;
  iid: string;
}

type Mode = 'REPLACE' | 'APPEND' | 'REMOVE';

export const mergeRequestResolvers = {
  NoteableKind: { MERGE_REQUEST: 'MergeRequest' },
  DetailedMergeStatus: lowerEnum([
    'unchecked', 'checking', 'mergeable', 'commits_status', 'ci_must_pass', 'ci_still_running', 'discussions_not_resolved', 'draft_status', 'not_open',
    'not_approved', 'blocked_status', 'conflict', 'need_rebase', 'requested_changes', 'merge_time', 'preparing', 'broken_status',
    'external_status_checks', 'policies_denied',
  ]),
  MergeStatus: lowerEnum(['unchecked', 'checking', 'can_be_merged', 'cannot_be_merged', 'cannot_be_merged_recheck']),
  Project: {
    mergeRequest: (project: ProjectRow, args: { iid: string }, ctx: Context) => ctx.services.merge_requests.find(project, iidOf(args.iid)),
    mergeRequests: (project: ProjectRow, args: ListArgs, ctx: Context) => list({ project }, args, ctx),
  },
  Group: {
    mergeRequests: (group: NamespaceRow, args: ListArgs, ctx: Context) => list({ group }, args, ctx),
  },
  Query: {
    mergeRequest: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.merge_requests.byId(args.id),
    projectMergeRequest: async (_: unknown, args: MrIid, ctx: Context) => ctx.services.merge_requests.get(await projectOf(ctx, args.projectPath), iidOf(args.iid)),
    mergeRequests: (_: unknown, args: ListArgs, ctx: Context) => list({ all: true }, args, ctx),
  },
  Milestone: {
    mergeRequests: async (m: MilestoneRow, args: PageArgs, ctx: Context) =>
      ctx.services.merge_requests.list(await milestoneParent(m, ctx), { milestone: m.title, orderBy: 'label_priority', sort: 'asc' }, args),
  },
  Issue: {
    mergeRequestsCount: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.merge_requests.closingCount(i.id),
    closingMergeRequests: (i: IssueRow, args: PageArgs, ctx: Context) => ctx.services.merge_requests.referencingIssue(i.id, true, args),
    relatedMergeRequests: (i: IssueRow, args: PageArgs, ctx: Context) => ctx.services.merge_requests.referencingIssue(i.id, false, args),
  },
  Label: {
    openMergeRequestsCount: (label: LabelView, _a: unknown, ctx: Context) => ctx.services.merge_requests.openLabelCount(labelInParent(label)),
  },
  MergeRequestDiff: mergeRequestDiffResolvers,
  MergeRequestApprovalState: mergeRequestApprovalStateResolvers,
  MergeRequestConnection: {
    totalTimeToMerge: (c: { totalTimeToMerge?: () => Promise<number | null> }) => c.totalTimeToMerge?.() ?? null,
  },
  MergeRequestAuthor: interactionField,
  MergeRequestAssignee: interactionField,
  MergeRequestReviewer: interactionField,
  MergeRequestReviewerDetail: {
    user: (r: MergeRequestRow['reviewers'][number], _a: unknown, ctx: Context) => user(ctx, r.userId),
  },
  MergeRequestParticipant: interactionField,
  MergeRequestReviewState: lowerEnum(['reviewed', 'unreviewed']),
  UserMergeRequestInteraction: {
    canMerge: (i: Interaction, _a: unknown, ctx: Context) => interactions(ctx).canMerge(i),
    canUpdate: (i: Interaction, _a: unknown, ctx: Context) => interactions(ctx).canUpdate(i),
    reviewState: (i: Interaction, _a: unknown, ctx: Context) => interactions(ctx).reviewState(i),
    reviewed: (i: Interaction, _a: unknown, ctx: Context) => interactions(ctx).reviewState(i) === 'reviewed',
    approved: (i: Interaction, _a: unknown, ctx: Context) => interactions(ctx).approved(i),
  },
  MergeRequest: {
    ...noteableFields(MERGE_REQUEST),
    ...mergeRequestVersionFields,
    ...mergeRequestGitlabFields,
    ...contextCommitFields,
    closesIssues: (m: MergeRequestRow, args: PageArgs, ctx: Context) => ctx.services.issues.referencedBy(m.id, args),
    reviewerDetails: (m: MergeRequestRow, args: PageArgs) => listConnection(args, m.reviewers),
    relatedIssues: (m: MergeRequestRow, args: PageArgs, ctx: Context) => ctx.services.issues.referencedBy(m.id, args, false),
    id: (m: MergeRequestRow) => globalId('MergeRequest', m.id),
    databaseId: (m: MergeRequestRow) => m.id,
    discussionLocked: (m: MergeRequestRow) => m.discussionLocked ?? false,
    discussionLockedSetting: (m: MergeRequestRow) => m.discussionLocked,
    iid: (m: MergeRequestRow) => String(m.iid),
    databaseIid: (m: MergeRequestRow) => m.iid,
    project: (m: MergeRequestRow, _a: unknown, ctx: Context) => projectOfMr(m, ctx),
    targetProjectId: (m: MergeRequestRow) => m.projectId,
    targetProject: (m: MergeRequestRow, _a: unknown, ctx: Context) => projectOfMr(m, ctx),
    sourceProject: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (m.sourceProjectId === null ? null : ctx.services.projects.find({ id: m.sourceProjectId })),
    allowCollaboration: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).allowCollaboration(m),
    forkAllowCollaboration: (m: MergeRequestRow, _a: unknown, ctx: Context) => (m.sourceProjectId === m.projectId ? null : git(ctx).allowCollaboration(m)),
    closedBy: (m: MergeRequestRow, _a: unknown, ctx: Context) => user(ctx, m.closedById),
    author: (m: MergeRequestRow, _a: unknown, ctx: Context) => mrUser(ctx, m, m.authorId),
    mergeUser: (m: MergeRequestRow, _a: unknown, ctx: Context) => user(ctx, m.mergeUserId),
    assignees: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => listConnection(args, await mrUsers(ctx, m, m.assignees.map((a) => a.userId))),
    assignee: (m: MergeRequestRow, _a: unknown, ctx: Context) => user(ctx, m.assignees[0]?.userId),
    reviewers: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => listConnection(args, await mrUsers(ctx, m, m.reviewers.map((r) => r.userId))),
    approved: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await ctx.services.merge_requests.approvals.approvedBy(m)).length > 0,
    approvedBy: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => listConnection(args, await users(ctx, await ctx.services.merge_requests.approvals.approvedBy(m))),
    approvals: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await users(ctx, await ctx.services.merge_requests.approvals.approvedBy(m))).map((user) => ({ user })),
    approvalsRequired: () => 0,
    approvalsLeft: () => 0,
    userHasApproved: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.merge_requests.approvals.viewerHasApproved(m),
    participants: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => listConnection(args, await mrUsers(ctx, m, await ctx.services.merge_requests.participants(m))),
    labels: async (m: MergeRequestRow, args: PageArgs, ctx: Context) => {
      const project = await projectOfMr(m, ctx);
      const labels = await ctx.loaders.merge_requests.labels.load(m.id);
      return listConnection(args, labels.map((l) => ({ ...l, parent: { project } })));
    },
    labelTitles: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await ctx.loaders.merge_requests.labels.load(m.id)).map((l) => l.title),
    milestone: (m: MergeRequestRow, _a: unknown, ctx: Context) => (m.milestoneId === null ? null : ctx.loaders.merge_requests.milestoneById.load(m.milestoneId)),
    squashOnMerge: (m: MergeRequestRow) => m.squash,
    // MergeRequest#should_remove_source_branch?: merge_params' `should_remove_source_branch` (kept while it is set to
    // auto-merge), as Gitlab::Utils.to_boolean reads it: null when not given.
    shouldRemoveSourceBranch: (m: MergeRequestRow) => toBoolean((m.mergeParams as Record<string, unknown> | null)?.shouldRemoveSourceBranch),
    sourceBranchExists: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await git(ctx).sourceHead(m)) != null,
    targetBranchExists: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await git(ctx).branchHeads(await projectOfMr(m, ctx), [m.targetBranch])).get(m.targetBranch) != null,
    diffHeadSha: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await git(ctx).diffRefs(m)).headSha,
    diffRefs: async (m: MergeRequestRow, _a: unknown, ctx: Context) => {
      const refs = await git(ctx).diffRefs(m);
      return refs.headSha && refs.startSha ? refs : null;
    },
    mergeStatus: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).mergeStatus(m),
    mergeStatusEnum: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).mergeStatus(m),
    detailedMergeStatus: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).detailedMergeStatus(m),
    conflicts: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).hasConflicts(m),
    mergeable: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await git(ctx).detailedMergeStatus(m)) === 'mergeable',
    mergeableDiscussionsState: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).discussionsResolved(m),
    mergeError: (m: MergeRequestRow) => m.mergeError,
    rebaseInProgress: (m: MergeRequestRow) => m.rebaseJid !== null,
    rebaseCommitSha: (m: MergeRequestRow) => m.rebaseCommitSha,
    mergeRefHeadSha: async (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).mergeRefHead(await projectOfMr(m, ctx), m),
    mergeRefRefresh: async (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).mergeRef(await projectOfMr(m, ctx), m),
    autoMergeEnabled: (m: MergeRequestRow) => m.autoMergeEnabled,
    autoMergeStrategy: (m: MergeRequestRow) => m.autoMergeStrategy,
    // MergeRequest#commits_count: the newest version's (merge_request_diff.commits_count) once it has one.
    commitCount: async (m: MergeRequestRow, _a: unknown, ctx: Context) =>
      (await ctx.services.merge_requests.versions.latestOf(m))?.commitsCount ?? (await git(ctx).commits(m, { first: 1 })).count,
    commits: (m: MergeRequestRow, args: PageArgs, ctx: Context) => git(ctx).commits(m, args),
    diffs: (m: MergeRequestRow, args: PageArgs & { unidiff?: boolean | null }, ctx: Context) => {
      // One diff read answers a page and the size; `count` alone reads the smallest page.
      let page: ReturnType<ReturnType<typeof git>['diffPage']> | undefined;
      const read = (skip: number, take: number) => (page = git(ctx).diffPage(m, { skip, take }));
      return connection(args, async ({ skip, take }) => (await read(skip, take)).diffs.map((d) => (args.unidiff ? unidiff(d) : d)), async () => (await (page ?? read(0, 1))).size);
    },
    changes: async (m: MergeRequestRow, args: { unidiff?: boolean | null; accessRawDiffs?: boolean | null }, ctx: Context) =>
      (await git(ctx).changeDiffs(m, args.accessRawDiffs ?? false)).diffs.map((d) => (args.unidiff ? unidiff(d) : d)),
    changesOverflow: async (m: MergeRequestRow, args: { accessRawDiffs?: boolean | null }, ctx: Context) =>
      !args.accessRawDiffs && (await git(ctx).changeDiffs(m, false)).overflow,
    changesCount: (m: MergeRequestRow, _a: unknown, ctx: Context) => git(ctx).changesCount(m),
    userNotesCount: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.loaders.merge_requests.userNotesCount.load(m.id),
    webUrl: async (m: MergeRequestRow, _a: unknown, ctx: Context) => webUrl(ctx, await path(m, ctx)),
    webPath: async (m: MergeRequestRow, _a: unknown, ctx: Context) => `/${await path(m, ctx)}`,
    reference: async (m: MergeRequestRow, args: { full?: boolean | null }, ctx: Context) => (args.full ? `${(await projectOfMr(m, ctx)).fullPath}!${m.iid}` : `!${m.iid}`),
    references: async (m: MergeRequestRow, _a: unknown, ctx: Context) => ({ short: `!${m.iid}`, relative: `!${m.iid}`, full: `${(await projectOfMr(m, ctx)).fullPath}!${m.iid}` }),
    timeStats: (m: MergeRequestRow) => ({
      timeEstimate: m.timeEstimate,
      totalTimeSpent: m.totalTimeSpent,
      humanTimeEstimate: humanDuration(m.timeEstimate),
      humanTotalTimeSpent: humanDuration(m.totalTimeSpent),
    }),
    taskCompletionStatus: (m: MergeRequestRow) => {
      const t = tasks(m.description);
      return { count: t.count, completedCount: t.completed };
    },
    subscribed: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.subscriptions.subscribed('MergeRequest', m.id, participant(m)),
    firstContribution: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.merge_requests.firstContribution(m),
    headPipeline: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.pipelines.headForMergeRequest(m),
    // MergeRequest::Metrics as PipelineMetricsWorker keeps them: the head pipeline's start once it ran, its end once it passed.
    latestBuildStartedAt: async (m: MergeRequestRow, _a: unknown, ctx: Context) => (await ctx.services.pipelines.headForMergeRequest(m))?.startedAt ?? null,
    latestBuildFinishedAt: async (m: MergeRequestRow, _a: unknown, ctx: Context) => {
      const head = await ctx.services.pipelines.headForMergeRequest(m);
      return head?.status === 'success' ? head.finishedAt : null;
    },
    firstDeployedToProductionAt: () => null,
    imported: () => false,
    importedFrom: () => 'none',
    userPermissions: (m: MergeRequestRow, _a: unknown, ctx: Context) => ctx.services.merge_requests.permissions(m),
  },
  Subscription: Object.fromEntries(
    Object.entries(MERGE_REQUEST_SUBSCRIPTIONS).map(([field, part]) => [
      field,
      {
        // Subscriptions::BaseSubscription#authorized?: read_merge_request on the merge request, else `Unauthorized subscription`.
        subscribe: async (_: unknown, args: { issuableId: { type: string; id: number } }, ctx: Context) => {
          const updates = args.issuableId.type === 'MergeRequest' ? await ctx.services.merge_requests.watch(args.issuableId.id, part, field) : null;
          if (!updates) throw refused('Unauthorized subscription');
          return updates;
        },
      },
    ]),
  ),
  Mutation: {
    ...contextCommitMutations,
    mergeRequestCreate: async (_: unknown, input: { projectPath: string; title: string; sourceBranch: string; targetBranch: string } & Record<string, unknown>, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const mergeRequest = await ctx.services.quick_actions.createMergeRequest(ctx.services, project, {
        title: input.title,
        sourceBranch: input.sourceBranch,
        targetBranch: input.targetBranch,
        description: input.description as string | null | undefined,
        labels: splitNames(input.labels as string[] | null | undefined),
        assigneeIds: legacyAssignees(input.assigneeId as number | null | undefined, input.assigneeIds as number[] | null | undefined),
        reviewerIds: input.reviewerIds as number[] | null | undefined,
        milestoneId: input.milestoneId as number | null | undefined,
        removeSourceBranch: input.removeSourceBranch as boolean | null | undefined,
        squash: input.squash as boolean | null | undefined,
        targetProjectId: input.targetProjectId as number | null | undefined,
        allowCollaboration: input.allowCollaboration as boolean | null | undefined,
      });
      // Its first pipeline comes from a job the creation queued (MergeRequests::AfterCreateService).
      return { mergeRequest };
    },
    mergeRequestUpdate: async (
      _: unknown,
      input: MrIid & Omit<MergeRequestChanges, 'stateEvent' | 'timeEstimate'> & { state?: 'OPEN' | 'CLOSED' | null; stateEvent?: string | null; assigneeId?: number | null; timeEstimate?: string | null },
      ctx: Context,
    ) => {
      // Mutations::MergeRequests::Update#ready? (ValidateTimeEstimate): null or `0` removes the estimate.
      const timeEstimate = input.timeEstimate === undefined ? undefined : timeEstimateArgument(input.timeEstimate);
      const project = await projectOf(ctx, input.projectPath);
      const { projectPath: _p, iid, state, stateEvent, assigneeId, timeEstimate: _t, ...rest } = input;
      const changes: MergeRequestChanges = {
        ...rest,
        timeEstimate,
        labels: splitNames(rest.labels),
        addLabels: splitNames(rest.addLabels),
        removeLabels: splitNames(rest.removeLabels),
        stateEvent: stateEvent ?? (state === 'CLOSED' ? 'close' : state === 'OPEN' ? 'reopen' : null),
      };
      changes.assigneeIds = legacyAssignees(assigneeId, rest.assigneeIds);
      if ('milestoneId' in input) changes.milestoneId = input.milestoneId ?? null;
      // Closing aborts its auto-merge in the merge requests service (MergeRequests::CloseService#abort_auto_merge).
      return { mergeRequest: await ctx.services.quick_actions.updateMergeRequest(ctx.services, project, iidOf(iid), changes, true) };
    },
    mergeRequestAccept: async (
      _: unknown,
      input: MrIid & {
        sha?: string | null;
        commitMessage?: string | null;
        squashCommitMessage?: string | null;
        shouldRemoveSourceBranch?: boolean | null;
        squash?: boolean | null;
        strategy?: string | null;
        autoMerge?: boolean | null;
        mergeWhenPipelineSucceeds?: boolean | null;
        skipMergeTrain?: boolean | null;
      },
      ctx: Context,
    ) => {
      const project = await projectOf(ctx, input.projectPath);
      const options = {
        sha: input.sha,
        squash: input.squash,
        shouldRemoveSourceBranch: input.shouldRemoveSourceBranch,
        mergeCommitMessage: input.commitMessage,
        squashCommitMessage: input.squashCommitMessage,
      };
      const strategy = input.strategy && input.strategy !== 'MERGE_IMMEDIATELY' ? input.strategy.toLowerCase() : input.autoMerge || input.mergeWhenPipelineSucceeds ? 'merge_when_pipeline_succeeds' : null;
      if (strategy) {
        const mr = await ctx.services.merge_requests.get(project, iidOf(input.iid));
        await git(ctx).authorizeMerge(project, mr, options.sha);
        const train = await ctx.services.merge_trains.accept(project, mr, strategy, options);
        if (train) return { mergeRequest: train };
        const head = await ctx.services.pipelines.headForMergeRequest(mr);
        const auto = await setAutoMerge(ctx.services.merge_requests, project, mr, head?.status ?? null, strategy, options);
        if (auto) return { mergeRequest: auto };
      }
      if (input.skipMergeTrain) {
        const skipped = await ctx.services.merge_trains.mergeSkippingTrain(project, iidOf(input.iid), options);
        if (skipped) return { mergeRequest: skipped };
      }
      return { mergeRequest: await git(ctx).merge(project, iidOf(input.iid), options) };
    },
    mergeRequestRebase: async (_: unknown, input: MrIid & { skipCi?: boolean | null }, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const mergeRequest = await git(ctx).requestRebase(project, iidOf(input.iid), input.skipCi ?? false);
      return { mergeRequest, rebaseInProgress: mergeRequest.rebaseJid !== null };
    },
    mergeRequestCancelAutoMerge: async (_: unknown, input: MrIid, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const mr = await ctx.services.merge_requests.get(project, iidOf(input.iid));
      await git(ctx).authorizeMerge(project, mr, null);
      if (!mr.autoMergeEnabled) throw cannotCancel();
      const left = await ctx.services.merge_trains.cancel(project, mr);
      return { mergeRequest: left ?? (await ctx.services.merge_requests.cancelAutoMerge(project, mr)), status: 'success' };
    },
    mergeRequestApprove: async (_: unknown, input: MrIid & { sha?: string | null }, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.approvals.approve(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.sha),
    }),
    mergeRequestUnapprove: async (_: unknown, input: MrIid, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.approvals.unapprove(await projectOf(ctx, input.projectPath), iidOf(input.iid)),
    }),
    mergeRequestResetApprovals: async (_: unknown, input: MrIid, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.approvals.reset(await projectOf(ctx, input.projectPath), iidOf(input.iid)),
      status: 202,
    }),
    mergeRequestSetLabels: async (_: unknown, input: MrIid & { labelIds: number[]; operationMode?: Mode | null }, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.setLabels(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.labelIds, input.operationMode ?? 'REPLACE'),
    }),
    mergeRequestSetAssignees: async (_: unknown, input: MrIid & { assigneeUsernames: string[]; operationMode?: Mode | null }, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.setPeople(await projectOf(ctx, input.projectPath), iidOf(input.iid), 'assignees', input.assigneeUsernames, input.operationMode ?? 'REPLACE'),
    }),
    mergeRequestSetReviewers: async (_: unknown, input: MrIid & { reviewerUsernames: string[]; operationMode?: Mode | null }, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.setPeople(await projectOf(ctx, input.projectPath), iidOf(input.iid), 'reviewers', input.reviewerUsernames, input.operationMode ?? 'REPLACE'),
    }),
    mergeRequestTimeTracking: async (_: unknown, input: MrIid & TimeTrackingInput & { summary?: string | null }, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const iid = iidOf(input.iid);
      const mrs = ctx.services.merge_requests;
      const mergeRequest = await trackTime(input, (seconds) => mrs.setTimeEstimate(project, iid, seconds), (seconds) => mrs.addSpentTime(project, iid, seconds, { summary: input.summary }));
      return { mergeRequest };
    },
    mergeRequestSetDraft: async (_: unknown, input: MrIid & { draft: boolean }, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.update(await projectOf(ctx, input.projectPath), iidOf(input.iid), { draft: input.draft }, false),
    }),
    mergeRequestReviewerRereview: async (_: unknown, input: MrIid & { userId: number }, ctx: Context) => {
      const result = await ctx.services.merge_requests.requestReview(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.userId);
      // RequestReviewService#notify_reviewer: the reviewer's `review_requested` to-do item.
      if (!result.errors.length) await ctx.services.todos.reviewRequested(result.mergeRequest, input.userId);
      return result;
    },
    mergeRequestDestroy: async (_: unknown, input: MrIid, ctx: Context) => ({
      mergeRequest: await ctx.services.merge_requests.destroy(await projectOf(ctx, input.projectPath), iidOf(input.iid)),
    }),
  },
};
