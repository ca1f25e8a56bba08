/** GraphQL resolvers of to-do items: GitLab's Todo, `UserCore.todos`, the todo mutations and alertTodoCreate. */
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, iidOf, parseId, parseRef } from '../../graphql/ids.js';
import { invalidArgument, notFound } from '../../errors.js';
import type { AlertRow } from '../alert_management/service.js';
import type { IssueRow } from '../issues/service.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { UserRow } from '../users/service.js';
import type { EpicRow } from '../epics/service.js';
import { TODO_ALERT, TODO_EPIC, TODO_ISSUE, TODO_MERGE_REQUEST, type TodoFilters, type TodoRow } from './service.js';

/** TodoTargetEnum's values and the classes they name (GitLab's Types::TodoTargetEnum). */
const TARGETS = {
  COMMIT: 'Commit',
  ISSUE: TODO_ISSUE,
  WORKITEM: 'WorkItem',
  MERGEREQUEST: 'MergeRequest',
  DESIGN: 'DesignManagement::Design',
  ALERT: TODO_ALERT,
  EPIC: TODO_EPIC,
  USER: 'User',
  NAMESPACE: 'Namespace',
  PROJECT: 'Project',
  KEY: 'Key',
  WIKIPAGEMETA: 'WikiPage::Meta',
} as const;
const CLASSES: ReadonlySet<string> = new Set(Object.values(TARGETS));

const GID = /^gid:\/\/([^/]+)\/([A-Za-z][A-Za-z0-9]*(?:::[A-Za-z][A-Za-z0-9]*)*)\/(\d{1,10})$/;
const inspect = (value: unknown) => JSON.stringify(value) ?? String(value);

/** A Todoable's global ID (`Types::GlobalIDType[Todoable]`): the resolver gets its class and id. */
function parseTodoable(value: unknown): { model: string; id: number } {
  const match = typeof value === 'string' ? GID.exec(value) : null;
  if (!match) throw new TypeError(`${inspect(value)} is not a valid Global ID`);
  if (match[1] !== 'gitlab') throw new TypeError(`${inspect(value)} is not a Gitlab Global ID`);
  if (!CLASSES.has(match[2])) throw new TypeError(`${inspect(value)} does not represent an instance of Todoable`);
  const id = Number(match[3]);
  return { model: match[2], id: id <= 2147483647 ? id : -1 };
}

export const TodoableID = new GraphQLScalarType({
  name: 'TodoableID',
  description: 'A `TodoableID` is a global ID. It is encoded as a string.',
  serialize: (value) => String(value),
  parseValue: parseTodoable,
  parseLiteral: (ast: ValueNode) => parseTodoable(ast.kind === Kind.STRING ? ast.value : undefined),
});

interface TodoArgs extends PageArgs {
  action?: string[] | null;
  authorId?: string[] | null;
  projectId?: string[] | null;
  groupId?: string[] | null;
  state?: string[] | null;
  type?: string[] | null;
  targetClass?: string[] | null;
}

const ids = (values: string[] | null | undefined, model: string, argument: string) => values?.map((v) => parseId(v, model, argument)) ?? null;

function filtersOf(args: TodoArgs): TodoFilters {
  // REST's `type` takes GitLab's class names (lib/api/todos.rb's values).
  if (args.targetClass?.some((c) => !['Issue', 'MergeRequest', 'Commit', 'Epic', 'DesignManagement::Design', 'AlertManagement::Alert'].includes(c))) throw invalidArgument('type');
  const types = [...(args.type ?? []), ...(args.targetClass ?? [])];
  return {
    action: args.action,
    authorId: ids(args.authorId, 'User', 'authorId'),
    projectId: ids(args.projectId, 'Project', 'projectId'),
    groupId: ids(args.groupId, 'Group', 'groupId'),
    state: args.state,
    type: types.length ? types : null,
  };
}

const projectPath = (ctx: Context, path: string) => ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));

type Target = IssueRow | AlertRow | MergeRequestRow | EpicRow;

/**
 * The target (GitLab's `Todoable!`): every item a viewer is given is one about a target they may read (the lists
 * filter on it, Query.todo and the mutations find through TodoPolicy), so it is there; the merge request and the
 * epic are loaded whole, through their own services' readable lookups.
 */
async function targetOf(todo: TodoRow, ctx: Context): Promise<Target> {
  const target = todo.issue ?? todo.alert ?? (todo.mergeRequest && (await ctx.services.merge_requests.byId(todo.mergeRequest.id))) ?? (todo.epic && (await ctx.services.epics.byId(todo.epic.id)));
  if (!target) throw notFound();
  return target;
}

