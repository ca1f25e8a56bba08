/**
 * Owns CI/CD variables of the instance, of groups and of projects (GitLab's Ci::InstanceVariable, Ci::GroupVariable
 * and Ci::Variable): the variables APIs for those who administer them, and the variables a project's job gets.
 */
import type { PrismaClient } from '../../db/database.js';
import { conflict, invalid, notFound } from '../../errors.js';
import { escapeLike } from '../../db/text.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import { VARIABLE_LIMITS, isBlank, scopeMatches, scopeSpecificity, strip, validationErrors, type VariableDraft, type VariableOwnerKind } from './rules.js';

export type CiVariableRow = Awaited<ReturnType<PrismaClient['ciVariable']['findUniqueOrThrow']>>;

/** Whose variables: the instance's, a group's or a project's. */
export type VariableOwner = { kind: 'instance' } | { kind: 'group'; group: NamespaceRow } | { kind: 'project'; project: ProjectRow };

export type VariableType = 'env_var' | 'file';
/** GitLab's CiGroupVariablesSort. */
export type InheritedSort = 'created_asc' | 'created_desc' | 'key_asc' | 'key_desc';

const INHERITED_ORDER: Record<InheritedSort, ['createdAt' | 'key', 'asc' | 'desc']> = {
  created_asc: ['createdAt', 'asc'],
  created_desc: ['createdAt', 'desc'],
  key_asc: ['key', 'asc'],
  key_desc: ['key', 'desc'],
};
export type VariableSort = 'key_asc' | 'key_desc';

export interface VariableChanges {
  value?: string | null;
  variableType?: VariableType | null;
  protected?: boolean | null;
  masked?: boolean | null;
  raw?: boolean | null;
  /** Project and group variables only; ignored for the instance's. */
  environmentScope?: string | null;
  description?: string | null;
}

export interface VariableInput extends VariableChanges {
  key: string;
  value: string;
  /** Masked, and its value never shown again (set on creation only); ignored for the instance's variables. */
  maskedAndHidden?: boolean | null;
}

/** A variable as a job receives it (GitLab's `to_hash_variable` with `masked` and `raw`). */
export interface JobVariable {
  key: string;
  value: string;
  public: false;
  masked: boolean;
  file: boolean;
  raw: boolean;
  protected: boolean;
}

/** The resource named in `404 <Resource> Not Found`, as GitLab's three APIs name it. */
const RESOURCE: Record<VariableOwnerKind, string> = { project: 'Variable', group: 'GroupVariable', instance: 'InstanceVariable' };

const AMBIGUOUS = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'";

const INSTANCE_OWNER_KEY = 'instance';
const groupOwnerKey = (groupId: number) => `group:${groupId}`;
const projectOwnerKey = (projectId: number) => `project:${projectId}`;

function ownerKey(owner: VariableOwner): string {
  if (owner.kind === 'group') return groupOwnerKey(owner.group.id);
  if (owner.kind === 'project') return projectOwnerKey(owner.project.id);
  return INSTANCE_OWNER_KEY;
}

function ownerColumns(owner: VariableOwner) {
  return {
    scope: owner.kind,
    ownerKey: ownerKey(owner),
    namespaceId: owner.kind === 'group' ? owner.group.id : null,
    projectId: owner.kind === 'project' ? owner.project.id : null,
  };
}

/** Ruby's `present?`, which GitLab's finder asks of `filter[environment_scope]`: a blank filter filters nothing. */
const present = (text: string | null | undefined): text is string => !!text && !isBlank(text);

export class CiVariablesService {
  constructor(private readonly base: ServiceBase) {}

  /** The owner's variables by ID (or by key when sorted). Administrators of the owner only. */
  async list(owner: VariableOwner, page: PageArgs, sort?: VariableSort | null) {
    await this.authorize(owner);
    const db = this.base.db;
    const where = { ownerKey: ownerKey(owner) };
    const orderBy = sort ? [{ key: sort === 'key_desc' ? ('desc' as const) : ('asc' as const) }, { id: 'asc' as const }] : [{ id: 'asc' as const }];
    return connection(
      page,
      ({ skip, take }) => db.ciVariable.findMany({ where, orderBy, skip, take }),
      () => db.ciVariable.count({ where }),
    );
  }

