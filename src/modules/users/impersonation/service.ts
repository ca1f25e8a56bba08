/**
 * Impersonation tokens (GitLab's `/users/:id/impersonation_tokens`): personal access tokens an administrator makes
 * to act as a user, flagged `impersonation`, stored and authenticated as every personal access token is
 * (src/modules/tokens). Administrators only, asked before the user is looked up.
 */
import type { Prisma } from '../../../db/database.js';
import { CREDENTIALS_REVOKED, type CredentialsRevoked } from '../../../auth/credentials.js';
import { TOKEN_SCOPES } from '../../../auth/scopes.js';
import { invalid, notFound } from '../../../errors.js';
import { connection, type PageArgs } from '../../../graphql/connection.js';
import type { ServiceBase } from '../../module.js';
import { activeTokenWhere, defaultTokenExpiry, issueToken, type IssuedToken, type TokenRow } from '../../tokens/service.js';
import type { UsersService } from '../service.js';

export interface ImpersonationTokenInput {
  userId: number;
  name: string;
  expiresAt?: Date | null;
  scopes?: string[] | null;
}

export class ImpersonationTokensService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
  ) {}

  async list(userId: number, state: 'all' | 'active' | 'inactive' | null | undefined, page: PageArgs) {
    const user = await this.users.administered(userId);
    const and: Prisma.PersonalAccessTokenWhereInput[] = [{ userId: user.id, impersonation: true }];
    if (state === 'active') and.push(activeTokenWhere());
    if (state === 'inactive') and.push({ NOT: activeTokenWhere() });
    const where: Prisma.PersonalAccessTokenWhereInput = { AND: and };
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take }) => db.personalAccessToken.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.personalAccessToken.count({ where }),
    );
  }

  /** One impersonation token of the user; `404 Impersonation Token Not Found` otherwise. */
  async get(userId: number, tokenId: number): Promise<TokenRow> {
    const user = await this.users.administered(userId);
    const row = await this.base.db.personalAccessToken.findFirst({ where: { id: tokenId, userId: user.id, impersonation: true } });
    if (!row) throw notFound('Impersonation Token');
    return row;
  }

  /** Creates one; the clear value is in this answer only. GitLab's PersonalAccessToken validations, in its words. */
  async create(input: ImpersonationTokenInput): Promise<IssuedToken> {
    const user = await this.users.administered(input.userId);
    const errors: Record<string, string[]> = {};
    const scopes = input.scopes ?? [];
    if (!input.name.trim()) errors.name = ["can't be blank"];
    if (!scopes.length) errors.scopes = ["can't be blank"];
    else if (scopes.some((s) => !(TOKEN_SCOPES as readonly string[]).includes(s))) errors.scopes = ['can only contain available scopes'];
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) errors.expiresAt = ['must be in the future'];
    if (Object.keys(errors).length) throw invalid(errors);
    return issueToken(this.base.db, { userId: user.id, name: input.name, scopes, expiresAt: input.expiresAt ?? defaultTokenExpiry(), impersonation: true });
  }

  /** Revokes one: it stops working at once on every replica. */
  async revoke(userId: number, tokenId: number): Promise<boolean> {
    const row = await this.get(userId, tokenId);
    await this.base.db.$transaction(async (tx) => {
      await tx.personalAccessToken.update({ where: { id: row.id }, data: { revoked: true } });
      const news: CredentialsRevoked = { tokenId: row.id };
      await this.base.publish(CREDENTIALS_REVOKED, news, tx);
    });
    return true;
  }
}
