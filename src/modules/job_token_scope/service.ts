/**
 * Owns projects' CI/CD job token scopes (GitLab's Ci::JobToken::Scope with its project and group scope links, and the
 * ci_inbound_job_token_scope_enabled setting): the allowlists and the setting, for the project's Maintainers. What a
 * job token may reach is decided in src/auth (job-tokens.ts, policy.ts) from these tables.
 */
import type { PrismaClient } from '../../db/database.js';
import { argumentRefused, badRequest, forbidden, notFound } from '../../errors.js';
import { connection, type Page, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { GroupsService } from '../groups/service.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow, NamespacesService } from '../namespaces/service.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';

type ProjectLinkRow = Awaited<ReturnType<PrismaClient['ciJobTokenProjectScopeLink']['findUniqueOrThrow']>>;
type GroupLinkRow = Awaited<ReturnType<PrismaClient['ciJobTokenGroupScopeLink']['findUniqueOrThrow']>>;

/** A project's job token scope (GraphQL's CiJobTokenScopeType). */
export interface JobTokenScope {
  project: ProjectRow;
}

/** A project's CI/CD settings this module keeps (GraphQL's ProjectCiCdSetting). */
export interface CiCdSettings {
  project: ProjectRow;
  inboundJobTokenScopeEnabled: boolean;
  keepLatestArtifact: boolean;
}

/**
 * A project link's direction (GitLab's Ci::JobToken::ProjectScopeLink directions). Inbound: the target's jobs may
 * reach the source. Outbound: the source's jobs may reach the target, checked only while the source's
 * ci_outbound_job_token_scope_enabled is on. GitLab froze outbound scopes in 16.0 (`frozen_outbound_job_token_scopes`):
 * the setting can only be turned off and outbound entries only removed, so on this server, whose projects postdate
 * that, the setting is off and no outbound entry is ever made.
 */
export type ScopeDirection = 'inbound' | 'outbound';

/** What projectCiCdSettingsUpdate changes: this module's settings, and those the project keeps (GraphQL's names). */
export interface CiCdSettingsChanges {
  inboundJobTokenScopeEnabled?: boolean | null;
  keepLatestArtifact?: boolean | null;
  pipelineVariablesMinimumOverrideRole?: string | null;
  restrictUserDefinedVariables?: boolean | null;
  forwardDeploymentEnabled?: boolean | null;
  forwardDeploymentRollbackAllowed?: boolean | null;
  mergePipelinesEnabled?: boolean | null;
  mergeTrainsEnabled?: boolean | null;
  mergeTrainsSkipTrainAllowed?: boolean | null;
}

/** One allowlist entry (GraphQL's CiJobTokenScopeAllowlistEntry). */
export interface AllowlistEntry {
  direction: ScopeDirection;
  sourceProjectId: number;
  targetId: number;
  targetKind: 'project' | 'group';
  addedById: number | null;
  createdAt: Date;
}

/** What a change answers: the scope after it and the entry it added or removed. */
export interface ScopeChange {
  ciJobTokenScope: JobTokenScope;
  ciJobTokenScopeAllowlistEntry: AllowlistEntry | null;
}

/** How a target is named: by numeric ID (REST, whose 404 names the parameter) or by path or ID (GraphQL). */
export type TargetRef = { restId: number } | { ref: Ref };

const INBOUND: ScopeDirection = 'inbound';
/** GitLab's ProjectScopeLink::PROJECT_LINK_DIRECTIONAL_LIMIT and GroupScopeLink::GROUP_LINK_LIMIT. */
export const LINK_LIMIT = 200;

export const SCOPE_MESSAGES = {
  insufficient: 'Insufficient permissions to modify the job token scope',
  projectUnauthorized: "The target_project that you are attempting to access does not exist or you don't have permission to perform this action",
  groupUnauthorized: "The target_group that you are attempting to access does not exist or you don't have permission to perform this action",
  projectTaken: 'Target project is already in the job token scope',
  groupTaken: 'This group is already in the job token allowlist.',
  self: "Validation failed: Target project can't be the same as the source project",
  projectLimit: 'Validation failed: Source project exceeds the allowable number of project links in this direction',
  groupLimit: 'Validation failed: Source project exceeds the allowable number of group links',
  sourceNotRemovable: 'Source project cannot be removed from the job token scope',
  projectNotInScope: 'Target project is not in the job token scope',
  groupNotInScope: 'Target group is not in the job token scope',
} as const;

/** GitLab's `bad_request!(reason)`. */
const refused = (reason: string) => badRequest(`400 Bad request - ${reason}`);

const projectEntry = (link: ProjectLinkRow): AllowlistEntry => ({
  direction: link.direction as ScopeDirection,
  sourceProjectId: link.sourceProjectId,
  targetId: link.targetProjectId,
  targetKind: 'project',
  addedById: link.addedById,
  createdAt: link.createdAt,
});

const groupEntry = (link: GroupLinkRow): AllowlistEntry => ({
  direction: INBOUND,
  sourceProjectId: link.sourceProjectId,
  targetId: link.targetGroupId,
  targetKind: 'group',
  addedById: link.addedById,
  createdAt: link.createdAt,
});

const present = <T>(rows: readonly (T | null | Error)[]): T[] => rows.filter((row): row is T => row !== null && !(row instanceof Error));

export class JobTokenScopeService {
  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
    private readonly projects: ProjectsService,
    private readonly groups: GroupsService,
  ) {}

  /** The project's job token scope; Maintainers (GitLab's admin_project). */
  async scope(project: ProjectRow): Promise<JobTokenScope> {
    await this.base.access.authorize('admin_project', project);
    return { project };
  }

  /** The project's CI/CD settings this module keeps; Maintainers. */
  async settings(project: ProjectRow): Promise<CiCdSettings> {
    await this.base.access.authorize('admin_project', project);
    const row = await this.base.db.projectCiCdSetting.findUnique({ where: { projectId: project.id } });
    return { project, inboundJobTokenScopeEnabled: row?.inboundJobTokenScopeEnabled ?? true, keepLatestArtifact: row?.keepLatestArtifact ?? true };
  }

  /** GitLab's ProjectCiCdSettingsUpdate; the settings the project keeps go through the projects service (Projects::UpdateService). */
  async updateSettings(project: ProjectRow, changes: CiCdSettingsChanges): Promise<CiCdSettings> {
    await this.base.access.authorize('admin_project', project);
    project = await this.projects.updateCiSettings(project, {
      ciPipelineVariablesMinimumOverrideRole: changes.pipelineVariablesMinimumOverrideRole,
      restrictUserDefinedVariables: changes.restrictUserDefinedVariables,
      ciForwardDeploymentEnabled: changes.forwardDeploymentEnabled,
      ciForwardDeploymentRollbackAllowed: changes.forwardDeploymentRollbackAllowed,
      mergePipelinesEnabled: changes.mergePipelinesEnabled,
      mergeTrainsEnabled: changes.mergeTrainsEnabled,
      mergeTrainsSkipTrainAllowed: changes.mergeTrainsSkipTrainAllowed,
    });
    const data = {
      ...(changes.inboundJobTokenScopeEnabled != null ? { inboundJobTokenScopeEnabled: changes.inboundJobTokenScopeEnabled } : {}),
      ...(changes.keepLatestArtifact != null ? { keepLatestArtifact: changes.keepLatestArtifact } : {}),
    };
    if (!Object.keys(data).length) return this.settings(project);
    const row = await this.base.db.projectCiCdSetting.upsert({ where: { projectId: project.id }, create: { projectId: project.id, ...data }, update: data });
    return { project, inboundJobTokenScopeEnabled: row.inboundJobTokenScopeEnabled, keepLatestArtifact: row.keepLatestArtifact };
  }

  /** The project itself, then the projects its allowlist in `direction` holds, in the order they were added. */
  allowlist(scope: JobTokenScope, page: PageArgs, direction: ScopeDirection = INBOUND) {
    const { db, loaders } = this.base;
    const where = { sourceProjectId: scope.project.id, direction };
    const fetch = async ({ skip, take }: Page) => {
      // Row 0 is the project itself (GitLab's Allowlist#projects puts it first); links follow.
      const links = await db.ciJobTokenProjectScopeLink.findMany({ where, orderBy: { id: 'asc' }, skip: Math.max(0, skip - 1), take: skip === 0 ? take - 1 : take, select: { targetProjectId: true } });
      const ids = [...(skip === 0 ? [scope.project.id] : []), ...links.map((link) => link.targetProjectId)];
      return present(await loaders.projects.byId.loadMany(ids));
    };
    return connection(page, fetch, async () => 1 + (await this.linkCount(scope, direction)));
  }

  /** How many projects the allowlist in `direction` links, the project itself not counted. */
  async linkCount(scope: JobTokenScope, direction: ScopeDirection = INBOUND): Promise<number> {
    return this.base.db.ciJobTokenProjectScopeLink.count({ where: { sourceProjectId: scope.project.id, direction } });
  }

  /** The groups in the project's allowlist, in the order they were added. */
  groupsAllowlist(scope: JobTokenScope, page: PageArgs) {
    const { db, loaders } = this.base;
    const where = { sourceProjectId: scope.project.id };
    const fetch = async ({ skip, take }: Page) => {
      const links = await db.ciJobTokenGroupScopeLink.findMany({ where, orderBy: { id: 'asc' }, skip, take, select: { targetGroupId: true } });
      return present(await loaders.namespaces.byId.loadMany(links.map((link) => link.targetGroupId)));
    };
    return connection(page, fetch, () => this.groupsCount(scope));
  }

  async groupsCount(scope: JobTokenScope): Promise<number> {
    return this.base.db.ciJobTokenGroupScopeLink.count({ where: { sourceProjectId: scope.project.id } });
  }

  /**
   * GitLab's AddProjectService: the caller administers the project and can read the target. Only inbound entries are
   * made: GitLab's mutation refuses OUTBOUND in its own words (a top-level argument error) once the project is found.
   */
  async addProject(project: ProjectRow, target: TargetRef, direction: ScopeDirection = INBOUND): Promise<ScopeChange> {
    await this.base.access.authorize('admin_project', project);
    if (direction !== INBOUND) throw argumentRefused('direction:', 'OUTBOUND scope entries can only be removed. Only INBOUND scope can be expanded.');
    const allowed = await this.targetProject(target);
    if (!allowed || !(await this.base.access.can('read_project', allowed))) throw refused(SCOPE_MESSAGES.projectUnauthorized);
    if (allowed.id === project.id) throw refused(SCOPE_MESSAGES.self);
    const db = this.base.db;
    const where = { sourceProjectId: project.id, direction: INBOUND };
    if (await db.ciJobTokenProjectScopeLink.findFirst({ where: { ...where, targetProjectId: allowed.id }, select: { id: true } })) throw refused(SCOPE_MESSAGES.projectTaken);
    if ((await db.ciJobTokenProjectScopeLink.count({ where })) >= LINK_LIMIT) throw refused(SCOPE_MESSAGES.projectLimit);
    const link = await db.ciJobTokenProjectScopeLink.create({
      data: { ...where, targetProjectId: allowed.id, addedById: this.base.viewer?.id ?? null },
    });
    return { ciJobTokenScope: { project }, ciJobTokenScopeAllowlistEntry: projectEntry(link) };
  }

  /** GitLab's AddGroupService: the caller administers the project and can read the group. */
  async addGroup(project: ProjectRow, target: TargetRef): Promise<ScopeChange> {
    await this.base.access.authorize('admin_project', project);
    const group = await this.targetGroup(target);
    if (!group || !(await this.base.access.can('read_group', group))) throw refused(SCOPE_MESSAGES.groupUnauthorized);
    const db = this.base.db;
    const where = { sourceProjectId: project.id };
    if (await db.ciJobTokenGroupScopeLink.findFirst({ where: { ...where, targetGroupId: group.id }, select: { id: true } })) throw refused(SCOPE_MESSAGES.groupTaken);
    if ((await db.ciJobTokenGroupScopeLink.count({ where })) >= LINK_LIMIT) throw refused(SCOPE_MESSAGES.groupLimit);
    const link = await db.ciJobTokenGroupScopeLink.create({ data: { ...where, targetGroupId: group.id, addedById: this.base.viewer?.id ?? null } });
    return { ciJobTokenScope: { project }, ciJobTokenScopeAllowlistEntry: groupEntry(link) };
  }

  /** GitLab's AddGroupOrProjectService: a full path names a group or a project. */
  async addGroupOrProject(project: ProjectRow, path: string): Promise<ScopeChange> {
    await this.base.access.authorize('admin_project', project);
    const namespace = await this.namespaces.lookup({ path });
    if (namespace?.kind === 'group') return this.addGroup(project, { ref: { id: namespace.id } });
    const target = await this.projects.find({ path });
    // GitLab's "The group or project does not exist." (a NOT_FOUND), in this server's 404 words.
    if (!target) throw notFound('Group or project');
    return this.addProject(project, { ref: { id: target.id } });
  }

  /** GitLab's RemoveProjectService, in either direction; the target is a project the caller can read. */
  async removeProject(project: ProjectRow, targetRef: Ref, direction: ScopeDirection = INBOUND): Promise<ScopeChange> {
    const target = await this.projects.get(targetRef);
    if (!(await this.base.access.can('admin_project', project))) throw forbidden(SCOPE_MESSAGES.insufficient);
    if (target.id === project.id) throw refused(SCOPE_MESSAGES.sourceNotRemovable);
    const db = this.base.db;
    const link = await db.ciJobTokenProjectScopeLink.findFirst({ where: { sourceProjectId: project.id, targetProjectId: target.id, direction } });
    if (!link) throw refused(SCOPE_MESSAGES.projectNotInScope);
    await db.ciJobTokenProjectScopeLink.deleteMany({ where: { id: link.id } });
    return { ciJobTokenScope: { project }, ciJobTokenScopeAllowlistEntry: projectEntry(link) };
  }

  /** GitLab's RemoveGroupService; a group the caller can no longer read may still be removed by ID. */
  async removeGroup(project: ProjectRow, target: TargetRef): Promise<ScopeChange> {
    if (!(await this.base.access.can('admin_project', project))) throw forbidden(SCOPE_MESSAGES.insufficient);
    const group = 'restId' in target ? await this.targetGroup(target) : await this.groups.find(target.ref);
    if (!group) throw notFound('restId' in target ? 'target_group_id not found' : 'Group');
    const db = this.base.db;
    const link = await db.ciJobTokenGroupScopeLink.findFirst({ where: { sourceProjectId: project.id, targetGroupId: group.id } });
    if (!link) throw refused(SCOPE_MESSAGES.groupNotInScope);
    await db.ciJobTokenGroupScopeLink.deleteMany({ where: { id: link.id } });
    return { ciJobTokenScope: { project }, ciJobTokenScopeAllowlistEntry: groupEntry(link) };
  }

  /** The project a target names; by REST ID whether or not the caller can read it (GitLab's Project.find_by_id). */
  private async targetProject(target: TargetRef): Promise<ProjectRow | null> {
    if ('ref' in target) return this.projects.find(target.ref);
    const project = await this.base.loaders.projects.byId.load(target.restId);
    if (!project) throw notFound('target_project_id not found');
    return project;
  }

  /** The group a target names; by REST ID whether or not the caller can read it (GitLab's Group.find_by_id). */
  private async targetGroup(target: TargetRef): Promise<NamespaceRow | null> {
    const namespace = 'ref' in target ? await this.namespaces.lookup(target.ref) : await this.base.loaders.namespaces.byId.load(target.restId);
    const group = namespace?.kind === 'group' ? namespace : null;
    if (!group && 'restId' in target) throw notFound('target_group_id not found');
    return group;
  }
}