  /** The variable with this key (in this environment scope when given; 409 when the key is in several). */
  async get(owner: VariableOwner, key: string, environmentScope?: string | null): Promise<CiVariableRow> {
    await this.authorize(owner);
    return this.named(owner, key, environmentScope);
  }

  async create(owner: VariableOwner, input: VariableInput): Promise<CiVariableRow> {
    await this.authorize(owner);
    const db = this.base.db;
    const scoped = owner.kind !== 'instance';
    // GitLab's ChangeVariableService: masked_and_hidden sets both, whatever `masked` says.
    const hidden = scoped && !!input.maskedAndHidden;
    const draft: VariableDraft = {
      key: strip(input.key),
      value: input.value,
      masked: hidden || !!input.masked,
      hidden,
      raw: !!input.raw,
      environmentScope: scoped ? strip(input.environmentScope ?? '*') : '*',
      description: input.description ?? null,
    };
    const columns = ownerColumns(owner);
    const taken = await this.taken(columns.ownerKey, draft.key, draft.environmentScope);
    const held = await db.ciVariable.count({ where: { ownerKey: columns.ownerKey } });
    const errors = validationErrors(owner.kind, draft, { taken, atLimit: held >= VARIABLE_LIMITS[owner.kind].count });
    if (errors) throw invalid(errors);
    return db.ciVariable.create({
      data: { ...columns, ...draft, variableType: input.variableType ?? 'env_var', protected: !!input.protected },
    });
  }

  /** Changes what is given; the key stays, and so does `hidden` (GitLab sets it only on creation). */
  async update(owner: VariableOwner, key: string, environmentScope: string | null | undefined, changes: VariableChanges): Promise<CiVariableRow> {
    await this.authorize(owner);
    const current = await this.named(owner, key, environmentScope);
    const draft: VariableDraft = {
      key: current.key,
      value: changes.value ?? current.value,
      masked: changes.masked ?? current.masked,
      hidden: current.hidden,
      raw: changes.raw ?? current.raw,
      environmentScope: owner.kind !== 'instance' && changes.environmentScope != null ? strip(changes.environmentScope) : current.environmentScope,
      description: changes.description ?? current.description,
    };
    const taken = draft.environmentScope !== current.environmentScope && (await this.taken(current.ownerKey, current.key, draft.environmentScope));
    const errors = validationErrors(owner.kind, draft, { previous: current, taken, atLimit: false });
    if (errors) throw invalid(errors);
    return this.base.db.ciVariable.update({
      where: { id: current.id },
      data: { ...draft, variableType: changes.variableType ?? current.variableType, protected: changes.protected ?? current.protected },
    });
  }

  async delete(owner: VariableOwner, key: string, environmentScope?: string | null): Promise<CiVariableRow> {
    await this.authorize(owner);
    const variable = await this.named(owner, key, environmentScope);
    await this.base.db.ciVariable.delete({ where: { id: variable.id } });
    return variable;
  }

  /**
   * The variables a job of this project gets, lowest precedence first: the instance's, then its groups' from the
   * top of the project's namespace down, then the project's. Protected ones only when `protectedRef`;
   * environment-scoped ones only when they match `environment` (only `*` ones without an environment); of one
   * owner's variables with the same key, the one whose scope names the environment most closely. No ability is
   * checked: this runs for the pipeline's job, not for a viewer.
   */
  async forJob(project: { id: number; namespace: { traversalIds: number[] } }, options: { protectedRef: boolean; environment: string | null }): Promise<JobVariable[]> {
    const owners = [INSTANCE_OWNER_KEY, ...project.namespace.traversalIds.map(groupOwnerKey), projectOwnerKey(project.id)];
    const rows = await this.base.db.ciVariable.findMany({
      where: { ownerKey: { in: owners }, ...(options.protectedRef ? {} : { protected: false }) },
      orderBy: { id: 'asc' },
    });
    const { environment } = options;
    const specificity = (row: CiVariableRow) => (environment === null ? 0 : scopeSpecificity(row.environmentScope, environment));
    const chosen = new Map<string, CiVariableRow>();
    for (const row of rows) {
      const applies = environment === null ? row.environmentScope === '*' : scopeMatches(row.environmentScope, environment);
      if (!applies) continue;
      const slot = JSON.stringify([row.ownerKey, row.key]);
      const held = chosen.get(slot);
      // Rows come in ID order: of two equally close scopes, the later one wins.
      if (!held || specificity(row) >= specificity(held)) chosen.set(slot, row);
    }
    const rank = (row: CiVariableRow) => owners.indexOf(row.ownerKey);
    return [...chosen.values()]
      .sort((a, b) => rank(a) - rank(b) || a.id - b.id)
      .map((row) => ({ key: row.key, value: row.value, public: false, masked: row.masked, file: row.variableType === 'file', raw: row.raw, protected: row.protected }));
  }

