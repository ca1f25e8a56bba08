/** First-start seeding: the `root` administrator and its token. */
import { digestToken } from '../../auth/secrets.js';
import type { PrismaClient } from '../../db/database.js';
import { issueToken } from '../tokens/service.js';
import { UsersService } from './service.js';

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
