/** Owns memberships: effective access levels (group membership inherited by subgroups and projects) and member lists. */
import type { ServiceDeps } from '../../context.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { AccessLevel, MEMBER_LEVELS, requireLevel, requireWriteScope } from '../../auth/policy.js';
import { conflict, forbidden, invalidParams, invalidValue } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { UserRow } from '../users/service.js';

export type MemberRow = Awaited<ReturnType<PrismaClient['member']['findUniqueOrThrow']>>;

/** The parts of a namespace access depends on. */
export interface NamespaceScope {
  id: number;
  kind: string;
  ownerId: number | null;
  traversalIds: number[];
}

export interface MemberFilters {
  search?: string | null;
  relations?: readonly ('DIRECT' | 'INHERITED')[] | null;
}

export interface MemberInput {
  userId?: string | null;
  username?: string | null;
  accessLevel: number;
  expiresAt?: Date | null;
}

export class MembersService {
  constructor(private readonly deps: ServiceDeps) {}

  /** The viewer's effective level in a namespace: owner of a personal one, else the highest group membership up the tree. */
  async levelInNamespace(ns: NamespaceScope): Promise<number> {
    const viewer = this.deps.viewer;
    if (!viewer) return AccessLevel.NO_ACCESS;
    if (ns.kind === 'user') return ns.ownerId === viewer.id ? AccessLevel.OWNER : AccessLevel.NO_ACCESS;
    const { groups } = await this.deps.loaders.members.viewerMemberships();
    return Math.max(AccessLevel.NO_ACCESS, ...ns.traversalIds.map((id) => groups.get(id) ?? 0));
  }

  /** The viewer's direct level on a project (0 when none). */
  async directProjectLevel(projectId: number): Promise<number> {
    if (!this.deps.viewer) return AccessLevel.NO_ACCESS;
    const { projects } = await this.deps.loaders.members.viewerMemberships();
    return projects.get(projectId) ?? AccessLevel.NO_ACCESS;
  }

  /** The viewer's effective level on a project in a namespace. */
  async levelInProject(projectId: number, ns: NamespaceScope): Promise<number> {
    return Math.max(await this.directProjectLevel(projectId), await this.levelInNamespace(ns));
  }

  /** Groups and projects the viewer is a direct member of, with at least `min` access. */
  async viewerMembershipIds(min: number = AccessLevel.GUEST): Promise<{ groupIds: number[]; projectIds: number[] }> {
    const { groups, projects } = await this.deps.loaders.members.viewerMemberships();
    const atLeast = (m: Map<number, number>) => [...m].filter(([, level]) => level >= min).map(([id]) => id);
    return { groupIds: atLeast(groups), projectIds: atLeast(projects) };
  }

  /** Members of a readable group: direct, or with those inherited from its ancestors. */
  listForNamespace(ns: NamespaceScope, filters: MemberFilters, page: PageArgs) {
    return filters.relations?.includes('INHERITED')
      ? this.listInherited({ projectId: null, ancestors: ns.traversalIds }, filters.search, page)
      : this.list({ namespaceId: ns.id }, filters.search, page);
  }

  /** Members of a readable project: direct, or with those inherited from its groups. */
  listForProject(project: { id: number; namespace: NamespaceScope }, filters: MemberFilters, page: PageArgs) {
    const ancestors = project.namespace.kind === 'group' ? project.namespace.traversalIds : [];
    return filters.relations?.includes('INHERITED')
      ? this.listInherited({ projectId: project.id, ancestors }, filters.search, page)
      : this.list({ projectId: project.id }, filters.search, page);
  }

  /** Number of distinct users with a membership in the group or any of its descendants. */
  countWithDescendants(namespaceId: number): Promise<number> {
    return this.deps.loaders.members.countWithDescendants.load(namespaceId);
  }

  /** Adds a member to a group. Needs Owner access (or administrator). */
  async addToGroup(groupRef: string, input: MemberInput): Promise<MemberRow> {
    requireWriteScope(this.deps.viewer);
    const group = await this.deps.services.groups.get(groupRef);
    requireLevel(this.deps.viewer, await this.levelInNamespace(group), AccessLevel.OWNER);
    return this.add({ namespaceId: group.id }, input);
  }

