/** GraphQL resolvers of issues; the REST routes run through them too. */
import type { Context } from '../../context.js';
import { usersByIds } from '../users/loaders.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { LABEL_CLASSES, globalId, iidOf, looseId, looseIds, parseId, parseRef } from '../../graphql/ids.js';
import { apiUrl, webUrl } from '../../graphql/resolvers.js';
import { argumentRefused, featureUnavailable, invalidArgument, mutuallyExclusive, notFound, refused } from '../../errors.js';
import { issueIterationChoice } from '../iterations/resolvers.js';
import { severityOf, type EscalationStatus, type IssueType, type Severity } from './incidents.js';
import { labelInParent } from '../labels/loaders.js';
import { milestoneParent } from '../milestones/resolvers.js';
import type { MilestoneRow } from '../milestones/service.js';
import type { LabelView } from '../labels/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { humanDuration, timeEstimateArgument, trackTime, type TimeTrackingInput } from './durations.js';
import { followUpOf, type FollowUpArgs } from './follow-up.js';
import { ISSUABLE_SUBSCRIPTIONS } from './live.js';
import type { NegatedIssueFilters, UnionedIssueFilters } from './filters.js';
import { ISSUE, legacyAssignees, splitNames, type IssueChanges, type IssueFilters, type IssueOrderBy, type IssueRow, type IssueScope } from './service.js';
import { participant } from '../subscriptions/service.js';
import { noteableFields } from '../notes/resolvers.js';
import { renderSingleLine } from '../../markdown.js';

interface ListArgs extends PageArgs {
  state?: 'opened' | 'closed' | 'locked' | 'all' | null;
  labelName?: (string | null)[] | null;
  milestoneTitle?: (string | null)[] | null;
  assigneeId?: string | null;
  assigneeUsernames?: string[] | null;
  authorUsername?: string | null;
  authorId?: number | null;
  search?: string | null;
  iids?: string[] | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  confidential?: boolean | null;
  sort?: string | null;
  scope?: IssueFilters['scope'];
  orderBy?: IssueOrderBy | null;
  direction?: 'ASC' | 'DESC' | null;
  healthStatusFilter?: IssueFilters['healthStatus'];
  types?: string[] | null;
  issueType?: string | null;
  crmContactId?: string | null;
  crmOrganizationId?: string | null;
  iterationId?: (string | null)[] | null;
  iterationTitle?: string | null;
  iterationWildcardId?: 'NONE' | 'ANY' | 'CURRENT' | null;
  iterationCadenceId?: number[] | null;
  weight?: string | null;
  epicId?: string | null;
  myReactionEmoji?: string | null;
  in?: ('TITLE' | 'DESCRIPTION')[] | null;
  searchIn?: string | null;
  dueDate?: string | null;
  not?: NegatedArgs | null;
  or?: UnionedIssueFilters | null;
}

/** NegatedIssueFilterInput: GitLab's fields, and REST's `not[…]` names (`labels`, `milestone`, `author_id`, `assignee_username`). */
interface NegatedArgs {
  assigneeId?: string | null;
  assigneeUsernames?: string[] | null;
  assigneeUsername?: string[] | null;
  authorUsername?: string | null;
  authorId?: number | null;
  epicId?: string | null;
  iids?: string[] | null;
  labelName?: string[] | null;
  labels?: string[] | null;
  milestoneTitle?: string[] | null;
  milestone?: string | null;
  myReactionEmoji?: string | null;
  types?: string[] | null;
  weight?: string | null;
}

/** IIDs given as strings (GraphQL's `iids`, REST's comma-separated list): each a number, else the argument is invalid. */
function iidsOf(iids: readonly string[] | null | undefined, argument: string): number[] | undefined {
  return iids?.flatMap((iid) => iid.split(',')).map((iid) => {
    if (!/^\d{1,9}$/.test(iid.trim())) throw invalidArgument(argument);
    return Number(iid.trim());
  });
}

/** The `not` filters, REST's names and GitLab's together. */
function negatedOf(not: NegatedArgs | null | undefined): NegatedIssueFilters | null {
  if (!not) return null;
  const assigneeUsernames = [...(not.assigneeUsernames ?? []), ...(not.assigneeUsername ?? [])];
  return {
    labels: splitNames([...(not.labelName ?? []), ...(not.labels ?? [])]),
    milestones: [...(not.milestoneTitle ?? []), ...(not.milestone ? [not.milestone] : [])],
    iids: iidsOf(not.iids, 'not'),
    authorId: not.authorId,
    authorUsername: not.authorUsername,
    assigneeId: not.assigneeId,
    assigneeUsernames: assigneeUsernames.length ? assigneeUsernames : null,
    myReactionEmoji: not.myReactionEmoji,
    weight: not.weight,
    epicId: not.epicId,
    types: not.types?.map((t) => t.toLowerCase() as IssueType),
  };
}

