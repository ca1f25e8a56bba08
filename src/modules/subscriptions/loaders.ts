/** Batched reads of subscriptions: users' own choices, by `subscriptionKey`. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { subscriptionKey, type SubscribableType } from './service.js';

export function createSubscriptionLoaders(db: PrismaClient) {
  return {
    /** A user's choice about a subscribable: true, false, or null when they made none. */
    choice: new DataLoader<string, boolean | null>(async (keys) => {
      const wanted = keys.map((key) => {
        const [type, id, userId] = key.split(':');
        return { subscribableType: type as SubscribableType, subscribableId: Number(id), userId: Number(userId) };
      });
      const rows = await db.subscription.findMany({ where: { OR: wanted }, select: { subscribableType: true, subscribableId: true, userId: true, subscribed: true } });
      const found = new Map(rows.map((r) => [subscriptionKey(r.subscribableType as SubscribableType, r.subscribableId, r.userId), r.subscribed]));
      return keys.map((key) => found.get(key) ?? null);
    }),
  };
}

export type SubscriptionLoaders = ReturnType<typeof createSubscriptionLoaders>;
