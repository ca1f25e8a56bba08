/** GraphQL resolvers of epics and the issues in them; the REST Epics and Epic Issues APIs run through them too. */
import type { Context } from '../../context.js';
import { usersByIds } from '../users/loaders.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { GraphQLScalarType, Kind } from 'graphql';
import { LABEL_CLASSES, globalId, iidOf, looseIds, parseRef } from '../../graphql/ids.js';
import { apiUrl, webUrl } from '../../graphql/resolvers.js';
import { splitNames, type IssueRow } from '../issues/service.js';
import { colorOf, textColor, validColor } from '../labels/rules.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { EPIC, type EpicChanges, type EpicFilters, type EpicIssueView, type EpicOrderBy, type EpicRow, type TreeMove } from './service.js';
import { humanReadableEndDate, remainingDaysInWords } from './words.js';
import { participant } from '../subscriptions/service.js';
import { noteableFields } from '../notes/resolvers.js';
import { renderSingleLine } from '../../markdown.js';

interface ListArgs extends PageArgs {
  iid?: string | null;
  iids?: string[] | null;
  state?: 'all' | 'opened' | 'closed' | null;
  search?: string | null;
  sort?: string | null;
  authorUsername?: string | null;
  authorId?: number | null;
  labelName?: string[] | null;
  confidential?: boolean | null;
  includeAncestorGroups?: boolean | null;
  includeDescendantGroups?: boolean | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  orderBy?: EpicOrderBy | null;
  direction?: 'ASC' | 'DESC' | null;
}

/** GitLab's EpicSort as the finder's order; start and end dates order by creation, as no dates roll up here. */
const SORTS: Record<string, [EpicOrderBy, 'asc' | 'desc']> = {
  TITLE_ASC: ['title', 'asc'],
  TITLE_DESC: ['title', 'desc'],
  CREATED_AT_ASC: ['created_at', 'asc'],
  CREATED_AT_DESC: ['created_at', 'desc'],
  UPDATED_AT_ASC: ['updated_at', 'asc'],
  UPDATED_AT_DESC: ['updated_at', 'desc'],
};

/** A list of names as given (comma-separated or not); absent stays absent, so it counts as no change. */
const names = (values: readonly string[] | null | undefined) => (values === undefined ? undefined : splitNames(values));

function filtersOf(args: ListArgs): EpicFilters {
  const [orderBy, sort] = SORTS[args.sort ?? ''] ?? ['created_at', 'desc'];
  const iids = [...(args.iids ?? []), ...(args.iid ? [args.iid] : [])].map(iidOf);
  return {
    state: args.state,
    search: args.search,
    authorUsername: args.authorUsername,
    authorId: args.authorId,
    labels: splitNames(args.labelName),
    confidential: args.confidential,
    includeAncestorGroups: args.includeAncestorGroups,
    includeDescendantGroups: args.includeDescendantGroups,
    createdAfter: args.createdAfter,
    createdBefore: args.createdBefore,
    updatedAfter: args.updatedAfter,
    updatedBefore: args.updatedBefore,
    iids: iids.length ? iids : null,
    orderBy: args.orderBy ?? orderBy,
    sort: args.direction ? (args.direction.toLowerCase() as 'asc' | 'desc') : sort,
  };
}

/** Users by id, in the order given, leaving out any since removed. */
const usersOf = (ctx: Context, ids: readonly number[]) => usersByIds(ctx.loaders.users, ids);

const groupOf = async (epic: EpicRow, ctx: Context): Promise<NamespaceRow> => (await ctx.loaders.namespaces.byId.load(epic.groupId))!;
const path = async (epic: EpicRow, ctx: Context) => `groups/${(await groupOf(epic, ctx)).fullPath}/-/epics/${epic.iid}`;
export const groupArg = (ctx: Context, groupPath: string) => ctx.services.epics.group(parseRef(groupPath, 'Group', 'groupPath'));
/** A `Date` column as GitLab's Time field shows a date. */
const day = (date: Date | null) => date;

const startDate = (e: EpicRow) => (e.startDateIsFixed ? e.startDateFixed : null);
const dueDate = (e: EpicRow) => (e.dueDateIsFixed ? e.dueDateFixed : null);

/** The Epics API's deprecated `start_date` and `end_date`, which stand for the fixed dates when those are not given. */
interface DeprecatedDates {
  startDate?: string | null;
  endDate?: string | null;
}

function fixedDates(input: DeprecatedDates & Pick<EpicChanges, 'startDateFixed' | 'dueDateFixed'>): Pick<EpicChanges, 'startDateFixed' | 'dueDateFixed'> {
  const dates: Pick<EpicChanges, 'startDateFixed' | 'dueDateFixed'> = {};
  const start = input.startDateFixed !== undefined ? input.startDateFixed : input.startDate;
  const due = input.dueDateFixed !== undefined ? input.dueDateFixed : input.endDate;
  if (start !== undefined) dates.startDateFixed = start;
  if (due !== undefined) dates.dueDateFixed = due;
  return dates;
}

