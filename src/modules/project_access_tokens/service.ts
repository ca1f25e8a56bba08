/**
 * Project access tokens (GitLab's ResourceAccessTokens services and `lib/api/resource_access_tokens.rb`): each token is
 * a personal access token of its own bot user (`project_<id>_bot_<hex>`, user_type project_bot), a member of the
 * project at the token's level, so it authenticates like any personal access token, with exactly its scopes and level.
 * Rotation revokes the old token and issues a new one that names it (`previousPersonalAccessTokenId`), so a token
 * family can be revoked whole when a rotated token is used again (revokeFamilyOfRevoked, GitLab's reuse detection).
 */
import { randomBytes } from 'node:crypto';
import { Prisma } from '../../db/database.js';
import { MEMBER_ACCESS_LEVELS, isRole } from '../../auth/access-levels.js';
import { CREDENTIALS_REVOKED, VIEWER_CHANGED, type CredentialsRevoked } from '../../auth/credentials.js';
import { TOKEN_SCOPES } from '../../auth/scopes.js';
import { badRequest, invalidArgument, methodNotAllowed, notFound, unauthenticated } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { MembersService } from '../members/service.js';
import type { ProjectRow } from '../projects/service.js';
import { activeTokenWhere, issueToken, today, type TokenRow } from '../tokens/service.js';
import { UsersService } from '../users/service.js';

/** A project access token: its personal access token row and the project its bot belongs to. */
export type ProjectAccessTokenRow = TokenRow & { projectId: number };
export type IssuedProjectAccessToken = ProjectAccessTokenRow & { token?: string };

const DAY_MS = 86_400_000;
/** GitLab's MAX_PERSONAL_ACCESS_TOKEN_LIFETIME_IN_DAYS: no token expires later than this many days from today. */
const MAX_LIFETIME_DAYS = 365;
/** A rotated token's lifetime when the rotation names no expiry (one week). */
const ROTATED_LIFETIME_DAYS = 7;

/**
 * Scopes a bot's token may carry (GitLab's `Gitlab::Auth.resource_bot_scopes`): the non-administrative scopes but
 * `read_user`, and without the registry scopes this server has no registry for.
 */
export const RESOURCE_BOT_SCOPES: readonly string[] = TOKEN_SCOPES.filter(
  (s) => !['read_user', 'sudo', 'admin_mode', 'read_service_ping', 'read_registry', 'write_registry', 'read_virtual_registry', 'write_virtual_registry'].includes(s),
);

const refused = (message: string) => badRequest(`400 Bad request - ${message}`);

const days = (n: number) => new Date(today().getTime() + n * DAY_MS);
const isoDate = (d: Date) => d.toISOString().slice(0, 10);

export interface ProjectAccessTokenInput {
  name: string;
  description?: string | null;
  scopes: string[];
  expiresAt: Date;
  accessLevel?: number | null;
}

export class ProjectAccessTokensService {
  constructor(
    private readonly base: ServiceBase,
    private readonly members: MembersService,
  ) {}

  /** GitLab answers a caller below the ability 401, not 403 (`unauthorized!` in resource_access_tokens.rb). */
  private async authorizeOr401(ability: 'read_resource_access_tokens' | 'manage_resource_access_tokens', project: ProjectRow): Promise<void> {
    this.base.access.requireViewer();
    if (!(await this.base.access.can(ability, project))) throw unauthenticated();
  }

  /** The project's tokens, active and inactive (or one state), oldest first. */
  async list(project: ProjectRow, filters: { state?: 'active' | 'inactive' | null }, page: PageArgs) {
    await this.authorizeOr401('read_resource_access_tokens', project);
    const and: Prisma.PersonalAccessTokenWhereInput[] = [this.ofProject(project.id)];
    if (filters.state === 'active') and.push(activeTokenWhere());
    if (filters.state === 'inactive') and.push({ NOT: activeTokenWhere() });
    const where: Prisma.PersonalAccessTokenWhereInput = { AND: and };
    const { db } = this.base;
    return connection(
      page,
      async ({ skip, take }) => (await db.personalAccessToken.findMany({ where, orderBy: { id: 'asc' }, skip, take })).map((t) => ({ ...t, projectId: project.id })),
      () => db.personalAccessToken.count({ where }),
    );
  }

  /** One of the project's tokens. */
  async get(project: ProjectRow, id: number): Promise<ProjectAccessTokenRow> {
    await this.authorizeOr401('read_resource_access_tokens', project);
    return this.find(project, id);
  }