/** The fields `search` looks in: GraphQL's `in`, or REST's `in` (`title,description`; unknown names are ignored, as IssuableFinder ignores them). */
function searchFieldsOf(args: ListArgs): ('title' | 'description')[] | null {
  if (args.in?.length) return args.in.map((f) => f.toLowerCase() as 'title' | 'description');
  if (!args.searchIn) return null;
  const fields = args.searchIn.split(',').map((f) => f.trim().toLowerCase()).filter((f): f is 'title' | 'description' => f === 'title' || f === 'description');
  return fields.length ? fields : null;
}

/** GitLab's IssueSort values as REST's order_by and sort. */
const SORTS: Record<string, [IssueOrderBy, 'asc' | 'desc']> = {
  CREATED_DESC: ['created_at', 'desc'],
  CREATED_ASC: ['created_at', 'asc'],
  UPDATED_DESC: ['updated_at', 'desc'],
  UPDATED_ASC: ['updated_at', 'asc'],
  DUE_DATE_ASC: ['due_date', 'asc'],
  DUE_DATE_DESC: ['due_date', 'desc'],
  TITLE_ASC: ['title', 'asc'],
  TITLE_DESC: ['title', 'desc'],
  WEIGHT_ASC: ['weight', 'asc'],
  WEIGHT_DESC: ['weight', 'desc'],
  PRIORITY_ASC: ['priority', 'asc'],
  PRIORITY_DESC: ['priority', 'desc'],
  MILESTONE_DUE_ASC: ['milestone_due', 'asc'],
  MILESTONE_DUE_DESC: ['milestone_due', 'desc'],
  RELATIVE_POSITION_ASC: ['relative_position', 'asc'],
  CLOSED_AT_ASC: ['closed_at', 'asc'],
  CLOSED_AT_DESC: ['closed_at', 'desc'],
  LABEL_PRIORITY_ASC: ['label_priority', 'asc'],
  LABEL_PRIORITY_DESC: ['label_priority', 'desc'],
  POPULARITY_ASC: ['popularity', 'asc'],
  POPULARITY_DESC: ['popularity', 'desc'],
  SEVERITY_ASC: ['severity', 'asc'],
  SEVERITY_DESC: ['severity', 'desc'],
  ESCALATION_STATUS_ASC: ['escalation_status', 'asc'],
  ESCALATION_STATUS_DESC: ['escalation_status', 'desc'],
  BLOCKING_ISSUES_ASC: ['blocking_issues', 'asc'],
  BLOCKING_ISSUES_DESC: ['blocking_issues', 'desc'],
  HEALTH_STATUS_ASC: ['health_status', 'asc'],
  HEALTH_STATUS_DESC: ['health_status', 'desc'],
  SLA_DUE_AT_ASC: ['sla_due_at', 'asc'],
  SLA_DUE_AT_DESC: ['sla_due_at', 'desc'],
  PUBLISHED_ASC: ['published', 'asc'],
  PUBLISHED_DESC: ['published', 'desc'],
};

/** `types`, and REST's one `issue_type` among them: none given (or an empty list) filters nothing. */
function typesOf(args: ListArgs): IssueType[] | null {
  const types = args.types?.length ? args.types.map((t) => t.toLowerCase() as IssueType) : null;
  if (!args.issueType) return types;
  const one = args.issueType.toLowerCase() as IssueType;
  return types ? types.filter((t) => t === one) : [one];
}

