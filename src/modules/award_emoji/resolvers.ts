/** GraphQL resolvers of award emoji, and the upvotes and downvotes of issues, merge requests and epics. */
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { emojiNamed, normalizeName, type Emoji } from './names.js';
import { awardableOf, type Awardable, type AwardableType, type AwardEmojiRow } from './service.js';

interface PathArgs {
  parentPath: string;
  onGroup?: boolean | null;
  awardableType: string;
  awardableKey: string;
  noteId?: number | null;
}

interface GlobalArgs {
  awardableId: { type: string; id: number };
  name: string;
}

const find = (ctx: Context, args: PathArgs) =>
  ctx.services.award_emoji.find(ctx.services, {
    parent: parseRef(args.parentPath, args.onGroup ? 'Group' : 'Project', 'parentPath'),
    onGroup: !!args.onGroup,
    kindName: args.awardableType,
    key: args.awardableKey,
    noteId: args.noteId ?? null,
  });

const byGlobalId = (ctx: Context, args: GlobalArgs) => ctx.services.award_emoji.byGlobalId(ctx.services, args.awardableId.type, args.awardableId.id);

/**
 * An award's emoji: its name is one (awards are validated against the table), or, for one stored under a name the
 * table now keeps as an alias, the emoji the alias stands for.
 */
function emojiOf(a: AwardEmojiRow): Emoji {
  const emoji = emojiNamed(a.name) ?? emojiNamed(normalizeName(a.name));
  if (!emoji) throw new Error(`award ${a.id} names no emoji: ${a.name}`);
  return emoji;
}

/** An awardable type's fields: its votes (for issuables) and its awards. */
const awardable = (type: AwardableType, votes: boolean) => ({
  ...(votes && {
    upvotes: async (row: { id: number }, _a: unknown, ctx: Context) => (await ctx.services.award_emoji.votes(type, row.id)).up,
    downvotes: async (row: { id: number }, _a: unknown, ctx: Context) => (await ctx.services.award_emoji.votes(type, row.id)).down,
  }),
  awardEmoji: async (row: { id: number }, args: PageArgs, ctx: Context) => listConnection(args, await ctx.services.award_emoji.of(type, row.id)),
});

export const awardEmojiResolvers = {
  AwardEmoji: {
    databaseId: (a: AwardEmojiRow) => a.id,
    emoji: (a: AwardEmojiRow) => emojiOf(a).char,
    unicode: (a: AwardEmojiRow) => emojiOf(a).hex,
    unicodeVersion: (a: AwardEmojiRow) => emojiOf(a).unicodeVersion,
    description: (a: AwardEmojiRow) => emojiOf(a).description,
    user: (a: AwardEmojiRow, _a: unknown, ctx: Context) => ctx.loaders.users.byId.load(a.userId),
    awardableDatabaseId: (a: AwardEmojiRow) => awardableOf(a).id,
    awardableType: (a: AwardEmojiRow) => awardableOf(a).type,
    url: () => null,
  },
  AwardableTarget: {
    awardEmoji: (a: Awardable, args: PageArgs, ctx: Context) => ctx.services.award_emoji.list(a, args),
    award: (a: Awardable, args: { id: number }, ctx: Context) => ctx.services.award_emoji.get(a, args.id),
  },
  Issue: awardable('Issue', true),
  MergeRequest: awardable('MergeRequest', true),
  Epic: awardable('Epic', true),
  Note: awardable('Note', false),
  Query: {
    awardable: (_: unknown, args: PathArgs, ctx: Context) => find(ctx, args),
  },
  Mutation: {
    awardEmojiAdd: async (_: unknown, args: GlobalArgs, ctx: Context) => {
      const result = await ctx.services.award_emoji.add(ctx.services, await byGlobalId(ctx, args), args.name);
      return 'errors' in result ? { awardEmoji: null, errors: result.errors } : { awardEmoji: result.award };
    },
    awardEmojiRemove: async (_: unknown, args: GlobalArgs, ctx: Context) => {
      const result = await ctx.services.award_emoji.removeByName(ctx.services, await byGlobalId(ctx, args), args.name);
      return 'errors' in result ? { awardEmoji: null, errors: result.errors } : { awardEmoji: null };
    },
    awardEmojiToggle: async (_: unknown, args: GlobalArgs, ctx: Context) => {
      const result = await ctx.services.award_emoji.toggle(ctx.services, await byGlobalId(ctx, args), args.name);
      return { awardEmoji: result.award, toggledOn: result.toggledOn, errors: result.errors };
    },
    awardableAwardEmojiCreate: async (_: unknown, args: PathArgs & { name: string }, ctx: Context) => ({
      awardEmoji: await ctx.services.award_emoji.addOrRefuse(ctx.services, await find(ctx, args), args.name),
    }),
    awardableAwardEmojiDestroy: async (_: unknown, args: PathArgs & { awardId: number }, ctx: Context) => ({
      awardEmoji: await ctx.services.award_emoji.remove(await find(ctx, args), args.awardId),
    }),
  },
};
