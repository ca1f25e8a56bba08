/**
 * GitLab's Award Emoji API (`lib/api/award_emoji.rb`, with EE's epics): the awards of issues, merge requests and
 * snippets of projects, epics of groups, and of their notes, each route run by one set of operations with the
 * awardable's kind fixed by the route. Reads are open to whoever reads the awardable; writes answer 404 or 401 as
 * GitLab's endpoints do, so none is behind `authenticate`.
 */
import type { RestRoute } from '../../rest/route.js';

function awardRoutes(parent: string, awardableType: string, onGroup = false): RestRoute[] {
  return [
    { base: parent, variables: { awardableType, onGroup, noteId: null } },
    { base: `${parent}/notes/:note_id`, variables: { awardableType, onGroup } },
  ].flatMap(({ base, variables }): RestRoute[] => [
    { method: 'GET', path: `${base}/award_emoji`, operation: 'RestListAwardEmoji', result: 'awardable.awardEmoji', paginate: true, variables },
    { method: 'GET', path: `${base}/award_emoji/:award_id`, operation: 'RestGetAwardEmoji', result: 'awardable.award', variables },
    { method: 'POST', path: `${base}/award_emoji`, operation: 'RestCreateAwardEmoji', result: 'awardableAwardEmojiCreate.awardEmoji', variables },
    { method: 'DELETE', path: `${base}/award_emoji/:award_id`, operation: 'RestDeleteAwardEmoji', result: 'awardableAwardEmojiDestroy.awardEmoji', status: 204, variables },
  ]);
}

export const awardEmojiRoutes: RestRoute[] = [
  ...awardRoutes('/projects/:id/issues/:awardable_id', 'ISSUE'),
  ...awardRoutes('/projects/:id/merge_requests/:awardable_id', 'MERGE_REQUEST'),
  ...awardRoutes('/projects/:id/snippets/:awardable_id', 'SNIPPET'),
  ...awardRoutes('/groups/:id/epics/:awardable_id', 'EPIC', true),
];
