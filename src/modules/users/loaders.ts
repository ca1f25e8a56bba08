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
      // By lower(email), as the unique indexes on both tables are.
      const [primary, secondary] = await Promise.all([
        db.$queryRaw<{ id: number; email: string }[]>`SELECT "id", "email" FROM "users" WHERE lower("email") = ANY(${wanted}::text[])`,
        db.$queryRaw<{ userId: number; email: string }[]>`SELECT "userId", "email" FROM "emails" WHERE lower("email") = ANY(${wanted}::text[]) AND "confirmedAt" IS NOT NULL`,
      ]);
      const ids = [...new Set([...primary.map((r) => r.id), ...secondary.map((r) => r.userId)])];
      const users = new Map((ids.length ? await db.user.findMany({ where: { id: { in: ids } } }) : []).map((u) => [u.id, u]));
      const found = new Map<string, Prisma.UserGetPayload<object>>();
      for (const row of [...secondary.map((r) => ({ id: r.userId, email: r.email })), ...primary]) {
        const user = users.get(row.id);
        if (user) found.set(row.email.toLowerCase(), user);
      }
      return emails.map((e) => found.get(e.toLowerCase()) ?? null);
    }),
    /** Users' statuses, by user ID. */
    statusById: byKeyLoader((ids: readonly number[]) => db.userStatus.findMany({ where: { userId: { in: [...ids] } } }), (s) => s.userId),
  };
}

export type UserLoaders = ReturnType<typeof createUserLoaders>;

/** The users of these ids that exist, each once, in the order given: the people a field lists by id (commenters, participants). */
export async function usersByIds(loaders: UserLoaders, ids: readonly number[]) {
  return (await Promise.all([...new Set(ids)].map((id) => loaders.byId.load(id)))).filter((user) => user !== null);
}
