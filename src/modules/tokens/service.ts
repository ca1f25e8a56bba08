/** Owns personal access tokens: authentication of requests, creation (clear value shown once), listing and revocation. */
import type { Prisma, PrismaClient } from '../../db/database.js';
import { CREDENTIALS_REVOKED, type Authenticator, type CredentialsRevoked } from '../../auth/credentials.js';
import { TOKEN_SCOPES } from '../../auth/scopes.js';
import { digestToken, generateToken } from '../../auth/secrets.js';
import type { Viewer } from '../../auth/viewer.js';
import { forbidden, invalid, invalidArgument, notFound, tokenErrors, unauthenticated } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ServiceBase } from '../module.js';
import type { UsersService } from '../users/service.js';
import { containsIgnoringCase } from '../../db/text.js';

export type TokenRow = Awaited<ReturnType<PrismaClient['personalAccessToken']['findUniqueOrThrow']>>;
/** A token row, with its clear value when it was just created. */
export type IssuedToken = TokenRow & { token?: string };

const TOKEN_PREFIX = 'glpat-';

/** Lifetime of a token created without `expires_at`. */
const DEFAULT_LIFETIME_DAYS = 365;

/** `last_used_at` is written at most this often, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000;

export function today(): Date {
  return new Date(new Date().toISOString().slice(0, 10));
}

/** Active: not revoked, and expiring after today (a token expires at the start of its expiry date). */
export function isTokenActive(token: Pick<TokenRow, 'revoked' | 'expiresAt'>): boolean {
  return !token.revoked && (token.expiresAt === null || token.expiresAt.getTime() > today().getTime());
}

/** The user columns an authenticator reads along with its token (as `userId`, `username`, …). */
export interface TokenUserRow {
  userId: number;
  username: string;
  admin: boolean;
  external: boolean;
  bot: boolean;
  canCreateGroup: boolean;
  state: string;
}

interface AuthRow extends TokenUserRow {
  id: number;
  scopes: string[];
  revoked: boolean;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/**
 * The viewer a token of a user authenticates. GitLab authenticates a blocked user's token, then refuses API access
 * with UserAccessDeniedReason's words: FORBIDDEN for a user who is not active.
 */
export function tokenViewer(row: TokenUserRow, token: Pick<Viewer, 'tokenId' | 'tokenExpiresAt' | 'scopes' | 'oauth'>, externalUrl: string): Viewer {
  if (row.state !== 'active') throw forbidden(accessDeniedReason(row.state, externalUrl));
  return { id: row.userId, username: row.username, admin: row.admin, external: row.external, bot: row.bot, canCreateGroup: row.canCreateGroup, ...token };
}

/**
 * The authenticator of every request: a token digest to the viewer it authenticates. Unknown, revoked or expired
 * tokens are UNAUTHENTICATED and a blocked user's FORBIDDEN: a bad token is never downgraded to anonymous.
 */
export function tokenAuthenticator(db: PrismaClient, externalUrl = ''): Authenticator {
  return async (digest) => {
    // Every request runs this: one round trip for the token and its user.
    const [row] = await db.$queryRaw<AuthRow[]>`
      SELECT t."id", t."scopes", t."revoked", t."expiresAt", t."lastUsedAt",
             u."id" AS "userId", u."username", u."admin", u."external", u."bot", u."canCreateGroup", u."state"
      FROM "personal_access_tokens" t JOIN "users" u ON u."id" = t."userId"
      WHERE t."digest" = ${digest}`;
    if (!row) throw unauthenticated();
    if (row.revoked) throw unauthenticated(tokenErrors.revoked);
    if (row.expiresAt && row.expiresAt.getTime() <= today().getTime()) throw unauthenticated(tokenErrors.expired);
    const viewer = tokenViewer(row, { tokenId: row.id, tokenExpiresAt: row.expiresAt, scopes: row.scopes }, externalUrl);
    const now = Date.now();
    if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await db.personalAccessToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
    }
    return viewer;
  };
}

/** Why a user who is not active may not use the API (GitLab's Gitlab::Auth::UserAccessDeniedReason). */
function accessDeniedReason(state: string, externalUrl: string): string {
  if (state === 'deactivated') {
    return `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${externalUrl}`;
  }
  if (state === 'blocked_pending_approval') return 'Your account is pending approval from your administrator and hence blocked.';
  return 'Your account has been blocked.';
}