  /**
   * GraphQL's `Project.inheritedCiVariables` (GitLab's Ci::GroupVariablesFinder): the variables of the project's
   * group and its ancestors, in GitLab's CiGroupVariablesSort order; null for viewers who may not administer the
   * project's variables (Maintainers and above).
   */
  async inherited(project: ProjectRow, sort: InheritedSort, page: PageArgs) {
    if (!(await this.base.access.can('admin_cicd_variables', { project }))) return null;
    const db = this.base.db;
    const groups = project.namespace.kind === 'group' ? project.namespace.traversalIds : [];
    const where = { ownerKey: { in: groups.map(groupOwnerKey) } };
    const [column, direction] = INHERITED_ORDER[sort];
    const orderBy = [{ [column]: direction }, { id: direction }];
    return connection(
      page,
      ({ skip, take }) => db.ciVariable.findMany({ where, orderBy, skip, take }),
      () => db.ciVariable.count({ where }),
    );
  }

  /**
   * GraphQL's `Group.environmentScopes` (GitLab's Groups::EnvironmentScopesFinder): the distinct environment scopes
   * of the group's own variables, by name; `name` selects one, `search` those containing it (case-sensitive, as
   * GitLab's LIKE). Null for viewers who may not administer the group's variables (Owners).
   */
  async environmentScopes(group: NamespaceRow, filters: { name?: string | null; search?: string | null }) {
    if (!(await this.base.access.can('admin_cicd_variables', { group }))) return null;
    const and = [
      ...(present(filters.name) ? [{ environmentScope: filters.name }] : []),
      ...(present(filters.search) ? [{ environmentScope: { contains: escapeLike(filters.search) } }] : []),
    ];
    const rows = await this.base.db.ciVariable.groupBy({ by: ['environmentScope'], where: { ownerKey: groupOwnerKey(group.id), AND: and }, orderBy: { environmentScope: 'asc' } });
    return rows.map((row) => ({ name: row.environmentScope }));
  }

  /** GitLab's `authenticated_as_admin!` for the instance, `admin_cicd_variables` for a group or a project. */
  private async authorize(owner: VariableOwner): Promise<void> {
    const { access } = this.base;
    if (owner.kind === 'instance') return access.authorize('admin_all_resources', null);
    return access.authorize('admin_cicd_variables', owner.kind === 'group' ? { group: owner.group } : { project: owner.project });
  }

  /** GitLab's VariablesFinder with its API's `find_variable`: by key, then by `filter[environment_scope]` when present. */
  private async named(owner: VariableOwner, key: string, environmentScope: string | null | undefined): Promise<CiVariableRow> {
    const rows = await this.base.db.ciVariable.findMany({
      where: { ownerKey: ownerKey(owner), key, ...(present(environmentScope) ? { environmentScope } : {}) },
      orderBy: { id: 'asc' },
      take: 2,
    });
    if (rows.length > 1) throw conflict(AMBIGUOUS);
    if (!rows[0]) throw notFound(RESOURCE[owner.kind]);
    return rows[0];
  }

  private async taken(ownerKeyValue: string, key: string, environmentScope: string): Promise<boolean> {
    const row = await this.base.db.ciVariable.findUnique({
      where: { ownerKey_key_environmentScope: { ownerKey: ownerKeyValue, key, environmentScope } },
      select: { id: true },
    });
    return !!row;
  }
}
