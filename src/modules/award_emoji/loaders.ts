/** Batched reads of award emoji: the upvotes and downvotes of listed issuables, and the awards of each awardable. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import { groupedLoader } from '../../db/loader.js';
import type { AwardableColumn, AwardEmojiRow } from './service.js';

const UPVOTE = 'thumbsup';
const DOWNVOTE = 'thumbsdown';

export function createAwardEmojiLoaders(db: PrismaClient) {
  const votes = new Map<AwardableColumn, DataLoader<number, { up: number; down: number }>>();
  const awards = new Map<AwardableColumn, DataLoader<number, AwardEmojiRow[]>>();
  return {
    /** Each awardable's `thumbsup` and `thumbsdown` awards counted (GitLab's AwardEmoji.votes_for_collection), by its column. */
    votes(column: AwardableColumn): DataLoader<number, { up: number; down: number }> {
      let loader = votes.get(column);
      if (!loader) {
        loader = new DataLoader(async (ids) => {
          const rows = await db.awardEmoji.groupBy({ by: [column, 'name'], where: { [column]: { in: [...ids] }, name: { in: [UPVOTE, DOWNVOTE] } }, _count: { _all: true } });
          const counts = new Map(ids.map((id) => [id, { up: 0, down: 0 }]));
          for (const row of rows) {
            const entry = counts.get(row[column] as number);
            if (entry) entry[row.name === UPVOTE ? 'up' : 'down'] += row._count._all;
          }
          return ids.map((id) => counts.get(id) ?? { up: 0, down: 0 });
        });
        votes.set(column, loader);
      }
      return loader;
    },
    /** Each awardable's awards, oldest first, by its column. */
    byAwardable(column: AwardableColumn): DataLoader<number, AwardEmojiRow[]> {
      let loader = awards.get(column);
      if (!loader) {
        loader = groupedLoader(
          (ids) => db.awardEmoji.findMany({ where: { [column]: { in: ids } }, orderBy: { id: 'asc' } }),
          (row) => row[column] as number,
        );
        awards.set(column, loader);
      }
      return loader;
    },
  };
}

export type AwardEmojiLoaders = ReturnType<typeof createAwardEmojiLoaders>;