/** Stores a token for `userId`; `clear` is the value to store (generated when absent). */
export async function issueToken(
  db: PrismaClient | Prisma.TransactionClient,
  data: { userId: number; name: string; scopes: string[]; expiresAt: Date | null; description?: string | null; impersonation?: boolean; previousPersonalAccessTokenId?: number | null },
  clear: string = generateToken(TOKEN_PREFIX),
): Promise<IssuedToken> {
  const row = await db.personalAccessToken.create({
    data: {
      userId: data.userId,
      name: data.name,
      scopes: data.scopes,
      expiresAt: data.expiresAt,
      description: data.description ?? null,
      impersonation: data.impersonation ?? false,
      previousPersonalAccessTokenId: data.previousPersonalAccessTokenId ?? null,
      digest: digestToken(clear),
    },
  });
  return { ...row, token: clear };
}

/** Tokens that work: not revoked, and expiring after today. */
export function activeTokenWhere(): Prisma.PersonalAccessTokenWhereInput {
  return { revoked: false, OR: [{ expiresAt: null }, { expiresAt: { gt: today() } }] };
}

/** The expiry of a token created without one: GitLab requires an expiry, so a token lives the default year. */
export function defaultTokenExpiry(): Date {
  return new Date(today().getTime() + DEFAULT_LIFETIME_DAYS * 86_400_000);
}

export interface TokenFilters {
  userId?: number | null;
  state?: 'active' | 'inactive' | null;
  revoked?: boolean | null;
  search?: string | null;
}

export interface TokenInput {
  userId: number;
  name: string;
  description?: string | null;
  scopes: string[];
  expiresAt?: Date | null;
}

export class TokensService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
  ) {}

  /** Tokens the viewer may read (their own; any for an administrator), optionally of one user. */
  async list(filters: TokenFilters, page: PageArgs) {
    const { access } = this.base;
    access.requireViewer();
    const and: Prisma.PersonalAccessTokenWhereInput[] = [await access.where('read_token')];
    if (filters.userId != null) {
      await access.authorize('read_user_personal_access_tokens', { id: filters.userId });
      and.push({ userId: filters.userId });
    }
    // Only administrators see impersonation tokens among personal access tokens (GitLab's finder_params).
    if (!access.allowed('admin_all_resources')) and.push({ impersonation: false });
    const active = activeTokenWhere();
    if (filters.state === 'active') and.push(active);
    if (filters.state === 'inactive') and.push({ NOT: active });
    if (filters.revoked != null) and.push({ revoked: filters.revoked });
    if (filters.search) and.push({ name: containsIgnoringCase(filters.search) });
    const where: Prisma.PersonalAccessTokenWhereInput = { AND: and };
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take }) => db.personalAccessToken.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.personalAccessToken.count({ where }),
    );
  }

  /** A token the viewer may read. */
  async get(id: number): Promise<TokenRow> {
    this.base.access.requireViewer();
    const row = await this.base.db.personalAccessToken.findUnique({ where: { id } });
    if (!row || !(await this.base.access.can('read_token', row))) throw notFound('Personal Access Token');
    return row;
  }

  /** The token authenticating this request. */
  self(): Promise<TokenRow> {
    return this.get(this.base.access.requireViewer().tokenId);
  }

  /** Creates a token for a user. Administrators only. */
  async create(input: TokenInput): Promise<IssuedToken> {
    await this.base.access.authorize('admin_all_resources', null);
    const user = await this.users.get({ id: input.userId });
    if (!input.scopes.length || input.scopes.some((s) => !(TOKEN_SCOPES as readonly string[]).includes(s))) throw invalidArgument('scopes');
    if (!input.name.trim()) throw invalid({ name: ["can't be blank"] });
    if (input.expiresAt && input.expiresAt.getTime() <= today().getTime()) throw invalid({ expiresAt: ['must be in the future'] });
    return issueToken(this.base.db, {
      userId: user.id,
      name: input.name,
      scopes: input.scopes,
      expiresAt: input.expiresAt ?? defaultTokenExpiry(),
      description: input.description,
    });
  }

  /** Revokes a token the viewer may revoke (their own; any for an administrator). */
  async revoke(id: number): Promise<TokenRow> {
    const row = await this.get(id);
    await this.base.access.authorize('revoke_token', row);
    const { db } = this.base;
    return db.$transaction(async (tx) => {
      const revoked = await tx.personalAccessToken.update({ where: { id: row.id }, data: { revoked: true } });
      const message: CredentialsRevoked = { tokenId: row.id };
      await this.base.publish(CREDENTIALS_REVOKED, message, tx);
      return revoked;
    });
  }

  /** Revokes the token authenticating this request. */
  revokeSelf(): Promise<TokenRow> {
    return this.revoke(this.base.access.requireViewer().tokenId);
  }
}