function filtersOf(args: ListArgs): IssueFilters {
  const [sortBy, sortDirection] = SORTS[args.sort ?? 'CREATED_DESC'] ?? SORTS.CREATED_DESC;
  const iids = iidsOf(args.iids, 'iids');
  const labels = splitNames(args.labelName?.filter((l): l is string => l !== null));
  return {
    state: args.state === 'all' ? null : args.state,
    labels,
    milestone: args.milestoneTitle?.find((m) => m != null) ?? null,
    assigneeId: args.assigneeId,
    assigneeUsernames: args.assigneeUsernames,
    authorId: args.authorId,
    authorUsername: args.authorUsername,
    search: args.search,
    scope: args.scope,
    createdAfter: args.createdAfter,
    createdBefore: args.createdBefore,
    updatedAfter: args.updatedAfter,
    updatedBefore: args.updatedBefore,
    iids,
    confidential: args.confidential,
    healthStatus: args.healthStatusFilter,
    types: typesOf(args),
    crmContactId: args.crmContactId,
    crmOrganizationId: args.crmOrganizationId,
    iteration: iterationFilters(args),
    weight: args.weight,
    epicId: args.epicId,
    myReactionEmoji: args.myReactionEmoji,
    searchIn: searchFieldsOf(args),
    dueDate: args.dueDate,
    not: negatedOf(args.not),
    or: args.or,
    orderBy: args.orderBy ?? sortBy,
    sort: args.direction ? (args.direction.toLowerCase() as 'asc' | 'desc') : args.orderBy ? 'desc' : sortDirection,
  };
}

/**
 * EE's iteration filters: `iterationId` (global IDs, or REST's `iteration_id`: a number, or `None`, `Any`, `Current`
 * standing for the wildcard), `iterationTitle`, `iterationWildcardId`, `iterationCadenceId`.
 */
function iterationFilters(args: ListArgs): IssueFilters['iteration'] {
  const ids: number[] = [];
  let wildcard = args.iterationWildcardId ? (args.iterationWildcardId.toLowerCase() as 'none' | 'any' | 'current') : null;
  for (const raw of args.iterationId ?? []) {
    if (raw == null || raw.trim() === '') continue;
    const word = raw.trim().toLowerCase();
    if (word === 'none' || word === 'any' || word === 'current') wildcard = word;
    else ids.push(parseId(raw.trim(), 'Iteration', 'iterationId'));
  }
  if (wildcard && ids.length) throw mutuallyExclusive('iterationId', 'iterationWildcardId');
  const given = ids.length > 0 || wildcard !== null || !!args.iterationTitle || !!args.iterationCadenceId?.length;
  return given ? { ids: ids.length ? ids : null, wildcard, title: args.iterationTitle, cadenceIds: args.iterationCadenceId?.length ? args.iterationCadenceId : null } : null;
}

const list = (scope: IssueScope, args: ListArgs, ctx: Context) => ctx.services.issues.list(scope, filtersOf(args), args);
const statusCounts = (scope: IssueScope, args: ListArgs, ctx: Context) => ctx.services.issues.statusCounts(scope, filtersOf(args));

/** Where REST's issues statistics count: the project, else the group, else the instance. */
async function statisticsScope(ctx: Context, args: { projectPath?: string | null; groupPath?: string | null }): Promise<IssueScope> {
  if (args.projectPath != null) return { project: await projectOf(ctx, args.projectPath) };
  if (args.groupPath != null) return { group: await ctx.services.groups.get(parseRef(args.groupPath, 'Group', 'groupPath')) };
  return { all: true };
}


const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));
/**
 * The issue a move or clone takes and the project it goes to, by ID or full path; whether the caller may is the
 * service's question (GitLab's Issues API asks nothing before it, and its `insufficient permissions` covers both).
 */
async function moveArguments(ctx: Context, input: IssueIid & { targetProjectPath: string }) {
  const project = await projectOf(ctx, input.projectPath);
  const issue = await ctx.services.issues.get(project, iidOf(input.iid));
  const ref = parseRef(input.targetProjectPath, 'Project', 'targetProjectPath');
  const target = await ctx.services.issues.moves.target(ref);
  return { project, issue, target };
}
const projectOfIssue = async (issue: IssueRow, ctx: Context): Promise<ProjectRow> => (await ctx.loaders.projects.byId.load(issue.projectId))!;

/** Task list items of a description (`- [ ]`, `* [x]`, `1. [ ]`), as GitLab's TaskList counts them. */
function tasks(description: string | null): { count: number; completed: number } {
  const items = description?.match(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[ xX]\][ \t]/gm) ?? [];
  return { count: items.length, completed: items.filter((i) => /\[[xX]\]/.test(i)).length };
}

const user = (ctx: Context, id: number | null | undefined) => (id == null ? null : ctx.loaders.users.byId.load(id));

async function path(issue: IssueRow, ctx: Context): Promise<string> {
  return `${(await projectOfIssue(issue, ctx)).fullPath}/-/issues/${issue.iid}`;
}

