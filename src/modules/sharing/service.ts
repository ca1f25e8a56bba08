/**
 * Owns shares of groups and projects with groups (GitLab's group_group_links and project_group_links): creating
 * and removing them, and listing them. What members get through them is decided in src/auth (policy.ts), with the
 * levels loadSharedAccess computes.
 */
import { isRole } from '../../auth/access-levels.js';
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { badRequest, conflict, invalidArgument, notFound, notFoundAs } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { GroupFilters, GroupsService } from '../groups/service.js';
import { fuzzyWhere, type NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';

export type GroupLinkRow = Awaited<ReturnType<PrismaClient['groupGroupLink']['findUniqueOrThrow']>>;
export type ProjectLinkRow = Awaited<ReturnType<PrismaClient['projectGroupLink']['findUniqueOrThrow']>>;

/** A share as the shared group or project shows it (GitLab's SharedGroupWithGroup and SharedGroupWithProject). */
export interface ShareView {
  group: NamespaceRow;
  groupAccess: number;
  expiresAt: Date | null;
}

export interface ShareInput {
  groupAccess: number;
  expiresAt?: Date | null;
}

/** A share grants a role (GitLab's `values: Gitlab::Access.all_values`): Minimal Access is none. */
function refuseMinimalAccess(input: ShareInput): void {
  if (!isRole(input.groupAccess)) throw invalidArgument('groupAccess');
}

/** `GET /projects/:id/groups` (GitLab's Projects::GroupsFinder). */
export interface ProjectGroupFilters {
  search?: string | null;
  skipGroups?: readonly number[] | null;
  withShared?: boolean | null;
  sharedVisibleOnly?: boolean | null;
  sharedMinAccessLevel?: number | null;
}

export class SharingService {
  constructor(
    private readonly base: ServiceBase,
    private readonly groups: GroupsService,
  ) {}

  /**
   * Shares a group with another group the viewer can read (GitLab's Groups::GroupLinks::CreateService): Owners of
   * the shared group only, answered as GitLab's service answers everyone else, `404 Not Found`.
   */
  async shareGroup(group: NamespaceRow, invited: NamespaceRow, input: ShareInput): Promise<NamespaceRow> {
    const { db, access } = this.base;
    refuseMinimalAccess(input);
    if (!(await access.can('admin_group_member', group))) throw notFoundAs('Not Found');
    const existing = await db.groupGroupLink.findUnique({ where: { sharedGroupId_sharedWithGroupId: { sharedGroupId: group.id, sharedWithGroupId: invited.id } }, select: { id: true } });
    if (existing) throw conflict('Shared group The group has already been shared with this group');
    await db.$transaction(async (tx) => {
      await tx.groupGroupLink.create({ data: { sharedGroupId: group.id, sharedWithGroupId: invited.id, groupAccess: input.groupAccess, expiresAt: input.expiresAt ?? null } });
      await this.groupShareChanged(tx, invited.id);
    });
    this.base.loaders.sharing.groupLinksBySharedGroupId.clear(group.id);
    return group;
  }

  /**
   * Removes a group's share with another group. GitLab looks the share up first and lets its service refuse
   * non-Owners silently; here a non-Owner gets the service's `404 Not Found` before learning whether it exists.
   */
  async unshareGroup(group: NamespaceRow, invitedId: number): Promise<NamespaceRow> {
    const { db, access } = this.base;
    if (!(await access.can('admin_group_member', group))) throw notFoundAs('Not Found');
    const link = await db.groupGroupLink.findUnique({ where: { sharedGroupId_sharedWithGroupId: { sharedGroupId: group.id, sharedWithGroupId: invitedId } } });
    if (!link) throw notFound('Group Link');
    await db.$transaction(async (tx) => {
      await tx.groupGroupLink.delete({ where: { id: link.id } });
      await this.groupShareChanged(tx, invitedId);
    });
    this.base.loaders.sharing.groupLinksBySharedGroupId.clear(group.id);
    return group;
  }

  /**
   * Shares a project with a group (GitLab's `POST /projects/:id/share` and Projects::GroupLinks::CreateService):
   * Maintainers (Owner access only by those who may manage Owners), with a group the viewer has access to, unless
   * the project's group locks sharing.
   */
  async shareProject(project: ProjectRow, groupId: number, input: ShareInput): Promise<ProjectLinkRow> {
    const { db, access, loaders } = this.base;
    refuseMinimalAccess(input);
    await access.authorize('admin_project', project);
    if (project.namespace.shareWithGroupLock) throw badRequest('The project sharing with group is disabled');
    // Granting Owner asks for manage_owners, as adding an Owner member does (GitLab answers `403 Forbidden`).
    await access.authorizeGrant(project, input.groupAccess);
    const group = await loaders.namespaces.byId.load(groupId);
    if (!group || !(await access.can('read_namespace_via_membership', group))) throw notFoundAs('Not Found');
    // GitLab's ProjectGroupLink validations, answered 409 with their full messages.
    if (project.namespace.kind === 'group' && project.namespace.traversalIds.includes(group.id)) {
      throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
    }
    const existing = await db.projectGroupLink.findUnique({ where: { projectId_groupId: { projectId: project.id, groupId } }, select: { id: true } });
    if (existing) throw conflict('Project already shared with this group');
    const link = await db.$transaction(async (tx) => {
      const created = await tx.projectGroupLink.create({ data: { projectId: project.id, groupId, groupAccess: input.groupAccess, expiresAt: input.expiresAt ?? null } });
      await this.projectShareChanged(tx, group);
      return created;
    });
    loaders.projects.groupLinks.clear(project.id);
    return link;
  }

  /** Removes a project's share with a group; Maintainers. */
  async unshareProject(project: ProjectRow, groupId: number): Promise<void> {
    const { db, access, loaders } = this.base;
    await access.authorize('admin_project', project);
    const link = await db.projectGroupLink.findUnique({ where: { projectId_groupId: { projectId: project.id, groupId } }, include: { group: true } });
    if (!link) throw notFound('Group Link');
    await db.$transaction(async (tx) => {
      await tx.projectGroupLink.delete({ where: { id: link.id } });
      await this.projectShareChanged(tx, link.group);
    });
    loaders.projects.groupLinks.clear(project.id);
  }

  /** The projects shared with a group, while their share lasts (GitLab's `shared_projects`), as a filter of projects. */
  sharedProjectsWhere(group: NamespaceRow): Prisma.ProjectWhereInput {
    const today = new Date(new Date().toISOString().slice(0, 10));
    return { groupLinks: { some: { groupId: group.id, OR: [{ expiresAt: null }, { expiresAt: { gte: today } }] } } };
  }

  /** A group's shares with the groups the viewer can read (GitLab's shared_with_group_links_visible_to_user). */
  async groupShares(group: NamespaceRow): Promise<ShareView[]> {
    const links = await this.base.loaders.sharing.groupLinksBySharedGroupId.load(group.id);
    return this.visible(links.map((l) => ({ group: l.sharedWithGroup, groupAccess: l.groupAccess, expiresAt: l.expiresAt })));
  }

  /** A project's shares with the groups the viewer can read (GitLab's visible_group_links). */
  async projectShares(project: ProjectRow): Promise<ShareView[]> {
    const links = await this.base.loaders.projects.groupLinks.load(project.id);
    return this.visible(links.map((l) => ({ group: l.group, groupAccess: l.groupAccess, expiresAt: l.expiresAt })));
  }

  private async visible(shares: ShareView[]): Promise<ShareView[]> {
    const seen = await Promise.all(shares.map((s) => this.base.access.check('read_group', s.group)));
    return shares.filter((_s, i) => seen[i]);
  }

  /** The groups that shared themselves with this group, as far as the viewer can read them (`GET /groups/:id/groups/shared`). */
  sharedGroups(group: NamespaceRow, filters: GroupFilters, page: PageArgs) {
    return this.groups.list({ ...filters, allAvailable: true, topLevelOnly: false }, page, { sharedWithGroupLinks: { some: { sharedWithGroupId: group.id } } });
  }

  /** A readable project's group and its ancestors, and with `withShared` the groups it is shared with (GitLab's Projects::GroupsFinder). */
  async projectGroups(project: ProjectRow, filters: ProjectGroupFilters, page: PageArgs) {
    const { db, access } = this.base;
    const or: Prisma.NamespaceWhereInput[] = [];
    if (project.namespace.kind === 'group') or.push({ id: { in: project.namespace.traversalIds } });
    if (filters.withShared) {
      const shared: Prisma.NamespaceWhereInput = {
        projectGroupLinks: { some: { projectId: project.id, ...(filters.sharedMinAccessLevel != null ? { groupAccess: { gte: filters.sharedMinAccessLevel } } : {}) } },
      };
      or.push(filters.sharedVisibleOnly ? { AND: [shared, await access.where('read_group')] } : shared);
    }
    const and: Prisma.NamespaceWhereInput[] = [{ kind: 'group' }, or.length ? { OR: or } : { id: { in: [] } }];
    if (filters.skipGroups?.length) and.push({ id: { notIn: [...filters.skipGroups] } });
    if (filters.search) and.push(fuzzyWhere(filters.search, ['name', 'path']));
    const where: Prisma.NamespaceWhereInput = { AND: and };
    return connection(
      page,
      ({ skip, take }) => db.namespace.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      () => db.namespace.count({ where }),
    );
  }

  /** A group share changes what the invited group's direct members reach: their remembered memberships go. */
  private async groupShareChanged(tx: Prisma.TransactionClient, invitedId: number): Promise<void> {
    const members = await tx.member.findMany({ where: { namespaceId: invitedId }, select: { userId: true } });
    await this.membershipsChanged(tx, members.map((m) => m.userId));
  }

  /**
   * A project share changes what everyone who reaches the group reaches: its members and its ancestors' (direct),
   * and the direct members of groups shared with any of them.
   */
  private async projectShareChanged(tx: Prisma.TransactionClient, group: NamespaceRow): Promise<void> {
    const rows = await tx.$queryRaw<{ userId: number }[]>`
      SELECT m."userId" FROM "members" m WHERE m."namespaceId" = ANY(${group.traversalIds}::int[])
      UNION
      SELECT m."userId" FROM "group_group_links" l JOIN "members" m ON m."namespaceId" = l."sharedWithGroupId"
      WHERE l."sharedGroupId" = ANY(${group.traversalIds}::int[])`;
    await this.membershipsChanged(tx, rows.map((r) => r.userId));
  }

  private membershipsChanged(tx: Prisma.TransactionClient, userIds: number[]): Promise<void> {
    const message: MembershipsChanged = { userIds: [...new Set(userIds)] };
    return this.base.publish(MEMBERSHIPS_CHANGED, message, tx);
  }
}
