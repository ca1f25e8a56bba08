/** Owns personal access tokens: authentication of requests, creation (clear value shown once), listing and revocation. */
import type { App, ServiceDeps } from '../../context.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import type { Viewer } from '../../auth/viewer.js';
import { requireAdmin, requireViewer, requireWriteScope } from '../../auth/policy.js';
import { digestToken, generateToken } from '../../auth/secrets.js';
import { forbidden, invalid, invalidValue, notFound, tokenErrors, unauthenticated } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { parseId } from '../../graphql/ids.js';

export type TokenRow = Awaited<ReturnType<PrismaClient['personalAccessToken']['findUniqueOrThrow']>>;
/** A token row, with its clear value when it was just created. */
export type IssuedToken = TokenRow & { token?: string };

const TOKEN_PREFIX = 'glpat-';

/** Scopes a personal access token may carry. */
const TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'create_runner',
  'manage_runner',
  'k8s_proxy',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'read_virtual_registry',
  'write_virtual_registry',
  'sudo',
  'admin_mode',
  'read_service_ping',
  'ai_features',
  'self_rotate',
] as const;

/** Lifetime of a token created without `expires_at`. */
const DEFAULT_LIFETIME_DAYS = 365;

/** `last_used_at` is written at most this often, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000;

function today(): Date {
  return new Date(new Date().toISOString().slice(0, 10));
}

/** Active: not revoked, and expiring after today (a token expires at the start of its expiry date). */
export function isTokenActive(token: Pick<TokenRow, 'revoked' | 'expiresAt'>): boolean {
  return !token.revoked && (token.expiresAt === null || token.expiresAt.getTime() > today().getTime());
}

/**
 * Turns a clear token into the viewer it authenticates. Unknown tokens, blocked users, and revoked or expired
 * tokens are UNAUTHENTICATED: a bad token is never downgraded to anonymous.
 */
export async function authenticate(app: App, secret: string): Promise<Viewer> {
  // Every request runs this: one round trip for the token and its user.
  const [row] = await app.db.$queryRaw<AuthRow[]>`
    SELECT t."id", t."scopes", t."revoked", t."expiresAt", t."lastUsedAt",
           u."id" AS "userId", u."username", u."admin", u."external", u."bot", u."state"
    FROM "personal_access_tokens" t JOIN "users" u ON u."id" = t."userId"
    WHERE t."digest" = ${digestToken(secret)}`;
  if (!row) throw unauthenticated();
  if (row.revoked) throw unauthenticated(tokenErrors.revoked);
  if (row.expiresAt && row.expiresAt.getTime() <= today().getTime()) throw unauthenticated(tokenErrors.expired);
  if (row.state !== 'active') throw unauthenticated();
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await app.db.personalAccessToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return { id: row.userId, username: row.username, admin: row.admin, external: row.external, bot: row.bot, tokenId: row.id, scopes: row.scopes };
}

interface AuthRow {
  id: number;
  scopes: string[];
  revoked: boolean;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  userId: number;
  username: string;
  admin: boolean;
  external: boolean;
  bot: boolean;
  state: string;
}

/** Stores a token for `userId`; `clear` is the value to store (generated when absent). */
export async function issueToken(
  db: PrismaClient | Prisma.TransactionClient,
  data: { userId: number; name: string; scopes: string[]; expiresAt: Date | null; description?: string | null },
  clear: string = generateToken(TOKEN_PREFIX),
): Promise<IssuedToken> {
  const row = await db.personalAccessToken.create({
    data: { userId: data.userId, name: data.name, scopes: data.scopes, expiresAt: data.expiresAt, description: data.description ?? null, digest: digestToken(clear) },
  });
  return { ...row, token: clear };
}

export interface TokenFilters {
  userId?: string | null;
  state?: 'active' | 'inactive' | null;
  revoked?: boolean | null;
  search?: string | null;
}

export interface TokenInput {
  userId: string;
  name: string;
  description?: string | null;
  scopes: string[];
  expiresAt?: Date | null;
}

export class TokensService {
  constructor(private readonly deps: ServiceDeps) {}

  list(filters: TokenFilters, page: PageArgs) {
    const viewer = requireViewer(this.deps.viewer);
    const and: Prisma.PersonalAccessTokenWhereInput[] = [];
    if (filters.userId != null) {
      const userId = parseId(filters.userId, 'User', 'user_id');
      if (!viewer.admin && userId !== viewer.id) throw forbidden();
      and.push({ userId });
    } else if (!viewer.admin) {
      and.push({ userId: viewer.id });
    }
    const active: Prisma.PersonalAccessTokenWhereInput = { revoked: false, OR: [{ expiresAt: null }, { expiresAt: { gt: today() } }] };
    if (filters.state === 'active') and.push(active);
    if (filters.state === 'inactive') and.push({ NOT: active });
    if (filters.revoked != null) and.push({ revoked: filters.revoked });
    if (filters.search) and.push({ name: { contains: filters.search, mode: 'insensitive' } });
    const where: Prisma.PersonalAccessTokenWhereInput = { AND: and };
    const db = this.deps.db;
    return connection(
      page,
      ({ skip, take }) => db.personalAccessToken.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.personalAccessToken.count({ where }),
    );
  }

  /** A token the viewer owns (any token for an administrator); the request's own token when `id` is omitted. */
  async get(id: string | null | undefined): Promise<TokenRow> {
    const viewer = requireViewer(this.deps.viewer);
    const tokenId = id == null ? viewer.tokenId : parseId(id, 'PersonalAccessToken', 'id');
    const row = await this.deps.db.personalAccessToken.findUnique({ where: { id: tokenId } });
    if (!row || (!viewer.admin && row.userId !== viewer.id)) throw notFound('Personal Access Token');
    return row;
  }

  /** Creates a token for a user. Administrators only. */
  async create(input: TokenInput): Promise<IssuedToken> {
    requireWriteScope(this.deps.viewer);
    requireAdmin(this.deps.viewer);
    const user = await this.deps.services.users.get({ id: input.userId });
    if (!input.scopes.length || input.scopes.some((s) => !(TOKEN_SCOPES as readonly string[]).includes(s))) throw invalidValue('scopes');
    if (!input.name.trim()) throw invalid({ name: ["can't be blank"] });
    if (input.expiresAt && input.expiresAt.getTime() <= today().getTime()) {
      throw invalid({ expires_at: ['must be in the future'] });
    }
    return issueToken(this.deps.db, {
      userId: user.id,
      name: input.name,
      scopes: input.scopes,
      // GitLab requires an expiry: without one, a token lives the default year.
      expiresAt: input.expiresAt ?? new Date(today().getTime() + DEFAULT_LIFETIME_DAYS * 86_400_000),
      description: input.description,
    });
  }

  /** Revokes a token the viewer owns (any for an administrator). */
  async revoke(id: string | null | undefined): Promise<TokenRow> {
    const row = await this.get(id);
    // Revoking the request's own token is allowed with any scope, as GitLab's self-revocation is.
    if (id != null) requireWriteScope(this.deps.viewer);
    return this.deps.db.personalAccessToken.update({ where: { id: row.id }, data: { revoked: true } });
  }
}
