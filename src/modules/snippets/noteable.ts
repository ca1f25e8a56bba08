/**
 * Snippets as noteables (GitLab's Snippet, whose notes are stored with `noteable_type` `Snippet` for personal and
 * project snippets alike): found among a project's snippets by id, read with `read_snippet` (PersonalSnippetPolicy
 * and ProjectSnippetPolicy, policy.ts, which also give `read_note`), commented on by signed-in readers, never on an
 * archived project (ProjectSnippetPolicy's `~can?(:read_snippet)` prevents `create_note`; the project's archive
 * prevents it too). Snippet is neither among `Noteable.replyable_types` nor `resolvable_types`.
 */
import { registerNoteable, type Noteable, type NoteableContext, type NoteableKind } from '../notes/noteables.js';
import { snippetHookAttrs } from '../hooks/payloads.js';
import type { ProjectRow } from '../projects/service.js';
import type { SnippetRow } from './service.js';

export const SNIPPET = 'Snippet';

/** The rows noteables were made from, so their checks need no second read. */
const rows = new WeakMap<Noteable, SnippetRow>();

async function snippetNoteable(ctx: NoteableContext, row: SnippetRow): Promise<Noteable> {
  const project = (await ctx.services.snippets.projectOf(row)) as ProjectRow | null;
  const noteable: Noteable = { type: SNIPPET, project, groupId: null, id: row.id, commitId: null, iid: null, title: row.title };
  rows.set(noteable, row);
  return noteable;
}

async function rowOf(ctx: NoteableContext, noteable: Noteable): Promise<SnippetRow | null> {
  return rows.get(noteable) ?? (noteable.id === null ? null : ctx.services.snippets.find(noteable.id));
}

async function readable(ctx: NoteableContext, noteable: Noteable): Promise<boolean> {
  const row = await rowOf(ctx, noteable);
  return !!row && ctx.services.snippets.can('read_snippet', row);
}

export const snippetNoteables: NoteableKind = {
  type: SNIPPET,
  subclasses: ['PersonalSnippet', 'ProjectSnippet'],
  enumValue: 'SNIPPET',
  resource: 'Snippet',
  replyable: false,
  resolvable: false,
  async find(ctx, project, key) {
    if (!/^\d{1,10}$/.test(key)) return null;
    const row = await ctx.services.snippets.find(Number(key));
    return row && row.projectId === project.id ? snippetNoteable(ctx, row) : null;
  },
  fromRow: (ctx, row) => snippetNoteable(ctx, row as SnippetRow),
  async ofNote(ctx, note) {
    if (note.noteableId === null) return null;
    const row = await ctx.services.snippets.find(note.noteableId);
    return row && snippetNoteable(ctx, row);
  },
  canRead: readable,
  async canCreateNote(ctx, noteable) {
    if (!ctx.access.viewer || !(await readable(ctx, noteable))) return false;
    return !noteable.project?.archived;
  },
  async canSetCreatedAt(ctx, noteable) {
    return noteable.project ? ctx.access.can('set_note_created_at', noteable.project) : ctx.access.allowed('admin_all_resources');
  },
  /** Snippet#hook_attrs: its row, with its first file's name and content (GitLab's legacy columns) and its URL. */
  async hookAttrs(ctx, noteable, externalUrl) {
    const row = await rowOf(ctx, noteable);
    if (!row) return null;
    const { path, content } = await ctx.services.snippets.rawContent(row);
    const snippet = { ...row, fileName: path, content: content.toString('utf8') };
    return { key: 'snippet', attrs: snippetHookAttrs(snippet, noteable.project, externalUrl), confidential: false };
  },
};

registerNoteable(snippetNoteables);
