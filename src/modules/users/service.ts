/** Owns users: lookup, listing and creation (with the personal namespace every user has). */
import type { UploadedFile } from '../../uploads/storage.js';
import { avatarProblems, replaceAvatar } from '../../uploads/avatars.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { conflict, forbidden, invalid, notFound } from '../../errors.js';
import { CREDENTIALS_REVOKED, VIEWER_CHANGED, type CredentialsRevoked } from '../../auth/credentials.js';
import { connection, type KeysetOrder, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import { digestToken, hashPassword } from '../../auth/secrets.js';
import type { ServiceBase } from '../module.js';
import { issueToken } from '../tokens/service.js';
import { NamespacesService } from '../namespaces/service.js';
import { PATH_RULE, isValidPath } from '../namespaces/paths.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';

export type UserRow = Awaited<ReturnType<PrismaClient['user']['findUniqueOrThrow']>>;

export interface UserFilters {
  username?: string | null;
  search?: string | null;
  active?: boolean | null;
  blocked?: boolean | null;
  humans?: boolean | null;
  orderBy?: 'id' | 'name' | 'username' | 'created_at' | 'updated_at' | null;
  sort?: 'ASC' | 'DESC' | null;
}

const ORDER_COLUMNS = { id: 'id', name: 'name', username: 'username', created_at: 'createdAt', updated_at: 'updatedAt' } as const;

export interface UserInput {
  email: string;
  username: string;
  name: string;
  password?: string | null;
  admin?: boolean | null;
  external?: boolean | null;
  projectsLimit?: number | null;
  canCreateGroup?: boolean | null;
  /** An avatar image (a file of a multipart body). */
  avatar?: UploadedFile | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export class UsersService {
  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
  ) {}

  /** The authenticated user, or null for anonymous callers. */
  async current(): Promise<UserRow | null> {
    const { viewer, loaders } = this.base;
    return viewer ? loaders.users.byId.load(viewer.id) : null;
  }

  /** A user by ID or username (case-insensitive, as GitLab's routes); null when there is none. */
  async find(ref: Ref): Promise<UserRow | null> {
    if ('id' in ref) return this.base.loaders.users.byId.load(ref.id);
    const db = this.base.db;
    return (await db.user.findUnique({ where: { username: ref.path } })) ?? db.user.findFirst({ where: { username: equalsIgnoringCase(ref.path) } });
  }

  async get(ref: Ref): Promise<UserRow> {
    const user = await this.find(ref);
    if (!user) throw notFound('User');
    return user;
  }

  list(filters: UserFilters, page: PageArgs) {
    const where: Prisma.UserWhereInput = {};
    if (filters.username) where.username = equalsIgnoringCase(filters.username);
    if (filters.search) {
      // E-mail addresses are private: only administrators find users by them (GitLab's UsersFinder).
      const fields = this.base.access.allowed('admin_all_resources') ? ['username', 'name', 'email'] : ['username', 'name'];
      where.OR = fields.map((f) => ({ [f]: containsIgnoringCase(filters.search ?? '') }));
    }
    if (filters.active) where.state = 'active';
    if (filters.blocked) where.state = 'blocked';
    if (filters.humans) where.bot = false;
    const db = this.base.db;
    const direction = filters.sort === 'ASC' ? 'asc' : 'desc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'id'];
    const order: KeysetOrder = column === 'id' ? [['id', direction]] : [[column, direction], ['id', direction]];
    const orderBy = order.map(([field, dir]) => ({ [field]: dir }));
    return connection(
      page,
      ({ skip, take, seek }) => db.user.findMany({ where: seek ? { AND: [where, seek] } : where, orderBy, skip, take }),
      () => db.user.count({ where }),
      order,
    );
  }

  /** Creates a user and their personal namespace in one transaction. Administrators only. */
  async create(input: UserInput): Promise<UserRow> {
    await this.base.access.authorize('admin_all_resources', null);
    const errors: Record<string, string[]> = {};
    // A username is its personal namespace's path, so it follows the namespace path rule.
    if (!isValidPath(input.username)) errors.username = [PATH_RULE];
    if (!EMAIL.test(input.email)) errors.email = ['is invalid'];
    if (!input.name.trim()) errors.name = ["can't be blank"];
    if (input.password != null && input.password.length < 8) errors.password = ['is too short (minimum is 8 characters)'];
    const avatarErrors = input.avatar ? avatarProblems(input.avatar) : [];
    if (avatarErrors.length) errors.avatar = avatarErrors;
    if (Object.keys(errors).length) throw invalid(errors);
    const db = this.base.db;
    if (await db.user.findFirst({ where: { email: equalsIgnoringCase(input.email) }, select: { id: true } })) {
      throw conflict('Email has already been taken');
    }
    if (!(await this.namespaces.isTopLevelPathFree(input.username))) throw conflict('Username has already been taken');
    const passwordDigest = input.password ? await hashPassword(input.password) : null;
    return db.$transaction(async (tx) => {
      const user = await UsersService.insertSystemUser(tx, {
        email: input.email,
        username: input.username,
        name: input.name,
        admin: input.admin ?? false,
        external: input.external ?? false,
        projectsLimit: input.projectsLimit ?? undefined,
        canCreateGroup: input.canCreateGroup ?? undefined,
        passwordDigest,
      });
      if (!input.avatar) return user;
      return replaceAvatar(this.base.app.uploads, 'user', user.id, input.avatar, (avatar) => tx.user.update({ where: { id: user.id }, data: { avatar } }));
    });
  }

  /** Replaces the signed-in user's avatar (GitLab's `PUT /user/avatar`). */
  async setOwnAvatar(file: UploadedFile): Promise<UserRow> {
    const { db, access, loaders, app } = this.base;
    const viewer = access.requireViewer();
    const problems = avatarProblems(file);
    if (problems.length) throw invalid({ avatar: problems });
    const user = await db.$transaction((tx) => replaceAvatar(app.uploads, 'user', viewer.id, file, (avatar) => tx.user.update({ where: { id: viewer.id }, data: { avatar } })));
    loaders.users.byId.clear(viewer.id).prime(viewer.id, user);
    return user;
  }

  /**
   * Blocks or unblocks a user (GitLab's `POST /users/:id/block|unblock`). Administrators only. A blocked user's
   * tokens stop working at once on every replica: remembered viewers are dropped and live subscriptions closed
   * through the bus, before this request answers. Answers true, as GitLab does; blocking twice changes nothing.
   */
  async setBlocked(id: number, blocked: boolean): Promise<boolean> {
    const { db, access, loaders } = this.base;
    await access.authorize('admin_all_resources', null);
    const user = await db.user.findUnique({ where: { id }, select: { id: true, state: true } });
    if (!user) throw notFound('User');
    if (!blocked && user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
    const state = blocked ? 'blocked' : 'active';
    if (user.state === state) return true;
    await db.$transaction(async (tx) => {
      await tx.user.update({ where: { id }, data: { state }, select: { id: true } });
      const news: CredentialsRevoked = { userId: id };
      await this.base.publish(blocked ? CREDENTIALS_REVOKED : VIEWER_CHANGED, news, tx);
    });
    loaders.users.byId.clear(id);
    return true;
  }

  /** Creates a user without an acting viewer: used by first-start seeding and by bot users of access tokens. */
  static createSystemUser(db: PrismaClient, data: Prisma.UserCreateInput): Promise<UserRow> {
    return db.$transaction((tx) => UsersService.insertSystemUser(tx, data));
  }

  /** The same, inside the caller's transaction. */
  static async insertSystemUser(tx: Prisma.TransactionClient, data: Prisma.UserCreateInput): Promise<UserRow> {
    const user = await tx.user.create({ data });
    await NamespacesService.createPersonal(tx, user);
    return user;
  }
}

/** Advisory-lock key of first-start seeding (any constant that no other lock uses). */
const ROOT_SEED_LOCK = 4_711_001;

/**
 * On an empty database, creates the `root` administrator with a token: `GITLAB_ROOT_TOKEN` when set, else a
 * generated one, returned so the caller prints it once. With users present, makes sure a configured root token
 * still authenticates root. Returns the generated token, or null.
 */
export async function ensureRootUser(db: PrismaClient, configuredToken: string | undefined): Promise<string | null> {
  const scopes = ['api', 'sudo', 'admin_mode'];
  // Replicas starting together on one empty database take turns here, so exactly one creates root.
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ROOT_SEED_LOCK})`;
    const root = await tx.user.findUnique({ where: { username: 'root' } });
    if (root) {
      if (configuredToken && !(await tx.personalAccessToken.findUnique({ where: { digest: digestToken(configuredToken) } }))) {
        await issueToken(tx, { userId: root.id, name: 'root-token', scopes, expiresAt: null }, configuredToken);
      }
      return null;
    }
    if ((await tx.user.count()) > 0) return null;
    const user = await UsersService.insertSystemUser(tx, { username: 'root', name: 'Administrator', email: 'admin@example.com', admin: true });
    const issued = await issueToken(tx, { userId: user.id, name: 'root-token', scopes, expiresAt: null }, configuredToken);
    return configuredToken ? null : (issued.token ?? null);
  });
}