/**
 * The epic an issue is put in on create or update (GitLab's `epic_id`), kept by the epics module, and its iteration
 * (`iterationId`; on create also `iterationWildcardId: CURRENT` with `iterationCadenceId`), kept by the iterations module.
 */
interface EpicOfIssue {
  epicId?: number | null;
  epicIid?: number | null;
  iterationId?: number | null;
  iterationWildcardId?: 'CURRENT' | null;
  iterationCadenceId?: number | null;
}

/**
 * The epic REST names: `epic_iid` (EE::API::Helpers::CommonHelpers#convert_parameters_from_legacy_format) is looked up
 * in the project's group, 404 when it has none by that IID, and then stands in for `epic_id`.
 */
async function epicOfIid(ctx: Context, project: ProjectRow, input: EpicOfIssue): Promise<number | null | undefined> {
  if (input.epicIid == null) return input.epicId;
  const group = project.namespace.kind === 'group' ? project.namespace : null;
  const epic = group ? await ctx.services.epics.find(group, input.epicIid) : null;
  if (!epic) throw notFound('Epic');
  return epic.id;
}

interface IssueIid {
  projectPath: string;
  iid: string;
}

export const issueResolvers = {
  NoteableKind: { ISSUE: 'Issue' },
  Issuable: { __resolveType: (row: object) => ('sourceBranch' in row ? 'MergeRequest' : 'Issue') },
  Subscription: Object.fromEntries(
    Object.entries(ISSUABLE_SUBSCRIPTIONS).map(([field, part]) => [
      field,
      {
        // GitLab's Subscriptions::IssuableUpdated#authorized?: read_issue, else `Unauthorized subscription`.
        subscribe: async (_: unknown, args: { issuableId: { type: string; id: number } }, ctx: Context) => {
          // Merge requests' parts are not announced to these fields yet: nothing to hear, refused as GitLab refuses what it cannot read.
          const updates = args.issuableId.type === 'Issue' ? await ctx.services.issues.watch(args.issuableId.id, part, field) : null;
          if (!updates) throw refused('Unauthorized subscription');
          return updates;
        },
      },
    ]),
  ),
  Project: {
    // Types::ProjectType#open_issues_count: Project#open_issues_count when the viewer has the issues feature.
    openIssuesCount: async (project: ProjectRow, _a: unknown, ctx: Context) =>
      (await ctx.access.featureAvailable(project, 'issues')) ? ctx.loaders.issues.openCountByProject.load(project.id) : null,
    issue: (project: ProjectRow, args: { iid?: string | null }, ctx: Context) => (args.iid ? ctx.services.issues.find(project, iidOf(args.iid)) : null),
    issues: (project: ProjectRow, args: ListArgs, ctx: Context) => list({ project }, args, ctx),
    issueStatusCounts: (project: ProjectRow, args: ListArgs, ctx: Context) => statusCounts({ project }, args, ctx),
  },
  Group: {
    issues: (group: NamespaceRow, args: ListArgs, ctx: Context) => list({ group }, args, ctx),
  },
  Query: {
    issue: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.issues.byId(args.id),
    projectIssue: async (_: unknown, args: IssueIid, ctx: Context) => ctx.services.issues.get(await projectOf(ctx, args.projectPath), iidOf(args.iid)),
    issues: (_: unknown, args: ListArgs, ctx: Context) => list({ all: true }, args, ctx),
    issuesStatistics: async (_: unknown, args: ListArgs & { projectPath?: string | null; groupPath?: string | null }, ctx: Context) => ({
      statistics: { counts: await statusCounts(await statisticsScope(ctx, args), args, ctx) },
    }),
    // Issue.find(params['id']): an id that is no number finds nothing.
    adminIssue: (_: unknown, args: { id: string }, ctx: Context) => ctx.services.issues.adminById(/^\d{1,9}$/.test(args.id.trim()) ? Number(args.id) : 0),
  },
  Milestone: {
    issues: async (m: MilestoneRow, args: PageArgs, ctx: Context) =>
      ctx.services.issues.list(await milestoneParent(m, ctx), { milestone: m.title, orderBy: 'label_priority', sort: 'asc' }, args),
  },
  Label: {
    openIssuesCount: async (label: LabelView, _a: unknown, ctx: Context) => (await ctx.services.issues.labelCounts(labelInParent(label))).opened,
    closedIssuesCount: async (label: LabelView, _a: unknown, ctx: Context) => (await ctx.services.issues.labelCounts(labelInParent(label))).closed,
  },
  Issue: {
    ...noteableFields(ISSUE),
    id: (i: IssueRow) => globalId('Issue', i.id),
    databaseId: (i: IssueRow) => i.id,
    iid: (i: IssueRow) => String(i.iid),
    databaseIid: (i: IssueRow) => i.iid,
    closedBy: (i: IssueRow, _a: unknown, ctx: Context) => user(ctx, i.closedById),
    author: (i: IssueRow, _a: unknown, ctx: Context) => user(ctx, i.authorId),
    discussionLocked: (i: IssueRow) => i.discussionLocked ?? false,
    discussionLockedSetting: (i: IssueRow) => i.discussionLocked,
    labels: async (i: IssueRow, args: PageArgs, ctx: Context) => {
      const project = await projectOfIssue(i, ctx);
      const labels = await ctx.loaders.issues.labels.load(i.id);
      return listConnection(args, labels.map((l) => ({ ...l, parent: { project } })));
    },
    labelTitles: async (i: IssueRow, _a: unknown, ctx: Context) => (await ctx.loaders.issues.labels.load(i.id)).map((l) => l.title),
    milestone: (i: IssueRow, _a: unknown, ctx: Context) => (i.milestoneId === null ? null : ctx.loaders.issues.milestoneById.load(i.milestoneId)),
    assignees: async (i: IssueRow, args: PageArgs, ctx: Context) =>
      listConnection(args, (await Promise.all(i.assignees.map((a) => ctx.loaders.users.byId.load(a.userId)))).filter((u) => u !== null)),
    assignee: (i: IssueRow, _a: unknown, ctx: Context) => user(ctx, i.assignees[0]?.userId),
    participants: async (i: IssueRow, args: PageArgs, ctx: Context) => {
      const ids = await ctx.services.issues.participants(i);
      return listConnection(args, await usersByIds(ctx.loaders.users, ids));
    },
    type: (i: IssueRow) => i.issueType.toUpperCase(),
    issueType: (i: IssueRow) => i.issueType,
    userNotesCount: (i: IssueRow, _a: unknown, ctx: Context) => ctx.loaders.issues.userNotesCount.load(i.id),
    webUrl: async (i: IssueRow, _a: unknown, ctx: Context) => webUrl(ctx, await path(i, ctx)),
    webPath: async (i: IssueRow, _a: unknown, ctx: Context) => `/${await path(i, ctx)}`,
    timeStats: (i: IssueRow) => ({
      timeEstimate: i.timeEstimate,
      totalTimeSpent: i.totalTimeSpent,
      humanTimeEstimate: humanDuration(i.timeEstimate),
      humanTotalTimeSpent: humanDuration(i.totalTimeSpent),
    }),
    userPermissions: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.issues.permissions(i),
    titleHtml: (i: IssueRow) => renderSingleLine(i.title),
    descriptionHtml: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.notes.markdownHtml(ctx.services, i.description ?? '', i.projectId),
    updatedBy: (i: IssueRow, _a: unknown, ctx: Context) => user(ctx, i.updatedById),
    // GitLab's UserDiscussionsCountResolver counts every thread with a user note, internal ones too.
    userDiscussionsCount: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.notes.userDiscussionsCount(ISSUE, i.id, true),
    commenters: async (i: IssueRow, args: PageArgs, ctx: Context) => {
      const ids = await ctx.services.issues.commenters(i);
      return listConnection(args, await usersByIds(ctx.loaders.users, ids));
    },
    currentUserTodos: (i: IssueRow, args: PageArgs & { state?: 'pending' | 'done' | null }, ctx: Context) =>
      ctx.services.todos.about({ type: ISSUE, id: i.id }, args.state ?? null, args),
    // EE's IssueType#has_epic: whether it is in an epic, readable or not.
    hasEpic: async (i: IssueRow, _a: unknown, ctx: Context) => (await ctx.loaders.epics.linkByIssueId.load(i.id)) !== null,
    // Issue#hidden?: its author is banned.
    hidden: (i: IssueRow) => i.author?.state === 'banned',
    closedAsDuplicateOf: async (i: IssueRow, _a: unknown, ctx: Context) => {
      const canonical = i.duplicatedToId === null ? null : await ctx.loaders.issues.byId.load(i.duplicatedToId);
      return canonical && (await ctx.services.issues.canRead(canonical)) ? canonical : null;
    },
    emailsEnabled: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.issues.emailsEnabled(i),
    taskCompletionStatus: (i: IssueRow) => {
      const t = tasks(i.description);
      return { count: t.count, completedCount: t.completed };
    },
    hasTasks: (i: IssueRow) => tasks(i.description).count > 0,
    taskStatus: (i: IssueRow) => {
      const t = tasks(i.description);
      return t.count ? `${t.completed} of ${t.count} checklist ${t.count === 1 ? 'item' : 'items'} completed` : '';
    },
    reference: async (i: IssueRow, args: { full?: boolean | null }, ctx: Context) => (args.full ? `${(await projectOfIssue(i, ctx)).fullPath}#${i.iid}` : `#${i.iid}`),
    references: async (i: IssueRow, _a: unknown, ctx: Context) => ({ short: `#${i.iid}`, relative: `#${i.iid}`, full: `${(await projectOfIssue(i, ctx)).fullPath}#${i.iid}` }),
    links: (i: IssueRow, _a: unknown, ctx: Context) => {
      const base = `projects/${i.projectId}/issues/${i.iid}`;
      return {
        self: apiUrl(ctx, base),
        notes: apiUrl(ctx, `${base}/notes`),
        awardEmoji: apiUrl(ctx, `${base}/award_emoji`),
        project: apiUrl(ctx, `projects/${i.projectId}`),
        closedAsDuplicateOf: null,
      };
    },
    subscribed: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.subscriptions.subscribed('Issue', i.id, participant(i)),
    movedToId: (i: IssueRow) => i.movedToId,
    moved: (i: IssueRow) => i.movedToId !== null,
    movedTo: async (i: IssueRow, _a: unknown, ctx: Context) => {
      const moved = i.movedToId === null ? null : await ctx.loaders.issues.byId.load(i.movedToId);
      return moved && (await ctx.services.issues.canRead(moved)) ? moved : null;
    },
    imported: () => false,
    importedFrom: () => 'none',
    severity: (i: IssueRow) => severityOf(i).toUpperCase(),
    escalationStatus: (i: IssueRow) => (i.issueType === 'incident' ? i.escalationStatus : null),
    serviceDeskReplyTo: () => null,
    healthStatus: (i: IssueRow) => i.healthStatus,
    relativePosition: (i: IssueRow) => i.relativePosition,
  },
  IssueEscalationStatus: { TRIGGERED: 'triggered', ACKNOWLEDGED: 'acknowledged', RESOLVED: 'resolved', IGNORED: 'ignored' },
  HealthStatus: { onTrack: 'on_track', needsAttention: 'needs_attention', atRisk: 'at_risk' },
  HealthStatusFilter: { NONE: 'none', ANY: 'any', onTrack: 'on_track', needsAttention: 'needs_attention', atRisk: 'at_risk' },
  Mutation: {
    createIssue: async (
      _: unknown,
      input: Omit<IssueChanges, 'title' | 'labelIds' | 'milestoneId'> &
        EpicOfIssue &
        FollowUpArgs & {
          projectPath: string;
          title: string;
          labelIds?: number[] | null;
          milestoneId?: number | null;
          createdAt?: Date | null;
          dueDate?: Date | null;
          type?: 'ISSUE' | 'INCIDENT' | null;
          iid?: number | null;
          locked?: boolean | null;
          moveBeforeId?: number | null;
          moveAfterId?: number | null;
          assigneeId?: number | null;
        },
      ctx: Context,
    ) => {
      // Mutations::Issues::Create#ready?: a thread named needs its merge request.
      if (input.discussionToResolve && input.mergeRequestToResolveDiscussionsOf == null && input.mergeRequestIidToResolveDiscussionsOf == null) {
        throw argumentRefused('to', 'resolve a discussion please also provide `merge_request_to_resolve_discussions_of` parameter');
      }
      const project = await projectOf(ctx, input.projectPath);
      const iteration = issueIterationChoice(input);
      if (iteration) ctx.services.iterations.requireAvailable();
      const followUp = await followUpOf(ctx, project, input);
      const moving = input.moveBeforeId != null || input.moveAfterId != null;
      let issue = await ctx.services.quick_actions.createIssue(ctx.services, project, {
        ...input,
        assigneeIds: legacyAssignees(input.assigneeId, input.assigneeIds),
        // Issues::BuildService: the description from the threads unless one is given.
        description: input.description !== undefined ? input.description : (followUp?.description ?? null),
        discussionLocked: input.locked,
        issueType: input.type ? (input.type.toLowerCase() as IssueType) : null,
        labels: splitNames(input.labels),
        dueDate: input.dueDate ? input.dueDate.toISOString().slice(0, 10) : null,
        createdAt: input.createdAt ? input.createdAt.toISOString() : null,
        moveBetween: moving ? { before: input.moveBeforeId ?? null, after: input.moveAfterId ?? null } : null,
      });
      const epicId = await epicOfIid(ctx, project, input);
      if (epicId) await ctx.services.epics.setIssueEpic(issue, epicId);
      if (iteration) issue = await ctx.services.iterations.setIssueIteration(issue, iteration);
      if (followUp) await followUp.resolve(issue);
      return { issue };
    },
    updateIssue: async (
      _: unknown,
      input: IssueIid &
        EpicOfIssue &
        Omit<IssueChanges, 'dueDate' | 'stateEvent' | 'labelIds' | 'addLabelIds' | 'removeLabelIds' | 'milestoneId' | 'timeEstimate'> & {
          dueDate?: Date | null;
          locked?: boolean | null;
          stateEvent?: 'CLOSE' | 'REOPEN' | null;
          type?: 'ISSUE' | 'INCIDENT' | null;
          labelIds?: string[] | null;
          addLabelIds?: string[] | null;
          removeLabelIds?: string[] | null;
          milestoneId?: string | null;
          timeEstimate?: string | null;
          assigneeId?: number | null;
        },
      ctx: Context,
    ) => {
      // Mutations::Issues::Update#ready?: labelIds replaces, so it goes with neither addLabelIds nor removeLabelIds;
      // a time estimate must be a duration of zero or more.
      if (input.labelIds?.length && (input.addLabelIds?.length || input.removeLabelIds?.length)) {
        throw argumentRefused('labelIds', 'is mutually exclusive with any of addLabelIds or removeLabelIds');
      }
      const timeEstimate = input.timeEstimate === undefined ? undefined : timeEstimateArgument(input.timeEstimate);
      const project = await projectOf(ctx, input.projectPath);
      const {
        projectPath: _p,
        iid,
        locked,
        dueDate,
        stateEvent,
        epicId: _e,
        epicIid: _ei,
        iterationId,
        iterationWildcardId: _w,
        iterationCadenceId: _ic,
        type,
        labelIds,
        addLabelIds,
        removeLabelIds,
        milestoneId: _m,
        timeEstimate: _t,
        clientMutationId: _c,
        assigneeId,
        ...rest
      } = input as typeof input & { clientMutationId?: string };
      if (iterationId !== undefined) ctx.services.iterations.requireAvailable();
      // Only what was given: a change given as null clears (and counts as given).
      const names = (list: typeof rest.labels) => (list === undefined ? undefined : splitNames(list));
      const changes: IssueChanges = {
        ...rest,
        labels: names(rest.labels),
        addLabels: names(rest.addLabels),
        removeLabels: names(rest.removeLabels),
        discussionLocked: locked,
        stateEvent: stateEvent?.toLowerCase(),
        issueType: type ? (type.toLowerCase() as IssueType) : undefined,
        labelIds: looseIds(labelIds, LABEL_CLASSES),
        addLabelIds: looseIds(addLabelIds, LABEL_CLASSES),
        removeLabelIds: looseIds(removeLabelIds, LABEL_CLASSES),
        timeEstimate,
        assigneeIds: legacyAssignees(assigneeId, rest.assigneeIds),
      };
      if (dueDate !== undefined) changes.dueDate = dueDate ? dueDate.toISOString().slice(0, 10) : null;
      // IssuableBaseService#filter_milestone: a milestone the project cannot use (or no milestone at all) removes it.
      if ('milestoneId' in input) changes.milestoneId = input.milestoneId == null ? null : (looseId(input.milestoneId, ['Milestone']) ?? 0);
      const epicId = await epicOfIid(ctx, project, input);
      let issue = await ctx.services.quick_actions.updateIssue(ctx.services, project, iidOf(iid), changes, epicId === undefined && iterationId === undefined);
      if (epicId !== undefined) await ctx.services.epics.setIssueEpic(issue, epicId || null);
      if (iterationId !== undefined) issue = await ctx.services.iterations.setIssueIteration(issue, iterationId ? { iterationId } : null);
      return { issue };
    },
    // GitLab's Mutations::Issues::SetConfidential, SetDueDate and SetLocked: Issues::UpdateService with one attribute,
    // refused or kept as the Issues API's PUT would.
    issueSetConfidential: async (_: unknown, input: IssueIid & { confidential: boolean }, ctx: Context) => ({
      issue: await ctx.services.issues.update(await projectOf(ctx, input.projectPath), iidOf(input.iid), { confidential: input.confidential }),
    }),
    issueSetDueDate: async (_: unknown, input: IssueIid & { dueDate?: Date | null }, ctx: Context) => ({
      issue: await ctx.services.issues.update(await projectOf(ctx, input.projectPath), iidOf(input.iid), { dueDate: input.dueDate ? input.dueDate.toISOString().slice(0, 10) : null }),
    }),
    issueSetLocked: async (_: unknown, input: IssueIid & { locked: boolean }, ctx: Context) => ({
      issue: await ctx.services.issues.update(await projectOf(ctx, input.projectPath), iidOf(input.iid), { discussionLocked: input.locked }),
    }),
    // GitLab's Mutations::Issues::SetSeverity: Issues::UpdateService with the severity, which only an incident keeps
    // (filter_severity), so another issue's answer is the issue unchanged and no errors.
    issueSetSeverity: async (_: unknown, input: IssueIid & { severity: string }, ctx: Context) => ({
      issue: await ctx.services.issues.update(await projectOf(ctx, input.projectPath), iidOf(input.iid), { severity: input.severity.toLowerCase() as Severity }),
    }),
    // Mutations::Issues::SetEscalationStatus: update_issue on the issue, then update_escalation_status on the project
    // (ResourceNotAvailable), then an incident only (`Feature unavailable for provided issue`).
    issueSetEscalationStatus: async (_: unknown, input: IssueIid & { status: EscalationStatus }, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const issue = await ctx.services.issues.get(project, iidOf(input.iid));
      const subject = await ctx.services.issues.subject(issue);
      await ctx.access.authorize('update_issue', subject);
      await ctx.access.authorize('update_escalation_status', subject);
      if (issue.issueType !== 'incident') throw featureUnavailable('Feature unavailable for provided issue');
      return { issue: await ctx.services.issues.update(project, issue.iid, { escalationStatus: input.status }) };
    },
    // Mutations::Issues::Move: Issues::MoveService's refusals in the payload's errors.
    issueReorder: async (_: unknown, input: IssueIid & { moveBeforeId?: number | null; moveAfterId?: number | null }, ctx: Context) => ({
      issue: await ctx.services.issues.reorder(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.moveBeforeId ?? null, input.moveAfterId ?? null),
    }),
    issueMove: async (_: unknown, input: IssueIid & { targetProjectPath: string }, ctx: Context) => {
      const { project, issue, target } = await moveArguments(ctx, input);
      return { issue: await ctx.services.issues.moves.move(project, issue, target) };
    },
    issueClone: async (_: unknown, input: IssueIid & { targetProjectPath: string; withNotes?: boolean | null }, ctx: Context) => {
      const { project, issue, target } = await moveArguments(ctx, input);
      return { issue: await ctx.services.issues.moves.clone(project, issue, target, input.withNotes ?? false) };
    },
    issueSetWeight: async (_: unknown, input: IssueIid & { weight?: number | null }, ctx: Context) => ({
      issue: await ctx.services.issues.setWeight(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.weight ?? null),
    }),
    issueSetAssignees: async (_: unknown, input: IssueIid & { assigneeUsernames: string[]; operationMode?: 'REPLACE' | 'APPEND' | 'REMOVE' | null }, ctx: Context) => ({
      issue: await ctx.services.issues.setAssignees(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.assigneeUsernames, input.operationMode ?? 'REPLACE'),
    }),
    issueDestroy: async (_: unknown, input: IssueIid, ctx: Context) => ({ issue: await ctx.services.issues.destroy(await projectOf(ctx, input.projectPath), iidOf(input.iid)) }),
    issueTimeTracking: async (_: unknown, input: IssueIid & TimeTrackingInput & { summary?: string | null }, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const iid = iidOf(input.iid);
      const { issues } = ctx.services;
      const issue = await trackTime(input, (seconds) => issues.setTimeEstimate(project, iid, seconds), (seconds) => issues.addSpentTime(project, iid, seconds, { summary: input.summary }));
      return { issue };
    },
  },
};
