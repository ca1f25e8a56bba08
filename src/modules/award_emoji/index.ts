/**
 * Award emoji (GitLab's AwardEmoji): emoji reactions on issues, merge requests, snippets, epics and their notes, the
 * Award Emoji API, GraphQL's awardEmojiAdd/Remove/Toggle, the emoji names an award may take (names.ts), and the
 * `upvotes`/`downvotes` issuables show. Who may read and award follows each noteable kind of the notes engine.
 */
import { defineModule } from '../module.js';
import { createAwardEmojiLoaders, type AwardEmojiLoaders } from './loaders.js';
import { awardEmojiPolicy } from './policy.js';
import { awardEmojiResolvers } from './resolvers.js';
import { awardEmojiRoutes } from './routes.js';
import { AwardEmojiService } from './service.js';

declare module '../module.js' {
  interface Services {
    award_emoji: AwardEmojiService;
  }
  interface Loaders {
    award_emoji: AwardEmojiLoaders;
  }
}

export const awardEmojiModule = defineModule({
  name: 'award_emoji',
  schema: ['award_emoji.graphql'],
  operations: ['award_emoji.graphql'],
  resolvers: awardEmojiResolvers,
  policy: awardEmojiPolicy,
  routes: awardEmojiRoutes,
  loaders: (db) => createAwardEmojiLoaders(db),
  uses: [],
  service: (base) => new AwardEmojiService(base),
});
