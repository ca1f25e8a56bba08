/** GraphQL resolvers of webhooks; the REST routes run through them too. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { idFields } from '../../graphql/resolvers.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { alertStatus } from './rules.js';
import type { HookAttributes, HookOwnerRef, KeyedSetting, TestTrigger, WebHookLogRow, WebHookRow } from './service.js';

type AttributesIn = HookAttributes;
const attributes = (input: AttributesIn): HookAttributes => input;

interface ProjectHookArgs {
  id: number;
  projectPath?: string | null;
}

/** The hook's project, from the REST path's project or from the hook itself; hidden projects are 404. */
async function projectOf(ctx: Context, args: ProjectHookArgs): Promise<ProjectRow> {
  if (args.projectPath != null) return ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'));
  return ctx.services.projects.get({ id: await ctx.services.hooks.projectIdOf(args.id) });
}

interface GroupHookArgs {
  id: number;
  groupPath?: string | null;
}

/** The hook's group, from the REST path's group or from the hook itself; hidden groups are 404. */
async function groupOf(ctx: Context, args: GroupHookArgs): Promise<NamespaceRow> {
  if (args.groupPath != null) return ctx.services.groups.get(parseRef(args.groupPath, 'Group', 'groupPath'));
  return ctx.services.groups.get({ id: await ctx.services.hooks.groupIdOf(args.id) });
}

const hookFields = {
  urlVariables: (h: WebHookRow) => Object.keys((h.urlVariables ?? {}) as Record<string, string>).map((key) => ({ key })),
  customHeaders: (h: WebHookRow) => Object.keys((h.customHeaders ?? {}) as Record<string, string>).map((key) => ({ key })),
  alertStatus: (h: WebHookRow) => alertStatus(h),
  events: (h: WebHookRow, args: { status?: string[] | null } & PageArgs, ctx: Context) => ctx.services.hooks.events(h, args.status, args),
};

