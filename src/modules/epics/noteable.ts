/**
 * Epics as noteables of the notes engine (GitLab's Epic is a Noteable): found by id in their group (the Notes and
 * Discussions APIs' `:epic_id` is the epic's id, as NotesHelpers#finder_params_by_noteable_type_and_id takes it for
 * every type but issues and merge requests), read by whoever may read the epic, commented on by signed-in readers
 * (EpicPolicy's `create_note`), a single comment replyable (EE's Noteable adds Epic to the replyable types). Without
 * the epics licence the lookup answers 403, as every epic endpoint does.
 */
import { registerNoteable, type Noteable, type NoteableContext } from '../notes/noteables.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { EPIC, type EpicRow } from './service.js';

function epicNoteable(epic: EpicRow): Noteable & { epic: EpicRow } {
  return { type: EPIC, project: null, groupId: epic.groupId, id: epic.id, commitId: null, iid: null, title: epic.title, epic };
}

const epicOf = (noteable: Noteable) => (noteable as Noteable & { epic: EpicRow }).epic;

async function abilities(ctx: NoteableContext, noteable: Noteable) {
  return ctx.services.epics.abilities(epicOf(noteable));
}

registerNoteable({
  type: EPIC,
  enumValue: 'EPIC',
  resource: 'Epic',
  replyable: true,
  resolvable: false,
  internalNotes: true,
  find: async () => null,
  async findInGroup(ctx, group: NamespaceRow, key) {
    ctx.services.epics.requireAvailable();
    if (!/^\d{1,9}$/.test(key)) return null;
    const epic = await ctx.services.epics.byId(Number(key));
    return epic && epic.groupId === group.id ? epicNoteable(epic) : null;
  },
  fromRow: async (_ctx, row) => epicNoteable(row as EpicRow),
  async ofNote(ctx, note) {
    const epic = note.noteableId === null ? null : await ctx.services.epics.byId(note.noteableId);
    return epic && epicNoteable(epic);
  },
  canRead: async (ctx, noteable) => (await abilities(ctx, noteable)).read,
  canCreateNote: async (ctx, noteable) => (await abilities(ctx, noteable)).comment,
  canSetCreatedAt: async (ctx, noteable) => (await abilities(ctx, noteable)).setCreatedAt,
});