export interface EpicKey {
  groupPath: string;
  iid: string;
}

/** Types::ColorType's input: Gitlab::Color.of (a CSS colour name becomes its hex code), refused unless it is a colour. */
function parseColor(value: unknown): string {
  if (typeof value !== 'string') throw new TypeError('Not a color');
  const color = colorOf(value);
  if (!validColor(color)) throw new TypeError('Not a color');
  return color;
}

/** GitLab's `Color` scalar (Types::ColorType): a hex code or a named CSS colour in, the hex code out. */
const Color = new GraphQLScalarType({
  name: 'Color',
  description: 'Color represented as a hex code or named color.\n\nFor example: "#fefefe".',
  serialize: (value) => String(value),
  parseValue: parseColor,
  parseLiteral: (ast) => parseColor(ast.kind === Kind.STRING ? ast.value : undefined),
});

interface LabelIdArgs {
  addLabelIds?: string[] | null;
  removeLabelIds?: string[] | null;
}

/** Label ids an epic input takes as GitLab's `[ID!]`: global IDs of labels or numeric ids. */
const labelIds = (values: string[] | null | undefined) => looseIds(values, LABEL_CLASSES) ?? undefined;

export const epicResolvers = {
  Color,
  NoteableKind: { EPIC: 'Epic' },
  Group: {
    epic: (group: NamespaceRow, args: { iid?: string | null }, ctx: Context) => (args.iid ? ctx.services.epics.find(group, iidOf(args.iid)) : null),
    epics: (group: NamespaceRow, args: ListArgs, ctx: Context) => ctx.services.epics.list(group, filtersOf(args), args),
  },
  Query: {
    groupEpic: async (_: unknown, args: EpicKey, ctx: Context) => ctx.services.epics.get(await groupArg(ctx, args.groupPath), iidOf(args.iid)),
  },
  Issue: {
    epic: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.epics.ofIssue(i.id),
    epicSummary: async (i: IssueRow, _a: unknown, ctx: Context) => {
      const epic = await ctx.services.epics.ofIssue(i.id);
      if (!epic) return null;
      return {
        id: epic.id,
        iid: epic.iid,
        title: epic.title,
        url: `/${await path(epic, ctx)}`,
        groupId: epic.groupId,
        humanReadableEndDate: humanReadableEndDate(dueDate(epic)),
        humanReadableTimestamp: remainingDaysInWords(dueDate(epic), startDate(epic)),
      };
    },
  },
  Epic: {
    ...noteableFields(EPIC),
    id: (e: EpicRow) => globalId('Epic', e.id),
    iid: (e: EpicRow) => String(e.iid),
    databaseId: (e: EpicRow) => e.id,
    databaseIid: (e: EpicRow) => e.iid,
    currentUserTodos: (e: EpicRow, args: PageArgs & { state?: 'pending' | 'done' | null }, ctx: Context) =>
      ctx.services.todos.about({ type: EPIC, id: e.id }, args.state ?? null, args),
    author: (e: EpicRow, _a: unknown, ctx: Context) => (e.authorId === null ? null : ctx.loaders.users.byId.load(e.authorId)),
    group: (e: EpicRow, _a: unknown, ctx: Context) => groupOf(e, ctx),
    parent: (e: EpicRow, _a: unknown, ctx: Context) => (e.parentId === null ? null : ctx.services.epics.byId(e.parentId)),
    hasParent: (e: EpicRow) => e.parentId !== null,
    children: async (e: EpicRow, args: PageArgs, ctx: Context) => ctx.services.epics.list(await groupOf(e, ctx), { parentId: e.id, includeAncestorGroups: false }, args),
    hasChildren: async (e: EpicRow, _a: unknown, ctx: Context) => (await (await ctx.services.epics.list(await groupOf(e, ctx), { parentId: e.id }, { first: 1 })).count) > 0,
    hasIssues: async (e: EpicRow, _a: unknown, ctx: Context) => (await (await ctx.services.epics.epicIssues(e, { first: 1 })).count) > 0,
    startDate: (e: EpicRow) => day(startDate(e)),
    startDateFixed: (e: EpicRow) => day(e.startDateFixed),
    startDateFromInheritedSource: () => null,
    startDateFromMilestones: () => null,
    dueDate: (e: EpicRow) => day(dueDate(e)),
    dueDateFixed: (e: EpicRow) => day(e.dueDateFixed),
    dueDateFromInheritedSource: () => null,
    dueDateFromMilestones: () => null,
    labels: async (e: EpicRow, args: PageArgs, ctx: Context) => {
      const group = await groupOf(e, ctx);
      return listConnection(args, (await ctx.loaders.epics.labels.load(e.id)).map((l) => ({ ...l, parent: { group } })));
    },
    labelTitles: async (e: EpicRow, _a: unknown, ctx: Context) => (await ctx.loaders.epics.labels.load(e.id)).map((l) => l.title),
    textColor: (e: EpicRow) => textColor(e.color),
    userNotesCount: (e: EpicRow, _a: unknown, ctx: Context) => ctx.loaders.epics.userNotesCount.load(e.id),
    webPath: async (e: EpicRow, _a: unknown, ctx: Context) => `/${await path(e, ctx)}`,
    webUrl: async (e: EpicRow, _a: unknown, ctx: Context) => webUrl(ctx, await path(e, ctx)),
    reference: async (e: EpicRow, args: { full?: boolean | null }, ctx: Context) => (args.full ? `${(await groupOf(e, ctx)).fullPath}&${e.iid}` : `&${e.iid}`),
    references: async (e: EpicRow, _a: unknown, ctx: Context) => ({ short: `&${e.iid}`, relative: `&${e.iid}`, full: `${(await groupOf(e, ctx)).fullPath}&${e.iid}` }),
    subscribed: (e: EpicRow, _a: unknown, ctx: Context) => ctx.services.subscriptions.subscribed('Epic', e.id, participant(e)),
    issues: (e: EpicRow, args: PageArgs, ctx: Context) => ctx.services.epics.epicIssues(e, args),
    links: async (e: EpicRow, _a: unknown, ctx: Context) => {
      const self = `groups/${e.groupId}/epics/${e.iid}`;
      const parent = e.parentId === null ? null : await ctx.loaders.epics.byId.load(e.parentId);
      return {
        self: apiUrl(ctx, self),
        epicIssues: apiUrl(ctx, `${self}/issues`),
        group: apiUrl(ctx, `groups/${e.groupId}`),
        parent: parent ? apiUrl(ctx, `groups/${parent.groupId}/epics/${parent.iid}`) : null,
      };
    },
    userPermissions: (e: EpicRow, _a: unknown, ctx: Context) => ctx.services.epics.permissions(e),
    titleHtml: (e: EpicRow) => renderSingleLine(e.title),
    descriptionHtml: (e: EpicRow, _a: unknown, ctx: Context) => (e.description ? ctx.services.notes.markdownHtml(ctx.services, e.description, null) : e.description),
    ancestors: async (e: EpicRow, args: PageArgs & { includeAncestorGroups?: boolean | null }, ctx: Context) =>
      listConnection(args, await ctx.services.epics.ancestors(e, args.includeAncestorGroups ?? true)),
    descendantCounts: async (e: EpicRow, _a: unknown, ctx: Context) => {
      const sums = await ctx.services.epics.aggregate(e);
      return { openedEpics: sums.openedEpics, closedEpics: sums.closedEpics, openedIssues: sums.openedIssues, closedIssues: sums.closedIssues };
    },
    descendantWeightSum: async (e: EpicRow, _a: unknown, ctx: Context) => {
      const sums = await ctx.services.epics.aggregate(e);
      return { openedIssues: sums.openedWeight, closedIssues: sums.closedWeight };
    },
    healthStatus: async (e: EpicRow, _a: unknown, ctx: Context) => {
      const sums = await ctx.services.epics.aggregate(e);
      return { issuesAtRisk: sums.atRisk, issuesNeedingAttention: sums.needsAttention, issuesOnTrack: sums.onTrack };
    },
    participants: async (e: EpicRow, args: PageArgs, ctx: Context) => listConnection(args, await usersOf(ctx, await ctx.services.epics.participants(e))),
    commenters: async (e: EpicRow, args: PageArgs, ctx: Context) => listConnection(args, await usersOf(ctx, await ctx.services.epics.commenters(e))),
    relationPath: async (e: EpicRow, _a: unknown, ctx: Context) => {
      const parent = e.parentId === null ? null : await ctx.loaders.epics.byId.load(e.parentId);
      return parent && `/${await path(parent, ctx)}/links/${e.id}`;
    },
    userDiscussionsCount: (e: EpicRow, _a: unknown, ctx: Context) => ctx.services.epics.userDiscussionsCount(e),
    defaultProjectForIssueCreation: (e: EpicRow, _a: unknown, ctx: Context) => ctx.services.epics.defaultProjectForIssueCreation(e),
    imported: () => false,
    importedFrom: () => 'none',
    workItemId: () => null,
  },
  // Every other field is Issue's (`@sameFieldsAs`): an EpicIssueView is the issue's row.
  EpicIssue: {
    id: (v: EpicIssueView) => globalId('Issue', v.id),
    epicIssueId: (v: EpicIssueView) => globalId('EpicIssue', v.epicIssueId),
    epicIssueDatabaseId: (v: EpicIssueView) => v.epicIssueId,
    relativePosition: (v: EpicIssueView) => v.epicRelativePosition,
    relationPath: async (v: EpicIssueView, _a: unknown, ctx: Context) => {
      const epic = await ctx.services.epics.relatableEpic(v);
      return epic && `/${await path(epic, ctx)}/issues/${v.epicIssueId}`;
    },
    issue: (v: EpicIssueView) => v,
    epic: (v: EpicIssueView, _a: unknown, ctx: Context) => ctx.services.epics.byId(v.epicId),
  },
  Mutation: {
    createEpic: async (
      _: unknown,
      input: Omit<EpicChanges, 'addLabelIds' | 'removeLabelIds'> & DeprecatedDates & LabelIdArgs & { groupPath: string; title?: string | null },
      ctx: Context,
    ) => {
      const { groupPath, addLabels, startDate, endDate, ...rest } = input;
      const epic = await ctx.services.quick_actions.createEpic(ctx.services, await groupArg(ctx, groupPath), {
        ...rest,
        ...fixedDates(input),
        title: rest.title ?? '',
        labels: splitNames(addLabels),
        addLabelIds: labelIds(input.addLabelIds),
        removeLabelIds: labelIds(input.removeLabelIds),
      });
      return { epic };
    },
    updateEpic: async (
      _: unknown,
      input: Omit<EpicChanges, 'stateEvent' | 'addLabelIds' | 'removeLabelIds'> & DeprecatedDates & EpicKey & LabelIdArgs & { stateEvent?: 'REOPEN' | 'CLOSE' | null },
      ctx: Context,
    ) => {
      const { groupPath, iid, stateEvent, startDate, endDate, ...rest } = input;
      const changes: EpicChanges = {
        ...rest,
        ...fixedDates(input),
        labels: names(rest.labels),
        addLabels: names(rest.addLabels),
        removeLabels: names(rest.removeLabels),
        addLabelIds: labelIds(input.addLabelIds),
        removeLabelIds: labelIds(input.removeLabelIds),
        stateEvent: stateEvent ? (stateEvent.toLowerCase() as 'close' | 'reopen') : stateEvent,
      };
      return { epic: await ctx.services.quick_actions.updateEpic(ctx.services, await groupArg(ctx, groupPath), iidOf(iid), changes) };
    },
    epicDestroy: async (_: unknown, input: EpicKey, ctx: Context) => ({ epic: await ctx.services.epics.destroy(await groupArg(ctx, input.groupPath), iidOf(input.iid)) }),
    epicAddIssue: async (_: unknown, input: EpicKey & { projectPath?: string | null; issueIid?: string | null; issueId?: number | null }, ctx: Context) => {
      const group = await groupArg(ctx, input.groupPath);
      let issueId = input.issueId ?? -1;
      if (input.issueId == null && input.projectPath != null && input.issueIid != null) {
        const project = await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath'));
        issueId = (await ctx.services.issues.find(project, iidOf(input.issueIid)))?.id ?? -1;
      }
      const epicIssue = await ctx.services.epics.addIssue(group, iidOf(input.iid), issueId);
      return { epicIssue, epic: await ctx.services.epics.byId(epicIssue.epicId) };
    },
    epicRemoveIssue: async (_: unknown, input: EpicKey & { epicIssueId: number }, ctx: Context) => ({
      epicIssue: await ctx.services.epics.removeIssue(await groupArg(ctx, input.groupPath), iidOf(input.iid), input.epicIssueId),
    }),
    epicMoveIssue: async (_: unknown, input: EpicKey & { epicIssueId: number; moveBeforeId?: number | null; moveAfterId?: number | null }, ctx: Context) => ({
      epic: await ctx.services.epics.moveIssue(await groupArg(ctx, input.groupPath), iidOf(input.iid), input.epicIssueId, input.moveBeforeId ?? null, input.moveAfterId ?? null),
    }),
    epicTreeReorder: async (_: unknown, input: { baseEpicId: number; moved: TreeMove }, ctx: Context) => ({ errors: await ctx.services.epics.reorderTree(input.baseEpicId, input.moved) }),
    issueSetEpic: async (_: unknown, input: { projectPath: string; iid: string; epicId?: number | null }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath'));
      const issue = await ctx.services.issues.get(project, iidOf(input.iid));
      await ctx.services.epics.setIssueEpic(issue, input.epicId ?? null);
      return { issue };
    },
  },
};
