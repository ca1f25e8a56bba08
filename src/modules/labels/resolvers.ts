/** GraphQL resolvers of labels; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import { exactlyOneOf, missing, mutuallyExclusive } from '../../errors.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { renderSingleLine } from '../../markdown.js';
import { textColor } from './rules.js';
import type { LabelChanges, LabelFilters, LabelInput, LabelView, TimeboxParent } from './service.js';

interface ParentInput {
  projectPath?: string | null;
  groupPath?: string | null;
}

/** The project or group a mutation names (GitLab's `projectPath` or `groupPath`, exactly one). */
export async function parentOf(ctx: Context, input: ParentInput): Promise<TimeboxParent> {
  if (input.projectPath != null) return { project: await ctx.services.projects.get(parseRef(input.projectPath, 'Project', 'projectPath')) };
  if (input.groupPath != null) return { group: await ctx.services.groups.get(parseRef(input.groupPath, 'Group', 'groupPath')) };
  throw missing('projectPath');
}

interface LabelKey {
  idOrTitle?: string | null;
  labelId?: number | null;
  name?: string | null;
}

/** The label a mutation names: by `idOrTitle`, or (REST's deprecated routes) by exactly one of `labelId` and `name`. */
function labelKey(input: LabelKey): string {
  if (input.idOrTitle != null) return input.idOrTitle;
  if (input.labelId != null && input.name != null) throw mutuallyExclusive('labelId', 'name');
  if (input.labelId != null) return String(input.labelId);
  if (input.name != null) return input.name;
  throw exactlyOneOf('labelId', 'name');
}

const labels = (parent: TimeboxParent) => (args: LabelFilters & { searchTerm?: string | null } & PageArgs, ctx: Context) =>
  ctx.services.labels.list(parent, { ...args, search: args.searchTerm }, args);

export const labelResolvers = {
  Project: {
    labels: (project: ProjectRow, args: LabelFilters & PageArgs, ctx: Context) => labels({ project })(args, ctx),
    label: (project: ProjectRow, args: { title: string }, ctx: Context) => ctx.services.labels.byTitle({ project }, args.title),
    labelByIdOrTitle: (project: ProjectRow, args: LabelFilters & { idOrTitle: string }, ctx: Context) => ctx.services.labels.get({ project }, args.idOrTitle, args),
  },
  Group: {
    labels: (group: NamespaceRow, args: LabelFilters & PageArgs, ctx: Context) => labels({ group })(args, ctx),
    label: (group: NamespaceRow, args: { title: string }, ctx: Context) => ctx.services.labels.byTitle({ group }, args.title),
    labelByIdOrTitle: (group: NamespaceRow, args: LabelFilters & { idOrTitle: string }, ctx: Context) => ctx.services.labels.get({ group }, args.idOrTitle, args),
  },
  Label: {
    id: (label: LabelView) => globalId(label.projectId !== null ? 'ProjectLabel' : 'GroupLabel', label.id),
    databaseId: (label: LabelView) => label.id,
    textColor: (label: LabelView) => textColor(label.color),
    // Rendered as GitLab's single-line pipeline renders plain text; Markdown comes with the issues' renderer.
    descriptionHtml: (label: LabelView) => (label.description == null ? null : renderSingleLine(label.description)),
    isProjectLabel: (label: LabelView) => label.projectId !== null,
    priority: (label: LabelView, _a: unknown, ctx: Context) =>
      'project' in label.parent ? ctx.loaders.labels.priority.load({ labelId: label.id, projectId: label.parent.project.id }) : null,
    subscribed: (label: LabelView, _a: unknown, ctx: Context) =>
      ctx.viewer ? ctx.loaders.labels.subscribed.load({ labelId: label.id, userId: ctx.viewer.id, projectId: 'project' in label.parent ? label.parent.project.id : null }) : false,
  },
  Mutation: {
    labelCreate: async (_: unknown, input: ParentInput & LabelInput, ctx: Context) => ({ label: await ctx.services.labels.create(await parentOf(ctx, input), input) }),
    labelUpdate: async (_: unknown, input: ParentInput & LabelChanges & LabelKey, ctx: Context) => ({
      label: await ctx.services.labels.update(await parentOf(ctx, input), labelKey(input), input),
    }),
    labelDestroy: async (_: unknown, input: ParentInput & LabelKey, ctx: Context) => ({
      label: await ctx.services.labels.destroy(await parentOf(ctx, input), labelKey(input)),
    }),
    labelPromote: async (_: unknown, input: ParentInput & LabelKey, ctx: Context) => {
      const parent = await parentOf(ctx, input);
      if (!('project' in parent)) throw missing('projectPath');
      return { label: await ctx.services.labels.promote(parent.project, labelKey(input)) };
    },
    labelSubscribe: async (_: unknown, input: ParentInput & { idOrTitle: string }, ctx: Context) => ({
      label: await ctx.services.labels.subscribe(await parentOf(ctx, input), input.idOrTitle),
    }),
    labelUnsubscribe: async (_: unknown, input: ParentInput & { idOrTitle: string }, ctx: Context) => ({
      label: await ctx.services.labels.unsubscribe(await parentOf(ctx, input), input.idOrTitle),
    }),
  },
};
