/** Batched user reads. */
import DataLoader from 'dataloader';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { byKeyLoader } from '../../db/loader.js';

export function createUserLoaders(db: PrismaClient) {
  return {
    byId: byKeyLoader((ids: readonly number[]) => db.user.findMany({ where: { id: { in: [...ids] } } }), (u) => u.id),
    /**
     * The user each e-mail address (lowercased) belongs to: their primary address or a confirmed secondary one
     * (GitLab's User.find_by_any_email, what a commit's author is found by); null for none.
     */
    byAnyEmail: new DataLoader<string, Prisma.UserGetPayload<object> | null>(async (emails) => {
      const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
      const [primary, secondary] = await Promise.all([
        db.user.findMany({ where: { email: { in: wanted, mode: 'insensitive' } } }),
        db.email.findMany({ where: { email: { in: wanted, mode: 'insensitive' }, confirmedAt: { not: null } }, select: { email: true, user: true } }),
      ]);
      const found = new Map<string, Prisma.UserGetPayload<object>>();
      for (const row of secondary) found.set(row.email.toLowerCase(), row.user);
      for (const user of primary) found.set(user.email.toLowerCase(), user);
      return emails.map((e) => found.get(e.toLowerCase()) ?? null);
    }),
    /** Users' statuses, by user ID. */
    statusById: byKeyLoader((ids: readonly number[]) => db.userStatus.findMany({ where: { userId: { in: [...ids] } } }), (s) => s.userId),
  };
}

export type UserLoaders = ReturnType<typeof createUserLoaders>;
