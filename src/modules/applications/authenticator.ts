/**
 * OAuth access tokens as API credentials (`Authorization: Bearer`, `access_token`, graphql-ws connectionParams): the
 * token's user, within the token's scopes, until the token expires, is revoked or refreshed, or its application is
 * deleted. Tried after personal access tokens (src/auth/credentials.ts `orElse`), remembered as they are.
 */
import type { PrismaClient } from '../../db/database.js';
import type { Authenticator } from '../../auth/credentials.js';
import { tokenErrors, unauthenticated } from '../../errors.js';
import { tokenViewer, type TokenUserRow } from '../tokens/service.js';

interface AuthRow extends TokenUserRow {
  id: number;
  applicationId: number | null;
  scopes: string[];
  revokedAt: Date | null;
  createdAt: Date;
  expiresIn: number;
}

export function oauthAuthenticator(db: PrismaClient, externalUrl = ''): Authenticator {
  return async (digest) => {
    const [row] = await db.$queryRaw<AuthRow[]>`
      SELECT t."id", t."applicationId", t."scopes", t."revokedAt", t."createdAt", t."expiresIn",
             u."id" AS "userId", u."username", u."admin", u."external", u."bot", u."canCreateGroup", u."state"
      FROM "oauth_access_tokens" t JOIN "users" u ON u."id" = t."resourceOwnerId"
      WHERE t."digest" = ${digest}`;
    if (!row) throw unauthenticated();
    if (row.revokedAt) throw unauthenticated(tokenErrors.revoked);
    const expiresAt = new Date(row.createdAt.getTime() + row.expiresIn * 1000);
    if (expiresAt.getTime() <= Date.now()) throw unauthenticated(tokenErrors.expired);
    return tokenViewer(row, { tokenId: 0, tokenExpiresAt: expiresAt, scopes: row.scopes, oauth: { tokenId: row.id, applicationId: row.applicationId } }, externalUrl);
  };
}
