/** What a project's deletion does to its access tokens, kept apart from the service so that deletion imports no service. */
import { CREDENTIALS_REVOKED, type CredentialsRevoked } from '../../auth/credentials.js';
import type { Prisma } from '../../db/database.js';
import type { ServiceBase } from '../module.js';

/**
 * The bots of projects being deleted go with them (GitLab deletes a project's bot users): their tokens are revoked and
 * they are blocked, in the deleting transaction, before the project's deletion removes their memberships; on commit,
 * every replica forgets the viewers it remembers for them and closes their subscriptions.
 */
export async function retireProjectBots(tx: Prisma.TransactionClient, projectIds: readonly number[], publish: ServiceBase['publish']): Promise<void> {
  const bots = await tx.projectBot.findMany({ where: { projectId: { in: [...projectIds] } }, select: { userId: true } });
  if (bots.length === 0) return;
  const userIds = bots.map((b) => b.userId);
  await tx.personalAccessToken.updateMany({ where: { userId: { in: userIds }, revoked: false }, data: { revoked: true } });
  await tx.user.updateMany({ where: { id: { in: userIds } }, data: { state: 'blocked' } });
  for (const userId of userIds) {
    const message: CredentialsRevoked = { userId };
    await publish(CREDENTIALS_REVOKED, message, tx);
  }
}