  /** Creates the bot user, its membership and its token in one transaction (ResourceAccessTokens::CreateService). */
  async create(project: ProjectRow, input: ProjectAccessTokenInput): Promise<IssuedProjectAccessToken> {
    const { access, db, app } = this.base;
    const viewer = access.requireViewer();
    // The levels GitLab's `Gitlab::Access.options_with_owner` allows are the MemberAccessLevel enum's; Maintainer by default.
    const level = input.accessLevel ?? MEMBER_ACCESS_LEVELS.MAINTAINER;
    // Minimal Access is no role a token may hold (GitLab's ALLOWED_RESOURCE_ACCESS_LEVELS).
    if (!isRole(level)) throw invalidArgument('accessLevel');
    if (input.scopes.some((s) => !RESOURCE_BOT_SCOPES.includes(s))) throw invalidArgument('scopes');
    if (!(await access.can('create_resource_access_tokens', project))) throw refused('User does not have permission to create project access token');
    // Nobody grants a level above their own (an administrator holds every level).
    if (!access.allowed('admin_all_resources') && level > (await access.projectLevel(project))) {
      throw refused('Access level of the token contains permissions not held by the creating user');
    }
    const problem = nameProblem(input.name) ?? (input.scopes.length ? null : "Scopes can't be blank") ?? expiryProblem(input.expiresAt, MAX_LIFETIME_DAYS);
    if (problem) throw refused(problem);
    const username = `project_${project.id}_bot_${randomBytes(16).toString('hex')}`;
    const host = new URL(app.config.externalUrl).hostname;
    const expiresAt = input.expiresAt;
    return db.$transaction(async (tx) => {
      const bot = await UsersService.insertSystemUser(tx, {
        username,
        name: input.name,
        email: `${username}@noreply.${host}`,
        bot: true,
        userType: 'project_bot',
        canCreateGroup: false,
        projectsLimit: 0,
        createdBy: { connect: { id: viewer.id } },
      });
      await tx.projectBot.create({ data: { userId: bot.id, projectId: project.id, accessLevel: level } });
      await this.members.addBot(tx, project.id, bot.id, level, viewer.id);
      const token = await issueToken(tx, { userId: bot.id, name: input.name, description: input.description, scopes: input.scopes, expiresAt });
      return { ...token, projectId: project.id };
    });
  }

  /**
   * Revokes a token (ResourceAccessTokens::RevokeService): the token is looked up first (404), then the ability asked
   * (GitLab's 400 `<caller> cannot delete <bot>`); the bot leaves the project and is blocked.
   */
  async revoke(project: ProjectRow, id: number): Promise<ProjectAccessTokenRow> {
    const { access, db, loaders } = this.base;
    const viewer = access.requireViewer();
    const token = await this.find(project, id);
    if (!(await access.can('destroy_resource_access_tokens', project))) {
      const [caller, bot] = await Promise.all([loaders.users.byId.load(viewer.id), loaders.users.byId.load(token.userId)]);
      throw refused(`${caller?.name ?? viewer.username} cannot delete ${bot?.name ?? token.name}`);
    }
    return db.$transaction(async (tx) => {
      const revoked = await tx.personalAccessToken.update({ where: { id: token.id }, data: { revoked: true } });
      await this.members.removeBot(tx, project.id, token.userId);
      await tx.user.update({ where: { id: token.userId }, data: { state: 'blocked' } });
      await this.announceRevoked(tx, [token.id], token.userId);
      return { ...revoked, projectId: project.id };
    });
  }

  /**
   * Rotates a token (ProjectAccessTokens::RotateService): whoever may manage the project's tokens; a token they cannot
   * reach is 401, or for an administrator 404, as GitLab answers.
   */
  async rotate(project: ProjectRow, id: number, expiresAt: Date | null | undefined): Promise<IssuedProjectAccessToken> {
    const { access } = this.base;
    await this.authorizeOr401('manage_resource_access_tokens', project);
    const token = await this.findRow(project, id);
    if (!token) throw access.allowed('admin_all_resources') ? notFound() : unauthenticated();
    const botLevel = await this.botLevel(token.userId);
    if (!access.allowed('admin_all_resources') && botLevel !== null && botLevel > (await access.projectLevel(project))) {
      throw refused('Not eligible to rotate tokens with permissions not held by the user');
    }
    return this.replace(project, token, expiresAt);
  }

  /**
   * A project access token rotates itself (GitLab's `self/rotate`): only a bot's token, else 405; only on its own
   * project, else 401.
   */
  async rotateSelf(project: ProjectRow, expiresAt: Date | null | undefined): Promise<IssuedProjectAccessToken> {
    const viewer = this.base.access.requireViewer();
    if (!viewer.bot || !viewer.tokenId) throw methodNotAllowed('405 Method Not Allowed');
    const token = await this.findRow(project, viewer.tokenId);
    if (!token) throw unauthenticated();
    return this.replace(project, token, expiresAt);
  }

