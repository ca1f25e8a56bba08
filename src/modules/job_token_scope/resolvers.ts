/** GraphQL resolvers of CI/CD job token scopes. */
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { argumentRefused } from '../../errors.js';
import { parseRef } from '../../graphql/ids.js';
import type { ProjectRow } from '../projects/service.js';
import { mergeTrainsEnabled, mergeTrainsSkipTrainAllowed } from '../merge_trains/settings.js';
import type { AllowlistEntry, CiCdSettings, CiCdSettingsChanges, JobTokenScope, ScopeDirection, TargetRef } from './service.js';

type ProjectArgs = { projectPath: string };
type Direction = 'INBOUND' | 'OUTBOUND';

/** GraphQL's CiJobTokenScopeDirection as the service's direction; GitLab's mutations default to INBOUND. */
const directionOf = (direction: Direction | null | undefined): ScopeDirection => (direction === 'OUTBOUND' ? 'outbound' : 'inbound');

const sourceProject = (args: ProjectArgs, ctx: Context) => ctx.services.projects.get(parseRef(args.projectPath, 'Project', 'projectPath'));

/** A target named by REST's numeric ID or by GraphQL's path (or ID); BAD_USER_INPUT when neither is given. */
function target(id: number | null | undefined, path: string | null | undefined, type: string, argument: string): TargetRef {
  if (id != null) return { restId: id };
  return { ref: parseRef(path ?? '', type, argument) };
}

export const jobTokenScopeResolvers = {
  Project: {
    ciJobTokenScope: (project: ProjectRow, _a: unknown, ctx: Context) => ctx.services.job_token_scope.scope(project),
    ciCdSettings: (project: ProjectRow, _a: unknown, ctx: Context) => ctx.services.job_token_scope.settings(project),
  },
  CiJobTokenScopeType: {
    inboundAllowlist: (scope: JobTokenScope, args: PageArgs, ctx: Context) => ctx.services.job_token_scope.allowlist(scope, args, 'inbound'),
    inboundAllowlistCount: async (scope: JobTokenScope, _a: unknown, ctx: Context) => 1 + (await ctx.services.job_token_scope.linkCount(scope, 'inbound')),
    outboundAllowlist: (scope: JobTokenScope, args: PageArgs, ctx: Context) => ctx.services.job_token_scope.allowlist(scope, args, 'outbound'),
    projects: (scope: JobTokenScope, args: PageArgs, ctx: Context) => ctx.services.job_token_scope.allowlist(scope, args, 'outbound'),
    groupsAllowlist: (scope: JobTokenScope, args: PageArgs, ctx: Context) => ctx.services.job_token_scope.groupsAllowlist(scope, args),
    groupsAllowlistCount: (scope: JobTokenScope, _a: unknown, ctx: Context) => ctx.services.job_token_scope.groupsCount(scope),
  },
  CiJobTokenScopeAllowlistEntry: {
    sourceProject: (entry: AllowlistEntry, _a: unknown, ctx: Context) => ctx.services.projects.find({ id: entry.sourceProjectId }),
    target: async (entry: AllowlistEntry, _a: unknown, ctx: Context) => {
      const row = entry.targetKind === 'project' ? await ctx.services.projects.find({ id: entry.targetId }) : await ctx.services.groups.find({ id: entry.targetId });
      return row && { ...row, __typename: entry.targetKind === 'project' ? 'Project' : 'Group' };
    },
    direction: (entry: AllowlistEntry) => entry.direction.toUpperCase(),
    addedBy: (entry: AllowlistEntry, _a: unknown, ctx: Context) => (entry.addedById ? ctx.loaders.users.byId.load(entry.addedById) : null),
  },
  CiJobTokenScopeTarget: {
    __resolveType: (row: { __typename: string }) => row.__typename,
  },
  ProjectCiCdSetting: {
    // GitLab's outbound scope (ci_outbound_job_token_scope_enabled) is frozen off (see ScopeDirection).
    jobTokenScopeEnabled: () => false,
    mergePipelinesEnabled: (settings: CiCdSettings) => settings.project.mergePipelinesEnabled,
    mergeTrainsEnabled: (settings: CiCdSettings) => mergeTrainsEnabled(settings.project),
    mergeTrainsSkipTrainAllowed: (settings: CiCdSettings) => mergeTrainsSkipTrainAllowed(settings.project),
    project: (settings: CiCdSettings) => settings.project,
    pipelineVariablesMinimumOverrideRole: (settings: CiCdSettings) => settings.project.ciPipelineVariablesMinimumOverrideRole,
    restrictUserDefinedVariables: (settings: CiCdSettings) => settings.project.restrictUserDefinedVariables,
    forwardDeploymentEnabled: (settings: CiCdSettings) => settings.project.ciForwardDeploymentEnabled,
    forwardDeploymentRollbackAllowed: (settings: CiCdSettings) => settings.project.ciForwardDeploymentRollbackAllowed,
  },
  Mutation: {
    ciJobTokenScopeAddProject: async (
      _: unknown,
      args: ProjectArgs & { targetProjectPath?: string | null; targetProjectId?: number | null; direction?: Direction | null },
      ctx: Context,
    ) =>
      ctx.services.job_token_scope.addProject(
        await sourceProject(args, ctx),
        target(args.targetProjectId, args.targetProjectPath, 'Project', 'targetProjectPath'),
        directionOf(args.direction),
      ),
    ciJobTokenScopeAddGroupOrProject: async (_: unknown, args: ProjectArgs & { targetPath?: string | null; targetGroupId?: number | null }, ctx: Context) => {
      const project = await sourceProject(args, ctx);
      if (args.targetGroupId != null) return ctx.services.job_token_scope.addGroup(project, { restId: args.targetGroupId });
      return ctx.services.job_token_scope.addGroupOrProject(project, args.targetPath ?? '');
    },
    ciJobTokenScopeRemoveProject: async (_: unknown, args: ProjectArgs & { targetProjectPath: string; direction?: Direction | null }, ctx: Context) =>
      ctx.services.job_token_scope.removeProject(await sourceProject(args, ctx), parseRef(args.targetProjectPath, 'Project', 'targetProjectPath'), directionOf(args.direction)),
    ciJobTokenScopeRemoveGroup: async (_: unknown, args: ProjectArgs & { targetGroupPath?: string | null; targetGroupId?: number | null }, ctx: Context) =>
      ctx.services.job_token_scope.removeGroup(await sourceProject(args, ctx), target(args.targetGroupId, args.targetGroupPath, 'Group', 'targetGroupPath')),
    projectCiCdSettingsUpdate: async (_: unknown, args: { fullPath: string; jobTokenScopeEnabled?: boolean | null } & CiCdSettingsChanges, ctx: Context) => {
      // The outbound scope is frozen (see ScopeDirection): turning it off is what it already is; turning it on is
      // refused before the project is looked up, as GitLab's mutation does.
      if (args.jobTokenScopeEnabled) throw argumentRefused('job_token_scope_enabled', 'can only be set to false');
      const project = await ctx.services.projects.get(parseRef(args.fullPath, 'Project', 'fullPath'));
      return { ciCdSettings: await ctx.services.job_token_scope.updateSettings(project, args) };
    },
  },
};
