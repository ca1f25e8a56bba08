/** GraphQL resolvers of CI/CD variables. */
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, parseRef } from '../../graphql/ids.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { VARIABLE_LIMITS } from './rules.js';
import type { CiVariableRow, InheritedSort, VariableChanges, VariableInput, VariableOwner, VariableSort } from './service.js';

type ListArgs = PageArgs & { sort?: VariableSort | null };
type KeyArgs = { key: string; filter?: { environmentScope?: string | null } | null };

const INSTANCE: VariableOwner = { kind: 'instance' };

/** Listing and reading the variables of the owner a parent object is. */
function ownerFields<P>(ownerOf: (parent: P) => VariableOwner) {
  return {
    ciVariables: (parent: P, args: ListArgs, ctx: Context) => ctx.services.ci_variables.list(ownerOf(parent), args, args.sort),
    ciVariable: (parent: P, args: KeyArgs, ctx: Context) => ctx.services.ci_variables.get(ownerOf(parent), args.key, args.filter?.environmentScope),
  };
}

/** A variable's settings among a mutation's input fields (the owner and the selected key beside them). */
function changesOf(args: VariableChanges): VariableChanges {
  const { value, variableType, protected: isProtected, masked, raw, environmentScope, description } = args;
  return { value, variableType, protected: isProtected, masked, raw, environmentScope, description };
}

/**
 * `<prefix>Create`, `<prefix>Update` and `<prefix>Delete`, on the owner the mutation's input names; each answers its
 * variable in the payload field named as the prefix (`ciProjectVariable`).
 */
function ownerMutations<A>(prefix: string, ownerOf: (args: A, ctx: Context) => Promise<VariableOwner> | VariableOwner) {
  return {
    [`${prefix}Create`]: async (_: unknown, args: A & VariableInput, ctx: Context) => ({
      [prefix]: await ctx.services.ci_variables.create(await ownerOf(args, ctx), { ...changesOf(args), key: args.key, value: args.value, maskedAndHidden: args.maskedAndHidden }),
    }),
    [`${prefix}Update`]: async (_: unknown, args: A & KeyArgs & VariableChanges, ctx: Context) => ({
      [prefix]: await ctx.services.ci_variables.update(await ownerOf(args, ctx), args.key, args.filter?.environmentScope, changesOf(args)),
    }),
    [`${prefix}Delete`]: async (_: unknown, args: A & KeyArgs, ctx: Context) => ({
      [prefix]: await ctx.services.ci_variables.delete(await ownerOf(args, ctx), args.key, args.filter?.environmentScope),
    }),
  };
}

/** A hidden variable's value is never shown again, to anyone. */
const shownValue = (row: CiVariableRow) => (row.hidden ? null : row.value);

export const ciVariableResolvers = {
  Query: ownerFields<unknown>(() => INSTANCE),
  Project: {
    ...ownerFields<ProjectRow>((project) => ({ kind: 'project', project })),
    inheritedCiVariables: (project: ProjectRow, args: PageArgs & { sort?: InheritedSort | null }, ctx: Context) =>
      ctx.services.ci_variables.inherited(project, args.sort ?? 'created_desc', args),
  },
  Group: {
    ...ownerFields<NamespaceRow>((group) => ({ kind: 'group', group })),
    environmentScopes: async (group: NamespaceRow, args: PageArgs & { name?: string | null; search?: string | null }, ctx: Context) => {
      const scopes = await ctx.services.ci_variables.environmentScopes(group, args);
      return scopes && listConnection(args, scopes);
    },
  },
  Mutation: {
    ...ownerMutations<{ projectId: string }>('ciProjectVariable', async (args, ctx) => ({
      kind: 'project',
      project: await ctx.services.projects.get(parseRef(args.projectId, 'Project', 'projectId')),
    })),
    ...ownerMutations<{ groupId: string }>('ciGroupVariable', async (args, ctx) => ({
      kind: 'group',
      group: await ctx.services.groups.get(parseRef(args.groupId, 'Group', 'groupId')),
    })),
    ...ownerMutations<object>('ciInstanceVariable', () => INSTANCE),
  },
  CiProjectVariable: { id: (row: CiVariableRow) => globalId('Ci::Variable', row.id), value: shownValue },
  CiGroupVariable: { id: (row: CiVariableRow) => globalId('Ci::GroupVariable', row.id), value: shownValue },
  CiInstanceVariable: { id: (row: CiVariableRow) => globalId('Ci::InstanceVariable', row.id), environmentScope: () => null },
  CiProjectVariableConnection: { limit: () => VARIABLE_LIMITS.project.count },
  CiGroupVariableConnection: { limit: () => VARIABLE_LIMITS.group.count },
  CiVariableType: { ENV_VAR: 'env_var', FILE: 'file' },
  CiVariableSort: { KEY_ASC: 'key_asc', KEY_DESC: 'key_desc' },
  CiGroupVariablesSort: { CREATED_ASC: 'created_asc', CREATED_DESC: 'created_desc', KEY_ASC: 'key_asc', KEY_DESC: 'key_desc' },
  InheritedCiVariable: {
    id: (row: CiVariableRow) => globalId('Ci::GroupVariable', row.id),
    // GitLab's Ci::GroupVariable#group_name and #group_ci_cd_settings_path.
    groupName: async (row: CiVariableRow, _a: unknown, ctx: Context) => (row.namespaceId === null ? null : ((await ctx.loaders.namespaces.byId.load(row.namespaceId))?.name ?? null)),
    groupCiCdSettingsPath: async (row: CiVariableRow, _a: unknown, ctx: Context) => {
      const group = row.namespaceId === null ? null : await ctx.loaders.namespaces.byId.load(row.namespaceId);
      return group ? `/groups/${group.fullPath}/-/settings/ci_cd` : null;
    },
  },
};