  /**
   * GitLab's reuse detection (Gitlab::Auth::AuthFinders#revoke_token_family): a revoked token presented to rotate a
   * token is a sign it leaked, so every active token descending from it through rotations is revoked. Called before
   * authentication refuses the revoked token; a digest of no revoked token changes nothing.
   */
  async revokeFamilyOfRevoked(digest: string): Promise<number[]> {
    const { db } = this.base;
    return db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ id: number; userId: number }[]>`
        WITH RECURSIVE family AS (
          SELECT t."id" FROM "personal_access_tokens" t WHERE t."digest" = ${digest} AND t."revoked"
          UNION
          SELECT c."id" FROM "personal_access_tokens" c JOIN family f ON c."previousPersonalAccessTokenId" = f."id"
        )
        UPDATE "personal_access_tokens" t SET "revoked" = true, "updatedAt" = now()
        FROM family WHERE t."id" = family."id" AND NOT t."revoked"
        RETURNING t."id", t."userId"`;
      for (const row of rows) await this.announceRevoked(tx, [row.id]);
      return rows.map((r) => r.id);
    });
  }

  /** The level of a token's bot on its project: its membership's, or the level it was given once it left. */
  botLevel(userId: number): Promise<number | null> {
    return this.base.loaders.project_access_tokens.botLevels.load(userId);
  }

  /** Revokes `token` and issues its successor in one transaction (PersonalAccessTokens::RotateService). */
  private async replace(project: ProjectRow, token: TokenRow, expiresAt: Date | null | undefined): Promise<IssuedProjectAccessToken> {
    if (token.revoked) throw refused('Token already revoked');
    const problem = expiresAt ? expiryProblem(expiresAt, MAX_LIFETIME_DAYS) : null;
    if (problem) throw refused(problem);
    return this.base.db.$transaction(async (tx) => {
      // Only one of two concurrent rotations revokes it; the other finds it revoked.
      const { count } = await tx.personalAccessToken.updateMany({ where: { id: token.id, revoked: false }, data: { revoked: true } });
      if (!count) throw refused('Token already revoked');
      const next = await issueToken(tx, {
        userId: token.userId,
        name: token.name,
        description: token.description,
        scopes: token.scopes,
        expiresAt: expiresAt ?? days(ROTATED_LIFETIME_DAYS),
        previousPersonalAccessTokenId: token.id,
      });
      // GitLab clears the bot membership's expiry on rotation.
      await this.members.renewBot(tx, project.id, token.userId);
      await this.announceRevoked(tx, [token.id]);
      return { ...next, projectId: project.id };
    });
  }

  private async announceRevoked(tx: Prisma.TransactionClient, tokenIds: number[], blockedUserId?: number): Promise<void> {
    for (const tokenId of tokenIds) {
      const message: CredentialsRevoked = { tokenId };
      await this.base.publish(CREDENTIALS_REVOKED, message, tx);
    }
    if (blockedUserId !== undefined) {
      const message: CredentialsRevoked = { userId: blockedUserId };
      await this.base.publish(CREDENTIALS_REVOKED, message, tx);
      await this.base.publish(VIEWER_CHANGED, message, tx);
    }
  }

  /** Tokens of the project's bots (GitLab's `resource.bots`), impersonation tokens excepted. */
  private ofProject(projectId: number): Prisma.PersonalAccessTokenWhereInput {
    return { impersonation: false, user: { projectBot: { is: { projectId } } } };
  }

  private async findRow(project: ProjectRow, id: number): Promise<TokenRow | null> {
    return this.base.db.personalAccessToken.findFirst({ where: { AND: [{ id }, this.ofProject(project.id)] } });
  }

  private async find(project: ProjectRow, id: number): Promise<ProjectAccessTokenRow> {
    const row = await this.findRow(project, id);
    // GitLab names the resource by its `source_type`, in lower case.
    if (!row) throw notFound('project Access Token');
    return { ...row, projectId: project.id };
  }
}

/** The bot user's name (the token's), as User validates it. */
function nameProblem(name: string): string | null {
  if (!name.trim()) return "Name can't be blank";
  if (name.length > 255) return 'Name is too long (maximum is 255 characters)';
  return null;
}

/** PersonalAccessToken's expiry validations: in the future, and no later than the maximum lifetime. */
function expiryProblem(expiresAt: Date, maxDays: number): string | null {
  if (expiresAt.getTime() <= today().getTime()) return 'Expires at must be in the future';
  const max = days(maxDays);
  if (expiresAt.getTime() > max.getTime()) return `Expires at must be before ${isoDate(max)}`;
  return null;
}