export const todosResolvers = {
  TodoableID,
  TodoTargetEnum: TARGETS,
  AlertManagementAlert: {
    databaseIid: (alert: AlertRow) => alert.iid,
    restTitle: (alert: AlertRow) => alert.title,
  },
  Todoable: {
    __resolveType: (target: Target) => ('fingerprint' in target ? 'AlertManagementAlert' : 'sourceBranch' in target ? 'MergeRequest' : 'startDateIsFixed' in target ? 'Epic' : 'Issue'),
  },
  Query: {
    todo: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.todos.find(args.id),
  },
  UserCore: {
    todos: (user: UserRow, args: TodoArgs, ctx: Context) => {
      // TodosResolver: only the current user's own; none for another user or an anonymous caller.
      if (!ctx.viewer || ctx.viewer.id !== user.id) return listConnection(args, []);
      return ctx.services.todos.list(filtersOf(args), args);
    },
  },
  Todo: {
    note: (todo: TodoRow, _a: unknown, ctx: Context) => (todo.noteId == null ? null : ctx.services.notes.findReadable(ctx.services, todo.noteId)),
    id: (todo: TodoRow) => globalId('Todo', todo.id),
    databaseId: (todo: TodoRow) => todo.id,
    author: (todo: TodoRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(todo.authorId),
    body: (todo: TodoRow) => todo.note?.note ?? todo.issue?.title ?? todo.alert?.title ?? todo.mergeRequest?.title ?? todo.epic?.title ?? '',
    group: (todo: TodoRow, _a: unknown, ctx: Context) => (todo.groupId === null ? null : ctx.loaders.namespaces.byId.load(todo.groupId)),
    project: (todo: TodoRow, _a: unknown, ctx: Context) => ctx.services.todos.projectOf(todo),
    target: (todo: TodoRow, _a: unknown, ctx: Context) => targetOf(todo, ctx),
    targetType: (todo: TodoRow) => todo.targetType,
    targetClass: (todo: TodoRow) => todo.targetType,
    targetUrl: async (todo: TodoRow, _a: unknown, ctx: Context) => {
      const anchor = todo.noteId === null ? '' : `#note_${todo.noteId}`;
      if (todo.epic) {
        const group = await ctx.loaders.namespaces.byId.load(todo.epic.groupId);
        return group && `${ctx.config.externalUrl}/groups/${group.fullPath}/-/epics/${todo.epic.iid}${anchor}`;
      }
      const project = await ctx.services.todos.projectOf(todo);
      if (!project) return null;
      const base = `${ctx.config.externalUrl}/${project.fullPath}/-`;
      if (todo.issue) return `${base}/issues/${todo.issue.iid}${anchor}`;
      if (todo.alert) return `${base}/alert_management/${todo.alert.iid}/details${anchor}`;
      if (todo.mergeRequest) return `${base}/merge_requests/${todo.mergeRequest.iid}${anchor}`;
      return null;
    },
  },
  Mutation: {
    todoMarkDone: async (_: unknown, args: { id: number }, ctx: Context) => ({ todo: await ctx.services.todos.markDone(args.id) }),
    todoRestore: async (_: unknown, args: { id: number }, ctx: Context) => ({ todo: await ctx.services.todos.restore(args.id) }),
    todosMarkAllDone: async (_: unknown, args: { targetId?: { model: string; id: number } | null }, ctx: Context) => {
      const changed = await ctx.services.todos.markAllDone(args.targetId ? { type: args.targetId.model, id: args.targetId.id } : null);
      return { todos: await ctx.services.todos.byIds(changed) };
    },
    todoCreate: async (_: unknown, args: { targetId: { model: string; id: number } }, ctx: Context) => {
      // Issues, merge requests and epics the viewer may read are found by global ID here; alerts take alertTodoCreate.
      const { model, id } = args.targetId;
      if (model === TODO_ISSUE) {
        const issue = await ctx.services.issues.byId(id);
        if (issue) return { todo: await ctx.services.todos.mark({ type: TODO_ISSUE, id: issue.id, projectId: issue.projectId }) };
      } else if (model === TODO_MERGE_REQUEST) {
        const mr = await ctx.services.merge_requests.byId(id);
        if (mr) return { todo: await ctx.services.todos.mark({ type: TODO_MERGE_REQUEST, id: mr.id, projectId: mr.projectId }) };
      } else if (model === TODO_EPIC) {
        const epic = await ctx.services.epics.byId(id);
        if (epic) return { todo: await ctx.services.todos.mark({ type: TODO_EPIC, id: epic.id, projectId: null, groupId: epic.groupId }) };
      }
      throw notFound();
    },
    issueTodoCreate: async (_: unknown, args: { projectPath: string; iid: string }, ctx: Context) => {
      const issue = await ctx.services.issues.get(await projectPath(ctx, args.projectPath), iidOf(args.iid));
      return { todo: await ctx.services.todos.markOrNotModified({ type: TODO_ISSUE, id: issue.id, projectId: issue.projectId }) };
    },
    mergeRequestTodoCreate: async (_: unknown, args: { projectPath: string; iid: string }, ctx: Context) => {
      const mr = await ctx.services.merge_requests.get(await projectPath(ctx, args.projectPath), iidOf(args.iid));
      return { todo: await ctx.services.todos.markOrNotModified({ type: TODO_MERGE_REQUEST, id: mr.id, projectId: mr.projectId }) };
    },
    epicTodoCreate: async (_: unknown, args: { groupPath: string; iid: string }, ctx: Context) => {
      const group = await ctx.services.epics.group(parseRef(args.groupPath, 'Group', 'groupPath'));
      const epic = await ctx.services.epics.get(group, iidOf(args.iid));
      return { todo: await ctx.services.todos.markOrNotModified({ type: TODO_EPIC, id: epic.id, projectId: null, groupId: group.id }) };
    },
    alertTodoCreate: async (_: unknown, args: { projectPath: string; iid: string }, ctx: Context) => {
      const project = await projectPath(ctx, args.projectPath);
      const alert = await ctx.services.alert_management.get(project, iidOf(args.iid));
      // The payload's `issue` is the alert's incident, as the other alert mutations answer it.
      return { ...(await ctx.services.todos.markAlert(project, alert)), issue: await ctx.services.alert_management.issueOf(alert) };
    },
  },
};
