/** Owns users: lookup, listing and creation (with the personal namespace every user has). */
import type { ServiceDeps } from '../../context.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { conflict, invalid, notFound } from '../../errors.js';
import { requireAdmin, requireWriteScope } from '../../auth/policy.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { isNumericId, parseId } from '../../graphql/ids.js';
import { digestToken, hashPassword } from '../../auth/secrets.js';
import { issueToken } from '../tokens/service.js';
import { NamespacesService } from '../namespaces/service.js';
import { PATH_RULE, isValidPath } from '../namespaces/paths.js';

export type UserRow = Awaited<ReturnType<PrismaClient['user']['findUniqueOrThrow']>>;

export interface UserFilters {
  username?: string | null;
  search?: string | null;
  active?: boolean | null;
  blocked?: boolean | null;
  humans?: boolean | null;
}

export interface UserInput {
  email: string;
  username: string;
  name: string;
  password?: string | null;
  admin?: boolean | null;
  external?: boolean | null;
  projectsLimit?: number | null;
  canCreateGroup?: boolean | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export class UsersService {
  constructor(private readonly deps: ServiceDeps) {}

  /** The authenticated user, or null for anonymous callers. */
  async current(): Promise<UserRow | null> {
    const { viewer, loaders } = this.deps;
    return viewer ? loaders.users.byId.load(viewer.id) : null;
  }

  /** A user by numeric/global ID or username; null when there is none. */
  async find(ref: { id?: string | null; username?: string | null }): Promise<UserRow | null> {
    if (ref.id != null) {
      if (!isNumericId(ref.id) && !ref.id.startsWith('gid://')) {
        return this.deps.db.user.findUnique({ where: { username: ref.id } });
      }
      return this.deps.loaders.users.byId.load(parseId(ref.id, 'User', 'id'));
    }
    if (ref.username != null) return this.deps.db.user.findFirst({ where: { username: { equals: ref.username, mode: 'insensitive' } } });
    return null;
  }

  async get(ref: { id?: string | null; username?: string | null }): Promise<UserRow> {
    const user = await this.find(ref);
    if (!user) throw notFound('User');
    return user;
  }

  list(filters: UserFilters, page: PageArgs) {
    const where: Prisma.UserWhereInput = {};
    if (filters.username) where.username = { equals: filters.username, mode: 'insensitive' };
    if (filters.search) {
      where.OR = ['username', 'name', 'email'].map((f) => ({ [f]: { contains: filters.search ?? '', mode: 'insensitive' } }));
    }
    if (filters.active) where.state = 'active';
    if (filters.blocked) where.state = 'blocked';
    if (filters.humans) where.bot = false;
    const db = this.deps.db;
    return connection(
      page,
      ({ skip, take }) => db.user.findMany({ where, orderBy: { id: 'desc' }, skip, take }),
      () => db.user.count({ where }),
    );
  }

  /** Creates a user and their personal namespace in one transaction. Administrators only. */
  async create(input: UserInput): Promise<UserRow> {
    requireWriteScope(this.deps.viewer);
    requireAdmin(this.deps.viewer);
    const errors: Record<string, string[]> = {};
    // A username is its personal namespace's path, so it follows the namespace path rule.
    if (!isValidPath(input.username)) errors.username = [PATH_RULE];
    if (!EMAIL.test(input.email)) errors.email = ['is invalid'];
    if (!input.name.trim()) errors.name = ["can't be blank"];
    if (input.password != null && input.password.length < 8) errors.password = ['is too short (minimum is 8 characters)'];
    if (Object.keys(errors).length) throw invalid(errors);
    const { db, services } = this.deps;
    if (await db.user.findFirst({ where: { email: { equals: input.email, mode: 'insensitive' } }, select: { id: true } })) {
      throw conflict('Email has already been taken');
    }
    if (!(await services.namespaces.isTopLevelPathFree(input.username))) throw conflict('Username has already been taken');
    const user = await db.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: {
          email: input.email,
          username: input.username,
          name: input.name,
          admin: input.admin ?? false,
          external: input.external ?? false,
          projectsLimit: input.projectsLimit ?? undefined,
          canCreateGroup: input.canCreateGroup ?? undefined,
          passwordDigest: input.password ? await hashPassword(input.password) : null,
        },
      });
      await NamespacesService.createPersonal(tx, created);
      return created;
    });
    return user;
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

/** Advisory-lock key of first-start seeding (any constant that no other lock uses). */
const ROOT_SEED_LOCK = 4_711_001;