export const hookResolvers = {
  WebHookAlertStatus: { EXECUTABLE: 'executable', TEMPORARILY_DISABLED: 'temporarily_disabled', DISABLED: 'disabled' },
  WebHookKeyedSetting: { URL_VARIABLE: 'url_variables', CUSTOM_HEADER: 'custom_headers' },
  WebHookBranchFilterStrategy: { WILDCARD: 'wildcard', REGEX: 'regex', ALL_BRANCHES: 'all_branches' },
  ProjectHookTestTrigger: {
    PUSH_EVENTS: 'push_events',
    TAG_PUSH_EVENTS: 'tag_push_events',
    ISSUES_EVENTS: 'issues_events',
    CONFIDENTIAL_ISSUES_EVENTS: 'confidential_issues_events',
    NOTE_EVENTS: 'note_events',
    CONFIDENTIAL_NOTE_EVENTS: 'confidential_note_events',
    MERGE_REQUESTS_EVENTS: 'merge_requests_events',
  },
  WebHook: { __resolveType: (h: WebHookRow) => h.type },
  SystemHook: { ...idFields('SystemHook'), ...hookFields },
  ProjectHook: { ...idFields('ProjectHook'), ...hookFields },
  GroupHook: { ...idFields('GroupHook'), ...hookFields },
  WebHookEvent: { databaseId: (l: WebHookLogRow) => l.id },
  Query: {
    systemHooks: (_: unknown, args: PageArgs, ctx: Context) => ctx.services.hooks.listSystem(args),
    systemHook: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.hooks.getSystem(args.id),
  },
  Project: {
    hooks: (p: ProjectRow, args: PageArgs, ctx: Context) => ctx.services.hooks.listProject(p, args),
    hook: (p: ProjectRow, args: { id: number }, ctx: Context) => ctx.services.hooks.getProject(p, args.id),
  },
  Group: {
    hooks: (g: NamespaceRow, args: PageArgs, ctx: Context) => ctx.services.hooks.listGroup(g, args),
    hook: (g: NamespaceRow, args: { id: number }, ctx: Context) => ctx.services.hooks.getGroup(g, args.id),
  },
  Mutation: {
    webHookKeyedSettingSet: async (_: unknown, args: HookOwnerRef & { hookId: number; setting: KeyedSetting; key: string; value: string }, ctx: Context) => ({
      hook: await ctx.services.hooks.setKeyed(args, args.hookId, args.setting, args.key, args.value),
    }),
    webHookKeyedSettingDelete: async (_: unknown, args: HookOwnerRef & { hookId: number; setting: KeyedSetting; key: string }, ctx: Context) => ({
      hook: await ctx.services.hooks.deleteKeyed(args, args.hookId, args.setting, args.key),
    }),
    groupHookCreate: async (_: unknown, args: { groupPath: string; input: AttributesIn }, ctx: Context) => {
      const group = await ctx.services.groups.get(parseRef(args.groupPath, 'Group', 'groupPath'));
      return { groupHook: await ctx.services.hooks.createGroup(group, attributes(args.input)) };
    },
    groupHookUpdate: async (_: unknown, args: GroupHookArgs & { input: AttributesIn }, ctx: Context) => ({
      groupHook: await ctx.services.hooks.updateGroup(await groupOf(ctx, args), args.id, attributes(args.input)),
    }),
    groupHookDelete: async (_: unknown, args: GroupHookArgs, ctx: Context) => ({
      groupHook: await ctx.services.hooks.deleteGroup(await groupOf(ctx, args), args.id),
    }),
    groupHookEventResend: async (_: unknown, args: GroupHookArgs & { hookLogId: number }, ctx: Context) => ({
      responseStatus: await ctx.services.hooks.resendGroup(await groupOf(ctx, args), args.id, args.hookLogId),
    }),
    groupHookTest: async (_: unknown, args: GroupHookArgs & { trigger: TestTrigger }, ctx: Context) => ({
      message: await ctx.services.hooks.testGroup(ctx.services, await groupOf(ctx, args), args.id, args.trigger),
    }),
    systemHookCreate: async (_: unknown, args: { input: AttributesIn }, ctx: Context) => ({ systemHook: await ctx.services.hooks.createSystem(attributes(args.input)) }),
    systemHookUpdate: async (_: unknown, args: { id: number; input: AttributesIn }, ctx: Context) => ({ systemHook: await ctx.services.hooks.updateSystem(args.id, attributes(args.input)) }),
    systemHookDelete: async (_: unknown, args: { id: number }, ctx: Context) => ({ systemHook: await ctx.services.hooks.deleteSystem(args.id) }),
    systemHookTest: async (_: unknown, args: { id: number }, ctx: Context) => ({ sample: await ctx.services.hooks.testSystem(args.id) }),
    projectHookCreate: async (_: unknown, args: { projectPath: string; input: AttributesIn }, ctx: Context) => {
      const project = await ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'));
      return { projectHook: await ctx.services.hooks.createProject(project, attributes(args.input)) };
    },
    projectHookUpdate: async (_: unknown, args: ProjectHookArgs & { input: AttributesIn }, ctx: Context) => ({
      projectHook: await ctx.services.hooks.updateProject(await projectOf(ctx, args), args.id, attributes(args.input)),
    }),
    projectHookDelete: async (_: unknown, args: ProjectHookArgs, ctx: Context) => ({
      projectHook: await ctx.services.hooks.deleteProject(await projectOf(ctx, args), args.id),
    }),
    projectHookEventResend: async (_: unknown, args: ProjectHookArgs & { hookLogId: number }, ctx: Context) => ({
      responseStatus: await ctx.services.hooks.resendProject(await projectOf(ctx, args), args.id, args.hookLogId),
    }),
    projectHookTest: async (_: unknown, args: ProjectHookArgs & { trigger: TestTrigger }, ctx: Context) => {
      const project = await projectOf(ctx, args);
      return { message: await ctx.services.hooks.testProject(ctx.services, project, args.id, args.trigger) };
    },
  },
};
