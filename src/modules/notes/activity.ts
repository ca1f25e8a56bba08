/**
 * Who sees a comment's activity event (GitLab's Event#visible_to_user? asks `read_note` of the note's noteable):
 * those who may read what it is on, so a comment on a confidential issue reaches only the readers.
 */
import { registerEventTarget } from '../activity/targets.js';

/** The note classes stored as events' `targetType` (the note's STI class). */
const NOTE_CLASSES = ['Note', 'DiscussionNote', 'DiffNote', 'LegacyDiffNote'];

registerEventTarget(NOTE_CLASSES, { readableTargets: (services, ids) => services.notes.readableIds(services, ids) });
