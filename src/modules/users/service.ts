/** Owns users: lookup, listing, creation and changes (with the personal namespace every user has), and their account data. */
import { INTERNAL_USER_TYPES } from './internal.js';
import type { UploadedFile } from '../../uploads/storage.js';
import { avatarProblems, replaceAvatar } from '../../uploads/avatars.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { conflict, forbidden, invalid, notFound } from '../../errors.js';
import { VIEWER_CHANGED, type CredentialsRevoked } from '../../auth/credentials.js';
import { connection, type KeysetOrder, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import { digestToken, hashPassword } from '../../auth/secrets.js';
import type { ServiceBase } from '../module.js';
import { issueToken } from '../tokens/service.js';
import { NamespacesService } from '../namespaces/service.js';
import { PATH_RULE, isValidPath } from '../namespaces/paths.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';
import { SshKeysService } from './keys/service.js';
import { EmailsService } from './emails/service.js';
import { UserProfileService } from './profile/service.js';
import { UserLifecycleService } from './lifecycle/service.js';
import { ImpersonationTokensService } from './impersonation/service.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { userSystemEvent } from '../hooks/payloads.js';

export type UserRow = Awaited<ReturnType<PrismaClient['user']['findUniqueOrThrow']>>;

export interface UserFilters {
  username?: string | null;
  search?: string | null;
  active?: boolean | null;
  blocked?: boolean | null;
  humans?: boolean | null;
  excludeHumans?: boolean | null;
  excludeInternal?: boolean | null;
  withoutProjectBots?: boolean | null;
  external?: boolean | null;
  excludeExternal?: boolean | null;
  orderBy?: 'id' | 'name' | 'username' | 'created_at' | 'updated_at' | null;
  sort?: 'ASC' | 'DESC' | null;
}

const ORDER_COLUMNS = { id: 'id', name: 'name', username: 'username', created_at: 'createdAt', updated_at: 'updatedAt' } as const;

/** What `POST /users` takes: the account, and the profile fields `PUT /users/:id` changes (GitLab's optional_attributes). */
export interface UserInput extends UserProfileFields {
  email: string;
  username: string;
  name: string;
  password?: string | null;
  /** An avatar image (a file of a multipart body). */
  avatar?: UploadedFile | null;
}

/** The profile and account settings creation and changes share. */
export interface UserProfileFields {
  bio?: string | null;
  location?: string | null;
  skype?: string | null;
  linkedin?: string | null;
  twitter?: string | null;
  discord?: string | null;
  websiteUrl?: string | null;
  organization?: string | null;
  jobTitle?: string | null;
  pronouns?: string | null;
  privateProfile?: boolean | null;
  admin?: boolean | null;
  canCreateGroup?: boolean | null;
  projectsLimit?: number | null;
  external?: boolean | null;
  note?: string | null;
  themeId?: number | null;
  colorSchemeId?: number | null;
  viewDiffsFileByFile?: boolean | null;
}

export interface UserUpdateInput extends UserProfileFields {
  id: number;
  email?: string | null;
  username?: string | null;
  name?: string | null;
  password?: string | null;
  publicEmail?: string | null;
  commitEmail?: string | null;
  /** A new avatar image (a file of a multipart body). */
  avatar?: UploadedFile | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** `commit_email` naming the private commit address (GitLab's Gitlab::PrivateCommitEmail::TOKEN). */
export const PRIVATE_COMMIT_EMAIL = '_private';

/** The address web commits use: the chosen one, the private one GitLab makes up, or the primary (GitLab's commit_email_or_default). */
export function commitEmailOrDefault(user: Pick<UserRow, 'id' | 'username' | 'email' | 'commitEmail'>, externalUrl: string): string {
  if (user.commitEmail === PRIVATE_COMMIT_EMAIL) return `${user.id}-${user.username}@users.noreply.${new URL(externalUrl).hostname}`;
  return user.commitEmail ?? user.email;
}

/** Length limits of GitLab's User and UserDetail validations, by field. */
const MAXIMUM_LENGTHS: Partial<Record<keyof UserFields, number>> = {
  name: 255,
  bio: 255,
  pronouns: 50,
  jobTitle: 200,
  location: 500,
  organization: 500,
  skype: 500,
  linkedin: 500,
  twitter: 500,
  websiteUrl: 500,
};

/** Every field of a user `POST /users` or `PUT /users/:id` may set. */
type UserFields = Omit<UserUpdateInput, 'id'>;

type ProfileData = Partial<
  Pick<
    Prisma.UserCreateInput,
    | 'bio' | 'location' | 'skype' | 'linkedin' | 'twitter' | 'discord' | 'websiteUrl' | 'organization' | 'jobTitle' | 'privateProfile'
    | 'admin' | 'canCreateGroup' | 'projectsLimit' | 'external' | 'themeId' | 'colorSchemeId' | 'pronouns' | 'note'
  >
>;

/** The profile fields given, as stored: empty strings clear what may be absent, as GitLab stores them (nil). */
function profileData(input: UserProfileFields): ProfileData {
  const data: ProfileData = {};
  const copied = [
    'bio', 'location', 'skype', 'linkedin', 'twitter', 'discord', 'websiteUrl', 'organization', 'jobTitle',
    'privateProfile', 'admin', 'canCreateGroup', 'projectsLimit', 'external', 'themeId', 'colorSchemeId',
  ] as const;
  for (const field of copied) {
    const value = input[field];
    if (value != null) Object.assign(data, { [field]: value });
  }
  for (const field of ['pronouns', 'note'] as const) {
    const value = input[field];
    if (value != null) data[field] = value === '' ? null : value;
  }
  return data;
}

/** Problems of the fields given, by field, as GitLab's User and UserDetail validations word them. */
function fieldProblems(input: UserFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  // A username is its personal namespace's path, so it follows the namespace path rule.
  if (input.username != null && !isValidPath(input.username)) add('username', PATH_RULE);
  if (input.email != null && !EMAIL.test(input.email)) add('email', 'is invalid');
  if (input.name != null && !input.name.trim()) add('name', "can't be blank");
  if (input.password != null && input.password.length < 8) add('password', 'is too short (minimum is 8 characters)');
  if (input.password != null && input.password.length > 128) add('password', 'is too long (maximum is 128 characters)');
  for (const [field, maximum] of Object.entries(MAXIMUM_LENGTHS)) {
    const value = input[field as keyof UserFields];
    if (typeof value === 'string' && maximum !== undefined && value.length > maximum) add(field, `is too long (maximum is ${maximum} characters)`);
  }
  if (input.discord && !/^\d{18}$/.test(input.discord)) add('discord', 'must contain only a discord user ID.');
  if (input.projectsLimit != null && input.projectsLimit < 0) add('projectsLimit', 'must be greater than or equal to 0');
  for (const problem of input.avatar ? avatarProblems(input.avatar) : []) add('avatar', problem);
  return errors;
}

/** Fields of a users row whose change changes what a viewer carries (src/auth/viewer.ts). */
const VIEWER_FIELDS = ['username', 'admin', 'external', 'canCreateGroup'] as const;

export class UsersService {
  /** Users active on or after `from` (six months ago when null), least recently active first: administrators only. */
  async activities(from: Date | null, page: PageArgs) {
    await this.base.access.authorize('admin_all_resources', null);
    const where = { lastActivityOn: { gte: from ?? sixMonthsAgo() } };
    return connection(
      page,
      ({ skip, take }) => this.base.db.user.findMany({ where, orderBy: [{ lastActivityOn: 'asc' }, { id: 'asc' }], skip, take }),
      () => this.base.db.user.count({ where }),
    );
  }

  readonly keys: SshKeysService;
  readonly emails: EmailsService;
  readonly profile: UserProfileService;
  readonly lifecycle: UserLifecycleService;
  readonly impersonation: ImpersonationTokensService;

  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
  ) {
    this.keys = new SshKeysService(base, this);
    this.emails = new EmailsService(base, this);
    this.profile = new UserProfileService(base);
    this.lifecycle = new UserLifecycleService(base, this);
    this.impersonation = new ImpersonationTokensService(base, this);
  }

  /** The authenticated user, or null for anonymous callers. */
  async current(): Promise<UserRow | null> {
    const { viewer, loaders } = this.base;
    return viewer ? loaders.users.byId.load(viewer.id) : null;
  }

  /** The authenticated user; UNAUTHENTICATED for anonymous callers. */
  async requireCurrent(): Promise<UserRow> {
    const viewer = this.base.access.requireViewer();
    return this.get({ id: viewer.id });
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

  /** `GET /users/:id`: signed-in callers only (GitLab's `forbidden!('Not authorized!') unless current_user`). */
  async details(ref: Ref): Promise<UserRow | null> {
    if (!this.base.viewer) throw forbidden('Not authorized!');
    return this.find(ref);
  }

  /** A user an administrator acts on: FORBIDDEN for others (before looking), then NOT_FOUND. */
  async administered(id: number): Promise<UserRow> {
    await this.base.access.authorize('admin_all_resources', null);
    return this.get({ id });
  }

  /** The user themselves when `id` is absent; another user (administrators only, as GitLab's `/users/:id/…` writes) otherwise. */
  async selfOr(id: number | null | undefined): Promise<UserRow> {
    return id == null ? this.requireCurrent() : this.administered(id);
  }

  list(filters: UserFilters, page: PageArgs) {
    // Anonymous callers may only look one user up by username, not list the instance's users (GitLab's read_users_list).
    if (!this.base.viewer && !filters.username) throw forbidden('Not authorized to access /api/v4/users');
    const where: Prisma.UserWhereInput = {};
    if (filters.username) where.username = equalsIgnoringCase(filters.username);
    if (filters.search) {
      // E-mail addresses are private: only administrators find users by them (GitLab's UsersFinder).
      const fields = this.base.access.allowed('admin_all_resources') ? ['username', 'name', 'email'] : ['username', 'name'];
      where.OR = fields.map((f) => ({ [f]: containsIgnoringCase(filters.search ?? '') }));
    }
    if (filters.active) where.state = 'active';
    if (filters.blocked) where.state = 'blocked';
    // GitLab's UsersFinder: user types (human; internal: the ghost; project_bot) and the external flag.
    const types: Prisma.StringFilter = {};
    if (filters.humans) types.equals = 'human';
    const excluded = [...(filters.excludeHumans ? ['human'] : []), ...(filters.excludeInternal ? INTERNAL_USER_TYPES : []), ...(filters.withoutProjectBots ? ['project_bot'] : [])];
    if (excluded.length) types.notIn = excluded;
    if (Object.keys(types).length) where.userType = types;
    if (filters.external) where.external = true;
    else if (filters.excludeExternal) where.external = false;
    const db = this.base.db;
    const direction = filters.sort === 'ASC' ? 'asc' : 'desc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'id'];
    const order: KeysetOrder = column === 'id' ? [['id', direction]] : [[column, direction], ['id', direction]];
    return connection(
      page,
      ({ skip, take, seek, orderBy }) => db.user.findMany({ where: seek ? { AND: [where, seek] } : where, orderBy, skip, take }),
      () => db.user.count({ where }),
      order,
    );
  }

  /** A user's direct memberships in groups (`Namespace`) and projects, oldest first (GitLab's `GET /users/:id/memberships`). Administrators only. */
  async memberships(userId: number, type: 'Project' | 'Namespace' | null | undefined, page: PageArgs) {
    const user = await this.administered(userId);
    const where: Prisma.MemberWhereInput = { userId: user.id, ...(type === 'Project' ? { projectId: { not: null } } : type === 'Namespace' ? { namespaceId: { not: null } } : {}) };
    const db = this.base.db;
    return connection(
      page,
      async ({ skip, take }) => {
        const rows = await db.member.findMany({ where, orderBy: { id: 'asc' }, skip, take, include: { project: { select: { name: true } }, namespace: { select: { name: true } } } });
        return rows.map((m) => ({
          sourceId: m.projectId ?? m.namespaceId ?? 0,
          sourceName: m.project?.name ?? m.namespace?.name ?? '',
          sourceType: m.projectId !== null ? 'Project' : 'Namespace',
          accessLevel: m.accessLevel,
        }));
      },
      () => db.member.count({ where }),
    );
  }

  /** The highest access level the user holds through a direct membership (GitLab's `highest_role`), 0 for none. */
  async highestRole(user: UserRow): Promise<number> {
    const held = await this.base.app.memberships.of(user.id);
    return Math.max(0, ...held.groups.values(), ...held.projects.values());
  }

  /** Whether an address is any user's primary or secondary e-mail (GitLab's User.by_any_email), another user's than `except`. */
  async emailTaken(email: string, except?: number): Promise<boolean> {
    const db = this.base.db;
    const notOwn = except === undefined ? {} : { NOT: { id: except } };
    const primary = await db.user.findFirst({ where: { email: equalsIgnoringCase(email), ...notOwn }, select: { id: true } });
    if (primary) return true;
    const secondary = await db.email.findFirst({ where: { email: equalsIgnoringCase(email), ...(except === undefined ? {} : { NOT: { userId: except } }) }, select: { id: true } });
    return !!secondary;
  }

  /** Creates a user and their personal namespace in one transaction. Administrators only. */
  async create(input: UserInput): Promise<UserRow> {
    await this.base.access.authorize('admin_all_resources', null);
    const errors = fieldProblems(input);
    if (Object.keys(errors).length) throw invalid(errors);
    if (await this.emailTaken(input.email)) throw conflict('Email has already been taken');
    if (!(await this.namespaces.isTopLevelPathFree(input.username))) throw conflict('Username has already been taken');
    const passwordDigest = input.password ? await hashPassword(input.password) : null;
    const viewer = this.base.access.requireViewer();
    const created = await this.base.db.$transaction(async (tx) => {
      const user = await UsersService.insertSystemUser(tx, {
        ...profileData(input),
        email: input.email,
        username: input.username,
        name: input.name,
        passwordDigest,
        createdBy: { connect: { id: viewer.id } },
      });
      await enqueueHookEvent(this.base.app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: userSystemEvent('user_create', user) }, tx);
      if (input.viewDiffsFileByFile != null) await tx.userPreference.update({ where: { userId: user.id }, data: { viewDiffsFileByFile: input.viewDiffsFileByFile } });
      if (!input.avatar) return user;
      return replaceAvatar(this.base.app.uploads, 'user', user.id, input.avatar, (avatar) => tx.user.update({ where: { id: user.id }, data: { avatar } }));
    });
    // Its system hook event exists now that the transaction committed.
    this.base.app.jobs.wake();
    return created;
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

  /** Changes a user (GitLab's `PUT /users/:id`): taken addresses and usernames first (409), then validations (400). Administrators only. */
  async update(input: UserUpdateInput): Promise<UserRow> {
    const user = await this.administered(input.id);
    if (input.email != null && (await this.emailTaken(input.email, user.id))) throw conflict('Email has already been taken');
    const renamed = input.username != null && input.username !== user.username;
    if (renamed && input.username?.toLowerCase() !== user.username.toLowerCase() && !(await this.namespaces.isTopLevelPathFree(input.username ?? ''))) {
      throw conflict('Username has already been taken');
    }
    await this.validateUpdate(user, input);
    const data = await this.updateData(input);
    const { db, loaders } = this.base;
    const updated = await db.$transaction(async (tx) => {
      let row = await tx.user.update({ where: { id: user.id }, data });
      if (input.avatar) row = await replaceAvatar(this.base.app.uploads, 'user', user.id, input.avatar, (avatar) => tx.user.update({ where: { id: user.id }, data: { avatar } }));
      if (renamed || data.name !== undefined) await NamespacesService.renamePersonal(tx, row);
      if (input.viewDiffsFileByFile != null) {
        await tx.userPreference.upsert({ where: { userId: user.id }, create: { userId: user.id, viewDiffsFileByFile: input.viewDiffsFileByFile }, update: { viewDiffsFileByFile: input.viewDiffsFileByFile } });
      }
      if (VIEWER_FIELDS.some((f) => input[f] != null)) {
        const news: CredentialsRevoked = { userId: user.id };
        await this.base.publish(VIEWER_CHANGED, news, tx);
      }
      return row;
    });
    loaders.users.byId.clear(user.id).prime(user.id, updated);
    return updated;
  }

  private async validateUpdate(user: UserRow, input: UserUpdateInput): Promise<void> {
    const errors = fieldProblems(input);
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    // The public and commit addresses must be the user's own confirmed ones (the primary counts, a new primary too).
    const owned = await this.emails.confirmedAddresses(user, input.email ?? user.email);
    if (input.publicEmail && !owned.has(input.publicEmail.toLowerCase())) add('publicEmail', 'is not an email you own');
    if (input.commitEmail && input.commitEmail !== PRIVATE_COMMIT_EMAIL && !owned.has(input.commitEmail.toLowerCase())) add('commitEmail', 'is not an email you own');
    if (Object.keys(errors).length) throw invalid(errors);
  }

  private async updateData(input: UserUpdateInput): Promise<Prisma.UserUpdateInput> {
    const data: Prisma.UserUpdateInput = profileData(input);
    for (const field of ['email', 'username', 'name'] as const) {
      const value = input[field];
      if (value != null) data[field] = value;
    }
    for (const field of ['publicEmail', 'commitEmail'] as const) {
      const value = input[field];
      if (value != null) data[field] = value === '' ? null : value;
    }
    if (input.password != null) data.passwordDigest = await hashPassword(input.password);
    return data;
  }

  /** Creates a user without an acting viewer: used by first-start seeding and by bot users of access tokens. */
  static createSystemUser(db: PrismaClient, data: Prisma.UserCreateInput): Promise<UserRow> {
    return db.$transaction((tx) => UsersService.insertSystemUser(tx, data));
  }

  /** The same, inside the caller's transaction: with a personal namespace and preferences, confirmed at once. */
  static async insertSystemUser(tx: Prisma.TransactionClient, data: Prisma.UserCreateInput): Promise<UserRow> {
    const user = await tx.user.create({ data: { confirmedAt: new Date(), ...data, preference: { create: {} } } });
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
  // Replicas starting together on one empty database take turns here, so exactly one creates root. Start-up work,
  // not a request: DATABASE_STATEMENT_TIMEOUT_MS (a request's bound, and the transactions' by default) does not
  // apply, or a loaded machine, or a replica waiting its turn, would fail to start.
  return db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${SEED_TIMEOUT_MS}`);
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
  }, { timeout: SEED_TIMEOUT_MS, maxWait: SEED_TIMEOUT_MS });
}

/** How long seeding root at start-up may take, whatever the request bounds. */
const SEED_TIMEOUT_MS = 60_000;

/**
 * Moves a user's last activity day forward to `day` (the activity recorder's writer, src/auth/activity.ts): one
 * statement, a no-op when the day is already recorded, so replicas may race.
 */
export async function recordUserActivity(db: PrismaClient, userId: number, day: Date): Promise<void> {
  await db.user.updateMany({ where: { id: userId, OR: [{ lastActivityOn: null }, { lastActivityOn: { lt: day } }] }, data: { lastActivityOn: day } });
}

function sixMonthsAgo(): Date {
  const day = new Date();
  day.setUTCMonth(day.getUTCMonth() - 6);
  return new Date(`${day.toISOString().slice(0, 10)}T00:00:00Z`);
}
