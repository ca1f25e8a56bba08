/** Batched reads for a page of project access tokens: each bot's level, one query for the page. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';

export function createProjectAccessTokenLoaders(db: PrismaClient) {
  return {
    /**
     * A bot user's level on its project: its membership's (which the members API may have changed), or, once it left
     * (its token revoked), the level its token was given. Null for a user who is no project bot.
     */
    botLevels: new DataLoader<number, number | null>(async (userIds) => {
      const bots = await db.projectBot.findMany({ where: { userId: { in: [...userIds] } } });
      const members = await db.member.findMany({
        where: { OR: bots.map((b) => ({ userId: b.userId, projectId: b.projectId })) },
        select: { userId: true, accessLevel: true },
      });
      const current = new Map(members.map((m) => [m.userId, m.accessLevel]));
      const given = new Map(bots.map((b) => [b.userId, b.accessLevel]));
      return userIds.map((id) => current.get(id) ?? given.get(id) ?? null);
    }),
  };
}

export type ProjectAccessTokenLoaders = ReturnType<typeof createProjectAccessTokenLoaders>;
