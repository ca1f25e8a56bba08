/**
 * Owns memberships: member lists (direct, or with those inherited from ancestor groups), one member, adding,
 * changing and removing members under GitLab's rules (last Owner, Owners managed only by Owners, a membership no
 * lower than one inherited from a group).
 */
import { CREATOR_ACCESS_LEVEL, LOWEST_ROLE, OWNER_ACCESS_LEVEL, humanAccessLevel, isMinimalAccess } from '../../auth/access-levels.js';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { badRequest, checkAll, conflict, exactlyOneOf, forbidden, invalid, mutuallyExclusive, recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { parseId, type Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import type { ActivityService } from '../activity/service.js';
import type { Announcement } from '../../events/bus.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { UserRow, UsersService } from '../users/service.js';
import { containsIgnoringCase, escapeLike } from '../../db/text.js';

export type MemberRow = Awaited<ReturnType<PrismaClient['member']['findUniqueOrThrow']>>;

export type MemberRelation = 'DIRECT' | 'INHERITED';

export interface MemberFilters {
  search?: string | null;
  relations?: readonly MemberRelation[] | null;
  /** Only these users (GitLab's `user_ids`). */
  userIds?: readonly number[] | null;
  /** Not these users (GitLab's `skip_users`). */
  skipUsers?: readonly number[] | null;
}

export interface MemberInput {
  userId?: number | null;
  username?: string | null;
  /** A level GitLab allows for memberships (the `MemberAccessLevel` enum's values). */
  accessLevel: number;
  expiresAt?: Date | null;
}

/** REST's `POST …/members`: `user_id` or `username`, each one user or several separated by commas. */
export interface MembersAddInput {
  userId?: string | null;
  username?: string | null;
  accessLevel: number;
  expiresAt?: Date | null;
}

/** What REST's `POST …/members` answers: the membership for one user; for several, GitLab's service status. */
export type MembersAdded = { member: MemberRow } | { status: 'success' | 'error'; message: string | null };

export interface MemberChange {
  accessLevel: number;
  expiresAt?: Date | null;
}

export interface MemberRemoval {
  /** Keep the user's direct memberships of the group's subgroups and projects (GitLab removes them by default). */
  skipSubresources?: boolean | null;
}

type Source = { namespaceId: number } | { projectId: number };
type SourceColumn = 'namespaceId' | 'projectId';

function sourceColumn(source: Source): [SourceColumn, number] {
  return 'projectId' in source ? ['projectId', source.projectId] : ['namespaceId', source.namespaceId];
}

/** The INSERT of one membership, for a CTE: `sourceId` is an SQL expression for its project's or group's id. */
function memberInsert(column: SourceColumn, sourceId: Prisma.Sql, m: { userId: number; accessLevel: number; expiresAt: Date | null; createdById: number | null }): Prisma.Sql {
  const expiresAt = m.expiresAt ? m.expiresAt.toISOString().slice(0, 10) : null;
  return Prisma.sql`
    INSERT INTO "members" ("userId", ${Prisma.raw(`"${column}"`)}, "accessLevel", "expiresAt", "createdById", "updatedAt")
    VALUES (${m.userId}::int, ${sourceId}, ${m.accessLevel}::int, ${expiresAt}::date, ${m.createdById}::int, now())
    RETURNING *`;
}

/** The announcement that these users' memberships changed: remembered ones are dropped everywhere. */
function membershipsChanged(userIds: number[]): Announcement {
  const payload: MembershipsChanged = { userIds };
  return { topic: MEMBERSHIPS_CHANGED, payload };
}

/** Where inherited memberships come from: the project (if any) and the chain of groups above, the source's own last. */
interface Scope {
  projectId: number | null;
  ancestors: number[];
}

/** Most users one request may add (Members::CreateService::DEFAULT_INVITE_LIMIT). */
const MAX_MEMBERS_ADD = 100;

/** Most memberships one change may touch (GitLab's bulk update limit). */
const MAX_MEMBERS_UPDATE = 50;

const unexpired = (): Prisma.MemberWhereInput => ({ OR: [{ expiresAt: null }, { expiresAt: { gte: new Date(new Date().toISOString().slice(0, 10)) } }] });

export class MembersService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
    private readonly activity: ActivityService,
  ) {}

  /** Members of a readable group: direct, or with those inherited from its ancestors. */
  listForGroup(group: NamespaceRow, filters: MemberFilters, page: PageArgs) {
    return filters.relations?.includes('INHERITED') ? this.listInherited(groupScope(group), filters, page) : this.list({ namespaceId: group.id }, filters, page);
  }

  /** Members of a readable project: direct, or with those inherited from its groups. */
  listForProject(project: ProjectRow, filters: MemberFilters, page: PageArgs) {
    return filters.relations?.includes('INHERITED') ? this.listInherited(projectScope(project), filters, page) : this.list({ projectId: project.id }, filters, page);
  }

  /** One member of a readable group, to a signed-in viewer: a direct membership, or (with INHERITED) the user's effective one; `404 Not found` otherwise. */
  findInGroup(group: NamespaceRow, userId: number, relations: readonly MemberRelation[]): Promise<MemberRow> {
    // GitLab's members API authenticates every request, whatever the group's visibility.
    this.base.access.requireViewer();
    return relations.includes('INHERITED') ? this.findInherited(groupScope(group), userId) : this.direct({ namespaceId: group.id }, userId);
  }

  /** One member of a readable project, as `findInGroup`. */
  findInProject(project: ProjectRow, userId: number, relations: readonly MemberRelation[]): Promise<MemberRow> {
    this.base.access.requireViewer();
    return relations.includes('INHERITED') ? this.findInherited(projectScope(project), userId) : this.direct({ projectId: project.id }, userId);
  }

  /**
   * A user's direct memberships of groups (`group`) or projects (`project`), oldest first, as UserCore's
   * groupMemberships and projectMemberships show them: only those in groups or projects the viewer may read (GitLab
   * redacts the others, GroupMemberType and ProjectMemberType authorizing read_group and read_project).
   */
  async ofUser(userId: number, kind: 'group' | 'project', page: PageArgs) {
    const { access, db } = this.base;
    const where: Prisma.MemberWhereInput =
      kind === 'group'
        ? { userId, namespace: { is: await access.where('read_group') } }
        : { userId, project: { is: { AND: [await access.where('read_project'), { pendingDelete: false }] } } };
    return connection(
      page,
      ({ skip, take }) => db.member.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.member.count({ where }),
    );
  }

  /** Number of distinct users with a membership in the group or any of its descendants. */
  countWithDescendants(group: NamespaceRow): Promise<number> {
    return this.base.loaders.members.countWithDescendants.load(group.id);
  }

  /**
   * Starts loading the users an addition names by id, and the caller (each answer shows who added the member), so
   * they arrive with the group or project loaded meanwhile, in one turn instead of two. Nothing is decided on them
   * here: the addition looks them up again (from the loaders) once the caller's access is checked.
   */
  preloadUsers(userIds: readonly (number | null | undefined)[]): void {
    const { loaders, viewer } = this.base;
    for (const id of [...userIds, viewer?.id ?? null]) if (id != null) void loaders.users.byId.load(id).catch(() => {});
  }

  /** Adds a member to a readable group. Needs `admin_group_member` (Owner). */
  async addToGroup(group: NamespaceRow, input: MemberInput): Promise<MemberRow> {
    await this.base.access.authorize('admin_group_member', group);
    const user = await this.resolveUser(input);
    // Independent reads, at once; refused in GitLab's order.
    await checkAll([this.refuseExisting({ namespaceId: group.id }, user.id), this.validate(groupScope(group), user.id, input)]);
    return this.create({ namespaceId: group.id }, user, input, { groupId: group.id });
  }

  /** Adds a member to a readable project. Maintainers may grant up to Maintainer; Owner needs `manage_owners`. */
  async addToProject(project: ProjectRow, input: MemberInput): Promise<MemberRow> {
    await this.base.access.authorize('admin_project_member', project);
    const user = await this.resolveUser(input);
    // Independent reads, at once; refused in GitLab's order.
    await checkAll([
      this.refuseExisting({ projectId: project.id }, user.id),
      this.base.access.authorizeGrant(project, input.accessLevel),
      this.validate(projectScope(project), user.id, input),
    ]);
    return this.create({ projectId: project.id }, user, input, { project });
  }

  /**
   * REST's `POST /groups/:id/members`: one user as `addToGroup`, or several (`user_id=1,2`, `username=a,b`) as GitLab's
   * Members::CreateService adds them: existing members take the new level, unknown users are skipped, and each
   * refusal is reported in the answer's message rather than failing the rest.
   */
  async addUsersToGroup(group: NamespaceRow, input: MembersAddInput): Promise<MembersAdded> {
    if (!isList(input)) return { member: await this.addToGroup(group, single(input)) };
    await this.base.access.authorize('admin_group_member', group);
    const mayUpdate = async (m: MemberRow) =>
      this.base.access.can('update_group_member', { group, userId: m.userId, lastOwner: await this.isLastOwner(group, m, this.base.db) });
    return this.addMany({ namespaceId: group.id }, groupScope(group), input, { groupId: group.id }, mayUpdate);
  }

  /** REST's `POST /projects/:id/members`, as `addUsersToGroup`; only those who manage Owners add Owners. */
  async addUsersToProject(project: ProjectRow, input: MembersAddInput): Promise<MembersAdded> {
    if (!isList(input)) return { member: await this.addToProject(project, single(input)) };
    await this.base.access.authorizeGrant(project, input.accessLevel);
    const mayUpdate = (m: MemberRow) => this.base.access.can('update_project_member', { project, userId: m.userId, accessLevel: m.accessLevel });
    return this.addMany({ projectId: project.id }, projectScope(project), input, { project }, mayUpdate);
  }

  /** Changes a direct member of a readable group (GitLab's update_group_member: Owners, never the last Owner). */
  async updateInGroup(group: NamespaceRow, userIds: readonly number[], change: MemberChange): Promise<MemberRow[]> {
    const members = await this.directMembers({ namespaceId: group.id }, userIds);
    for (const member of members) await this.authorizeOnGroup('update_group_member', group, member);
    for (const member of members) await this.validate(groupScope(group), member.userId, change);
    return this.update(members, change, group);
  }

  /** Changes direct members of a readable project (Maintainers and up; an Owner's level only by Owners). */
  async updateInProject(project: ProjectRow, userIds: readonly number[], change: MemberChange): Promise<MemberRow[]> {
    const members = await this.directMembers({ projectId: project.id }, userIds);
    for (const member of members) await this.base.access.authorize('update_project_member', { project, userId: member.userId, accessLevel: member.accessLevel });
    await this.base.access.authorizeGrant(project, change.accessLevel);
    for (const member of members) await this.validate(projectScope(project), member.userId, change);
    return this.update(members, change, null);
  }

  /**
   * Removes a direct member of a readable group, or lets a member leave; never the last Owner. Unless told to skip
   * them, the user's direct memberships of the group's subgroups and projects go too (GitLab's DestroyService).
   */
  async removeFromGroup(group: NamespaceRow, userId: number, removal: MemberRemoval = {}): Promise<MemberRow> {
    const member = await this.direct({ namespaceId: group.id }, userId);
    await this.authorizeOnGroup('destroy_group_member', group, member);
    return this.base.db.$transaction(async (tx) => {
      await this.lockGroupTree(tx, group);
      if (await this.isLastOwner(group, member, tx)) throw forbidden();
      const below: Prisma.MemberWhereInput = {
        userId,
        OR: [{ namespace: { traversalIds: { has: group.id } } }, { project: { namespace: { traversalIds: { has: group.id } } } }],
      };
      // A concurrent removal got there first: this one removed nothing.
      if (!(await tx.member.deleteMany({ where: { id: member.id } })).count) throw recordNotFound();
      if (!removal.skipSubresources) await tx.member.deleteMany({ where: below });
      await this.changed([userId], tx);
      return member;
    });
  }

  /** Removes a direct member of a readable project, or lets a member leave (GitLab's destroy_project_member). */
  async removeFromProject(project: ProjectRow, userId: number): Promise<MemberRow> {
    const member = await this.direct({ projectId: project.id }, userId);
    await this.base.access.authorize('destroy_project_member', { project, userId, accessLevel: member.accessLevel });
    return this.base.db.$transaction(async (tx) => {
      if (!(await tx.member.deleteMany({ where: { id: member.id } })).count) throw recordNotFound();
      await this.changed([userId], tx);
      // GitLab's ProjectMember#post_destroy_member_hook: the member left the project.
      await this.activity.record({ action: 'left', authorId: userId, targetType: null, project }, tx);
      return member;
    });
  }

  /**
   * A project access token's bot joins its project at the token's level, or leaves it when the token is revoked (no
   * check: ResourceAccessTokens::CreateService and RevokeService provision the bot, having asked their own abilities).
   */
  async addBot(tx: Prisma.TransactionClient, projectId: number, userId: number, accessLevel: number, createdById: number): Promise<void> {
    await tx.member.create({ data: { userId, projectId, accessLevel, createdById } });
    await this.changed([userId], tx);
  }

  /** A rotated token's bot keeps its membership without an expiry (GitLab's RotateService clears it). */
  async renewBot(tx: Prisma.TransactionClient, projectId: number, userId: number): Promise<void> {
    const { count } = await tx.member.updateMany({ where: { userId, projectId, expiresAt: { not: null } }, data: { expiresAt: null } });
    if (count) await this.changed([userId], tx);
  }

  async removeBot(tx: Prisma.TransactionClient, projectId: number, userId: number): Promise<void> {
    await tx.member.deleteMany({ where: { userId, projectId } });
    await this.changed([userId], tx);
  }

  /** Makes the creator of a group or personal project its owner (no check: the caller just created it). */
  async addCreator(tx: Prisma.TransactionClient, source: Source, userId: number): Promise<void> {
    const [column, id] = sourceColumn(source);
    const { insert, announcement } = MembersService.creator(column, Prisma.sql`${id}::int`, userId);
    await this.base.announce([announcement], (notify) => tx.$executeRaw`WITH creator AS (${insert}) SELECT FROM creator CROSS JOIN LATERAL ${notify}`);
  }

  /**
   * The creator's Owner membership as parts of the statement that creates its group or project: `insert`, for a CTE,
   * with `sourceId` an SQL expression for the new row's id, and the announcement that the creator's memberships changed.
   */
  static creator(column: SourceColumn, sourceId: Prisma.Sql, userId: number): { insert: Prisma.Sql; announcement: Announcement } {
    return {
      insert: memberInsert(column, sourceId, { userId, accessLevel: CREATOR_ACCESS_LEVEL, expiresAt: null, createdById: userId }),
      announcement: membershipsChanged([userId]),
    };
  }

  /** Announces, on commit, that these users' memberships changed: remembered ones are dropped everywhere. */
  private changed(userIds: number[], tx: Prisma.TransactionClient): Promise<void> {
    const { topic, payload } = membershipsChanged(userIds);
    return this.base.publish(topic, payload, tx);
  }

  private async authorizeOnGroup(ability: 'update_group_member' | 'destroy_group_member', group: NamespaceRow, member: MemberRow): Promise<void> {
    const lastOwner = await this.isLastOwner(group, member, this.base.db);
    await this.base.access.authorize(ability, { group, userId: member.userId, lastOwner });
  }

  /**
   * GroupMember#last_owner_of_the_group?: an Owner of the group with no other Owner membership in it or above it
   * (expired ones do not count).
   */
  private async isLastOwner(group: NamespaceRow, member: MemberRow, db: Prisma.TransactionClient): Promise<boolean> {
    if (member.accessLevel !== OWNER_ACCESS_LEVEL) return false;
    const others = await db.member.count({
      where: { namespaceId: { in: group.traversalIds }, accessLevel: OWNER_ACCESS_LEVEL, NOT: { id: member.id }, ...unexpired() },
    });
    return others === 0;
  }

  /** Serialises owner changes within one group tree, so two concurrent removals cannot both pass the last-owner check. */
  private async lockGroupTree(tx: Prisma.TransactionClient, group: NamespaceRow): Promise<void> {
    await tx.$queryRaw`SELECT "id" FROM "namespaces" WHERE "id" = ${group.traversalIds[0] ?? group.id} FOR UPDATE`;
  }

  private async update(members: MemberRow[], change: MemberChange, group: NamespaceRow | null): Promise<MemberRow[]> {
    const data = { accessLevel: change.accessLevel, ...(change.expiresAt !== undefined ? { expiresAt: change.expiresAt } : {}) };
    return this.base.db.$transaction(async (tx) => {
      if (group) await this.lockGroupTree(tx, group);
      const updated: MemberRow[] = [];
      for (const member of members) {
        if (group && (await this.isLastOwner(group, member, tx))) throw forbidden();
        updated.push(await tx.member.update({ where: { id: member.id }, data }));
      }
      await this.changed(members.map((m) => m.userId), tx);
      return updated;
    });
  }

  private async addMany(
    source: Source,
    scope: Scope,
    input: MembersAddInput,
    on: { project: ProjectRow } | { groupId: number },
    mayUpdate: (member: MemberRow) => Promise<boolean>,
  ): Promise<MembersAdded> {
    const refs = [...new Set(splitList(input.userId))].map((id): Ref => ({ id: parseId(id, 'User', 'userId') }));
    refs.push(...[...new Set(splitList(input.username))].map((path): Ref => ({ path })));
    if (!refs.length) return { status: 'error', message: 'No users specified.' };
    if (refs.length > MAX_MEMBERS_ADD) return { status: 'error', message: `Too many users specified (limit is ${MAX_MEMBERS_ADD})` };
    const errors: string[] = [];
    const seen = new Set<number>();
    for (const ref of refs) {
      const user = await this.users.find(ref);
      if (!user || seen.has(user.id)) continue;
      seen.add(user.id);
      const existing = await this.base.db.member.findFirst({ where: { ...source, userId: user.id } });
      if (existing && !(await mayUpdate(existing))) {
        errors.push(`${user.username}: Unauthorized`);
        continue;
      }
      const problems = await this.problems(scope, user.id, input);
      if (problems) {
        errors.push(`${user.username}: ${sentence(Object.entries(problems).flatMap(([field, texts]) => texts.map((text) => `${humanAttribute(field)} ${text}`)))}`);
        continue;
      }
      if (existing) await this.update([existing], input, null);
      else await this.create(source, user, input, on);
    }
    return errors.length ? { status: 'error', message: sentence(errors) } : { status: 'success', message: null };
  }

  /** Member validations; BAD_USER_INPUT by field when one fails. */
  private async validate(scope: Scope, userId: number, change: MemberChange): Promise<void> {
    const problems = await this.problems(scope, userId, change);
    if (problems) throw invalid(problems);
  }

  /**
   * What Member's validations refuse, by field: Minimal Access below a top-level group, an expiry date before today
   * (FutureDateValidator), and a level lower than the user's highest membership of a group above
   * (Member#higher_access_level_than_group).
   */
  private async problems(scope: Scope, userId: number, change: MemberChange): Promise<Record<string, string[]> | null> {
    const problems: Record<string, string[]> = {};
    // GitLab EE offers Minimal Access only on top-level groups (Group#access_level_values); elsewhere it is no level.
    if (isMinimalAccess(change.accessLevel) && (scope.projectId != null || scope.ancestors.length !== 1)) {
      problems.accessLevel = ['is not included in the list'];
    }
    if (change.expiresAt && change.expiresAt.toISOString().slice(0, 10) < new Date().toISOString().slice(0, 10)) {
      problems.expiresAt = ['cannot be a date in the past'];
    }
    const above = scope.projectId == null ? scope.ancestors.slice(0, -1) : scope.ancestors;
    const highest = above.length
      ? await this.base.db.member.findFirst({
          where: { userId, namespaceId: { in: above }, ...unexpired() },
          orderBy: [{ accessLevel: 'desc' }, { id: 'asc' }],
          include: { namespace: { select: { name: true } } },
        })
      : null;
    if (highest && highest.accessLevel > change.accessLevel) {
      const inherited = `${humanAccessLevel(highest.accessLevel)} inherited membership from group ${highest.namespace?.name ?? ''}`;
      (problems.accessLevel ??= []).push(`should be greater than or equal to ${inherited}`);
    }
    return Object.keys(problems).length ? problems : null;
  }

  /** Direct memberships of these users, in their order; `404 Not found` unless each user has one. */
  private async directMembers(source: Source, userIds: readonly number[]): Promise<MemberRow[]> {
    const unique = [...new Set(userIds)];
    if (unique.length > MAX_MEMBERS_UPDATE) throw badRequest(`Count of members to be updated should be less than ${MAX_MEMBERS_UPDATE}.`);
    const rows = await this.base.db.member.findMany({ where: { ...source, userId: { in: unique } } });
    const byUser = new Map(rows.map((row) => [row.userId, row]));
    return unique.map((userId) => {
      const member = byUser.get(userId);
      if (!member) throw recordNotFound();
      return member;
    });
  }

  private async direct(source: Source, userId: number): Promise<MemberRow> {
    const member = await this.base.db.member.findFirst({ where: { ...source, userId } });
    if (!member) throw recordNotFound();
    return member;
  }

  private async findInherited(scope: Scope, userId: number): Promise<MemberRow> {
    const [member] = await this.base.db.$queryRaw<MemberRow[]>(this.inherited(scope, { userIds: [userId] }));
    if (!member) throw recordNotFound();
    return member;
  }

  /**
   * Memberships of a project and/or a chain of groups, each user once with their highest level (GitLab's
   * `members/all`), the source's own membership first among equal levels; expired memberships do not count, nor
   * Minimal Access ones below the group that holds them (they make nobody a member of its subgroups and projects).
   */
  private inherited(scope: Scope, filters: MemberFilters): Prisma.Sql {
    const search = filters.search;
    const pattern = search ? `%${escapeLike(search)}%` : null;
    const own = scope.projectId ?? scope.ancestors[scope.ancestors.length - 1] ?? null;
    const ownColumn = scope.projectId != null ? Prisma.sql`m."projectId"` : Prisma.sql`m."namespaceId"`;
    return Prisma.sql`
      SELECT DISTINCT ON (m."userId") m.*
      FROM "members" m JOIN "users" u ON u."id" = m."userId"
      WHERE (m."projectId" = ${scope.projectId}::int OR m."namespaceId" = ANY(${scope.ancestors}::int[]))
        AND (m."expiresAt" IS NULL OR m."expiresAt" >= current_date)
        AND (m."accessLevel" >= ${LOWEST_ROLE}::int OR ${ownColumn} IS NOT DISTINCT FROM ${own}::int)
        AND (${pattern}::text IS NULL OR u."username" ILIKE ${pattern}::text OR u."name" ILIKE ${pattern}::text)
        AND (${filters.userIds ?? null}::int[] IS NULL OR m."userId" = ANY(${filters.userIds ?? null}::int[]))
        AND (${filters.skipUsers ?? null}::int[] IS NULL OR NOT (m."userId" = ANY(${filters.skipUsers ?? null}::int[])))
      ORDER BY m."userId", m."accessLevel" DESC, (${ownColumn} IS NOT DISTINCT FROM ${own}::int) DESC, m."id"`;
  }

  private listInherited(scope: Scope, filters: MemberFilters, page: PageArgs) {
    const db = this.base.db;
    const matching = this.inherited(scope, filters);
    return connection(
      page,
      ({ skip, take }) => db.$queryRaw<MemberRow[]>`SELECT * FROM (${matching}) d ORDER BY d."id" LIMIT ${take} OFFSET ${skip}`,
      async () => Number((await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM (${matching}) d`)[0]?.n ?? 0),
    );
  }

  private list(source: Source, filters: MemberFilters, page: PageArgs) {
    const where: Prisma.MemberWhereInput = { ...source };
    const userId: Prisma.IntFilter = {};
    if (filters.userIds) userId.in = [...filters.userIds];
    if (filters.skipUsers) userId.notIn = [...filters.skipUsers];
    if (filters.userIds || filters.skipUsers) where.userId = userId;
    if (filters.search) {
      where.user = { OR: [{ username: containsIgnoringCase(filters.search) }, { name: containsIgnoringCase(filters.search) }] };
    }
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take }) => db.member.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.member.count({ where }),
    );
  }

  private async refuseExisting(source: Source, userId: number): Promise<void> {
    const existing = await this.base.db.member.findFirst({ where: { ...source, userId }, select: { id: true } });
    if (existing) throw conflict('Member already exists');
  }

  /** One statement (no transaction, one round trip): the membership, the `joined` event, and their announcements. */
  private async create(source: Source, user: UserRow, input: MemberChange, on: { project: ProjectRow } | { groupId: number }): Promise<MemberRow> {
    const { db, viewer } = this.base;
    const [column, id] = sourceColumn(source);
    // GitLab records that the member joined, with the member as the event's author.
    const joined = this.activity.recording({ action: 'joined', authorId: user.id, targetType: null, ...on }, 'joined');
    const insert = memberInsert(column, Prisma.sql`${id}::int`, { userId: user.id, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: viewer?.id ?? null });
    // The memberships announced before the event they cause, so the new member's subscriptions hear of that event.
    const [member] = await this.base.announce(
      [membershipsChanged([user.id]), joined.announcement],
      (notify) => db.$queryRaw<MemberRow[]>`
        WITH member AS (${insert}), joined AS (${joined.insert})
        SELECT member.* FROM member CROSS JOIN joined CROSS JOIN LATERAL ${notify}`,
    );
    return member;
  }

  private resolveUser(input: MemberInput): Promise<UserRow> {
    if (input.userId != null && input.username != null) throw mutuallyExclusive('userId', 'username');
    if (input.userId != null) return this.users.get({ id: input.userId });
    if (input.username != null) return this.users.get({ path: input.username });
    throw exactlyOneOf('userId', 'username');
  }
}

function groupScope(group: NamespaceRow): Scope {
  return { projectId: null, ancestors: group.traversalIds };
}

function projectScope(project: ProjectRow): Scope {
  return { projectId: project.id, ancestors: project.namespace.kind === 'group' ? project.namespace.traversalIds : [] };
}

/** Whether REST named several users: a comma in `user_id` or `username` (GitLab's add_multiple_members?). */
function isList(input: MembersAddInput): boolean {
  if (input.userId != null && input.username != null) throw mutuallyExclusive('userId', 'username');
  return !!input.userId?.includes(',') || !!input.username?.includes(',');
}

/** The one user of a single-user request, by numeric ID or username. */
function single(input: MembersAddInput): MemberInput {
  const userId = input.userId != null && input.userId !== '' ? parseId(input.userId, 'User', 'userId') : null;
  return { userId, username: input.username || null, accessLevel: input.accessLevel, expiresAt: input.expiresAt };
}

function splitList(value: string | null | undefined): string[] {
  return (value ?? '').split(',').map((part) => part.trim()).filter(Boolean);
}

/** A model attribute as Rails' full messages name it: `accessLevel` → `Access level`. */
function humanAttribute(field: string): string {
  const words = field.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Ruby's Array#to_sentence: `a`, `a and b`, `a, b, and c`. */
function sentence(parts: string[]): string {
  if (parts.length < 3) return parts.join(' and ');
  return `${parts.slice(0, -1).join(', ')}, and ${parts[parts.length - 1]}`;
}
