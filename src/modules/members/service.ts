/** Owns memberships: member lists (direct, or with those inherited from ancestor groups) and adding members. */
import { CREATOR_ACCESS_LEVEL } from '../../auth/access-levels.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { conflict, exactlyOneOf, invalid, mutuallyExclusive } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import type { ActivityService } from '../activity/service.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { UserRow, UsersService } from '../users/service.js';
import { containsIgnoringCase, escapeLike } from '../../db/text.js';

export type MemberRow = Awaited<ReturnType<PrismaClient['member']['findUniqueOrThrow']>>;

export interface MemberFilters {
  search?: string | null;
  relations?: readonly ('DIRECT' | 'INHERITED')[] | null;
}

export interface MemberInput {
  userId?: number | null;
  username?: string | null;
  /** A level GitLab allows for memberships (the `MemberAccessLevel` enum's values). */
  accessLevel: number;
  expiresAt?: Date | null;
}

type Source = { namespaceId: number } | { projectId: number };

export class MembersService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
    private readonly activity: ActivityService,
  ) {}

  /** Members of a readable group: direct, or with those inherited from its ancestors. */
  listForGroup(group: NamespaceRow, filters: MemberFilters, page: PageArgs) {
    return filters.relations?.includes('INHERITED')
      ? this.listInherited({ projectId: null, ancestors: group.traversalIds }, filters.search, page)
      : this.list({ namespaceId: group.id }, filters.search, page);
  }

  /** Members of a readable project: direct, or with those inherited from its groups. */
  listForProject(project: ProjectRow, filters: MemberFilters, page: PageArgs) {
    const ancestors = project.namespace.kind === 'group' ? project.namespace.traversalIds : [];
    return filters.relations?.includes('INHERITED')
      ? this.listInherited({ projectId: project.id, ancestors }, filters.search, page)
      : this.list({ projectId: project.id }, filters.search, page);
  }

  /** Number of distinct users with a membership in the group or any of its descendants. */
  countWithDescendants(group: NamespaceRow): Promise<number> {
    return this.base.loaders.members.countWithDescendants.load(group.id);
  }

  /** Adds a member to a readable group. Needs `admin_group_member` (Owner). */
  async addToGroup(group: NamespaceRow, input: MemberInput): Promise<MemberRow> {
    await this.base.access.authorize('admin_group_member', group);
    return this.add({ namespaceId: group.id }, input, { groupId: group.id });
  }

  /** Adds a member to a readable project. Maintainers may grant up to Maintainer; Owner needs `manage_owners`. */
  async addToProject(project: ProjectRow, input: MemberInput): Promise<MemberRow> {
    await this.base.access.authorizeGrant(project, input.accessLevel);
    return this.add({ projectId: project.id }, input, { project });
  }

  /** Makes the creator of a group or personal project its owner (no check: the caller just created it). */
  async addCreator(tx: Prisma.TransactionClient, source: Source, userId: number): Promise<void> {
    await tx.member.create({ data: { ...source, userId, accessLevel: CREATOR_ACCESS_LEVEL, createdById: userId } });
    await this.changed([userId], tx);
  }

  /** Announces, on commit, that these users' memberships changed: remembered ones are dropped everywhere. */
  private changed(userIds: number[], tx: Prisma.TransactionClient): Promise<void> {
    const message: MembershipsChanged = { userIds };
    return this.base.publish(MEMBERSHIPS_CHANGED, message, tx);
  }

  /**
   * Memberships of a project and/or a chain of groups, each user once with their highest level (GitLab's
   * `members/all`); expired memberships do not count.
   */
  private listInherited(scope: { projectId: number | null; ancestors: number[] }, search: string | null | undefined, page: PageArgs) {
    const db = this.base.db;
    const pattern = search ? `%${escapeLike(search)}%` : null;
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

  private list(source: Source, search: string | null | undefined, page: PageArgs) {
    const where: Prisma.MemberWhereInput = { ...source };
    if (search) {
      where.user = { OR: [{ username: containsIgnoringCase(search) }, { name: containsIgnoringCase(search) }] };
    }
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take }) => db.member.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.member.count({ where }),
    );
  }

  private async add(source: Source, input: MemberInput, on: { project: ProjectRow } | { groupId: number }): Promise<MemberRow> {
    const user = await this.resolveUser(input);
    // GitLab's FutureDateValidator: a membership may expire today at the earliest.
    if (input.expiresAt && input.expiresAt.toISOString().slice(0, 10) < new Date().toISOString().slice(0, 10)) {
      throw invalid({ expiresAt: ['cannot be a date in the past'] });
    }
    const { db, viewer } = this.base;
    const existing = await db.member.findFirst({ where: { ...source, userId: user.id }, select: { id: true } });
    if (existing) throw conflict('Member already exists');
    // GitLab records that the member joined, with the member as the event's author.
    return db.$transaction(async (tx) => {
      const member = await tx.member.create({
        data: { ...source, userId: user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: viewer?.id },
      });
      // Announced before the event it causes, so the new member's subscriptions hear of that event.
      await this.changed([user.id], tx);
      await this.activity.record({ action: 'joined', authorId: user.id, targetType: null, ...on }, tx);
      return member;
    });
  }

  private resolveUser(input: MemberInput): Promise<UserRow> {
    if (input.userId != null && input.username != null) throw mutuallyExclusive('userId', 'username');
    if (input.userId != null) return this.users.get({ id: input.userId });
    if (input.username != null) return this.users.get({ path: input.username });
    throw exactlyOneOf('userId', 'username');
  }
}