  /** Adds a member to a project. Maintainers may grant up to their own level; Owner needs Owner (or administrator). */
  async addToProject(projectRef: string, input: MemberInput): Promise<MemberRow> {
    requireWriteScope(this.deps.viewer);
    const { project, level } = await this.deps.services.projects.getWithAccess(projectRef, AccessLevel.MAINTAINER);
    if (!this.deps.viewer?.admin && input.accessLevel > level) throw forbidden();
    return this.add({ projectId: project.id }, input);
  }

  /** Makes the creator of a group or personal project its owner (no permission check: the caller just created it). */
  async addOwner(tx: Prisma.TransactionClient, source: { namespaceId: number } | { projectId: number }, userId: number): Promise<void> {
    await tx.member.create({ data: { ...source, userId, accessLevel: AccessLevel.OWNER, createdById: userId } });
  }

  /**
   * Memberships of a project and/or a chain of groups, each user once with their highest level (GitLab's
   * `members/all`); expired memberships do not count.
   */
  private listInherited(scope: { projectId: number | null; ancestors: number[] }, search: string | null | undefined, page: PageArgs) {
    const db = this.deps.db;
    const pattern = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const matching = Prisma.sql`
      SELECT DISTINCT ON (m."userId") m.*
      FROM "members" m JOIN "users" u ON u."id" = m."userId"
      WHERE (m."projectId" = ${scope.projectId}::int OR m."namespaceId" = ANY(${scope.ancestors}::int[]))
        AND (m."expiresAt" IS NULL OR m."expiresAt" >= current_date)
        AND (${pattern}::text IS NULL OR u."username" ILIKE ${pattern}::text OR u."name" ILIKE ${pattern}::text)
      ORDER BY m."userId", m."accessLevel" DESC, m."id"`;
    return connection(
      page,
      ({ skip, take }) => db.$queryRaw<MemberRow[]>`SELECT * FROM (${matching}) d ORDER BY d."id" LIMIT ${take} OFFSET ${skip}`,
      async () => Number((await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM (${matching}) d`)[0]?.n ?? 0),
    );
  }

  private list(source: { namespaceId: number } | { projectId: number }, search: string | null | undefined, page: PageArgs) {
    const where: Prisma.MemberWhereInput = { ...source };
    if (search) {
      where.user = { OR: [{ username: { contains: search, mode: 'insensitive' } }, { name: { contains: search, mode: 'insensitive' } }] };
    }
    const db = this.deps.db;
    return connection(
      page,
      ({ skip, take }) => db.member.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.member.count({ where }),
    );
  }

  private async add(source: { namespaceId: number } | { projectId: number }, input: MemberInput): Promise<MemberRow> {
    if (!MEMBER_LEVELS.includes(input.accessLevel)) throw invalidValue('access_level');
    const user = await this.resolveUser(input);
    const existing = await this.deps.db.member.findFirst({ where: { ...source, userId: user.id }, select: { id: true } });
    if (existing) throw conflict('Member already exists');
    // GitLab records that the member joined, with the member as the event's author.
    return this.deps.db.$transaction(async (tx) => {
      const member = await tx.member.create({
        data: { ...source, userId: user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: this.deps.viewer?.id },
      });
      const where = 'projectId' in source ? { projectId: source.projectId } : { groupId: source.namespaceId };
      await this.deps.services.activity.record({ action: 'joined', authorId: user.id, targetType: null, ...where }, tx);
      return member;
    });
  }

  private async resolveUser(input: MemberInput): Promise<UserRow> {
    const given = [input.userId != null, input.username != null].filter(Boolean).length;
    if (given === 0) throw invalidParams(['user_id, username are missing, exactly one parameter must be provided']);
    if (given === 2) throw invalidParams(['user_id, username are mutually exclusive']);
    return input.userId != null
      ? this.deps.services.users.get({ id: input.userId })
      : this.deps.services.users.get({ username: input.username });
  }
}
