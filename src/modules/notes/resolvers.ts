/** GraphQL resolvers of notes: GitLab's Note and Discussion, createNote/updateNote/destroyNote, and the REST-serving fields. */
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import type { Context } from '../../context.js';
import type { PageArgs } from '../../graphql/connection.js';
import { listConnection } from '../../graphql/connection.js';
import { parseRef } from '../../graphql/ids.js';
import { argumentError, invalid, missing } from '../../errors.js';
import type { CommitRow } from '../repositories/reads.js';
import { COMMIT } from './commits.js';
import { noteableKind } from './noteables.js';
import type { CreatedNote, DiscussionRow, InternalInput, NoteRow } from './service.js';
import { isIndividual, isResolvable } from './service.js';

/** Note's classes (GitLab's STI), as events store their targets. */
const NOTE_CLASSES = new Set(['Note', 'DiscussionNote', 'DiffNote', 'LegacyDiffNote']);

const inspect = (value: unknown) => JSON.stringify(value) ?? String(value);
const GID = /^gid:\/\/([^/]+)\/([A-Za-z][A-Za-z0-9]*(?:::[A-Za-z][A-Za-z0-9]*)*)\/([^/?]+)(?:\?(.*))?$/;

/** A parsed global ID: its class, its id, and its parameters (GlobalID's query string). */
interface ParsedGid {
  model: string;
  id: string;
  params: URLSearchParams;
}

function gidScalar(name: string, description: string, check: (gid: ParsedGid, raw: string) => void, serialize: (value: unknown) => string) {
  const parse = (value: unknown): ParsedGid => {
    const match = typeof value === 'string' ? GID.exec(value) : null;
    if (!match) throw new TypeError(`${inspect(value)} is not a valid Global ID`);
    if (match[1] !== 'gitlab') throw new TypeError(`${inspect(value)} is not a Gitlab Global ID`);
    const gid = { model: match[2], id: match[3], params: new URLSearchParams(match[4] ?? '') };
    check(gid, value as string);
    return gid;
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize,
    parseValue: parse,
    parseLiteral: (ast: ValueNode) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
  });
}

/** `gid://gitlab/Discussion/` and the thread's 40 hex characters; the resolver gets the hex. */
interface DiffPositionInput {
  baseSha?: string | null;
  headSha: string;
  startSha: string;
  paths: { oldPath?: string | null; newPath?: string | null };
}
type DiffNoteArgs = InternalInput & { noteableId: ParsedGid; body: string };

/**
 * GraphQL's diff notes (Mutations::Notes::Create::DiffNote and ImageDiffNote): GitLab's position hash from the input
 * (`position_type` and the paths merged in), a thread of its own on the noteable; a position naming no file is
 * DiffNote's `Position is incomplete`.
 */
async function createDiffNote(ctx: Context, args: DiffNoteArgs & { position: DiffPositionInput }, shape: Record<string, unknown>) {
  const { notes } = ctx.services;
  const noteable = await notes.noteableByGlobalId(ctx.services, args.noteableId.model, args.noteableId.id, args.noteableId.params.get('project_id'));
  const { baseSha, startSha, headSha, paths } = args.position;
  if (!paths.oldPath && !paths.newPath) throw invalid({ position: ['is incomplete'] }, { badRecord: 'Note' });
  const position = { base_sha: baseSha ?? null, start_sha: startSha, head_sha: headSha, old_path: paths.oldPath ?? null, new_path: paths.newPath ?? null, ...shape };
  return notes.graphqlCreation(await notes.createDiffNote(ctx.services, noteable, { body: args.body, internal: args.internal, confidential: args.confidential, position }));
}

export const DiscussionID = gidScalar(
  'DiscussionID',
  'A `DiscussionID` is a global ID. It is encoded as a string.',
  (gid, raw) => {
    if (gid.model !== 'Discussion') throw new TypeError(`${inspect(raw)} does not represent an instance of Discussion`);
  },
  (value) => `gid://gitlab/Discussion/${String(value)}`,
);

/** A registered noteable's global ID; a commit's carries its project (`?project_id=`). */
export const NoteableID = gidScalar(
  'NoteableID',
  'A `NoteableID` is a global ID. It is encoded as a string.',
  (gid, raw) => {
    if (!noteableKind(gid.model)) throw new TypeError(`${inspect(raw)} does not represent an instance of Noteable`);
    if (gid.model === COMMIT && !/^\d+$/.test(gid.params.get('project_id') ?? '')) throw new TypeError(`${inspect(raw)} names no project: add ?project_id=<id>`);
  },
  (value) => String(value),
);

export interface NoteableArgs {
  projectId?: string | null;
  groupId?: string | null;
  noteableType: string;
  key: string;
}

/** The noteable a project's (or, for epics, a group's) key names, readable by the viewer: the REST parents' one lookup. */
export const noteableOf = (ctx: Context, args: NoteableArgs) => {
  const { notes } = ctx.services;
  if (args.groupId != null) return notes.groupNoteable(ctx.services, args.noteableType, parseRef(args.groupId, 'Group', 'groupId'), args.key);
  if (args.projectId == null) throw missing('projectId');
  return notes.noteable(ctx.services, args.noteableType, parseRef(args.projectId, 'Project', 'projectId'), args.key);
};

/** A stored position's number (a form's `position[new_line]=12` is kept as given, a string), or null. */
const positionInt = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};
const positionText = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * GitLab's DiffPosition of a DiffNote's stored position (Gitlab::Diff::Position): its diff refs, paths, lines and, on
 * an image, the point and the image's size; `filePath` is the new path, or the old one when the file was deleted.
 */
function diffPosition(p: Record<string, unknown>) {
  const newPath = positionText(p.new_path);
  const oldPath = positionText(p.old_path);
  return {
    diffRefs: { baseSha: positionText(p.base_sha), startSha: String(p.start_sha ?? ''), headSha: String(p.head_sha ?? '') },
    filePath: newPath ?? oldPath ?? '',
    newPath,
    oldPath,
    newLine: positionInt(p.new_line),
    oldLine: positionInt(p.old_line),
    positionType: String(p.position_type),
    x: positionInt(p.x),
    y: positionInt(p.y),
    width: positionInt(p.width),
    height: positionInt(p.height),
  };
}

const user = (ctx: Context, id: number | null) => (id === null ? null : ctx.loaders.users.byId.load(id));

/** A resolvable note's resolution, as Note and REST's NoteResolution show it. */
const resolution = {
  resolved: (n: NoteRow) => isResolvable(n) && n.resolvedAt !== null,
  resolvedAt: (n: NoteRow) => (isResolvable(n) ? n.resolvedAt : null),
  resolvedBy: (n: NoteRow, _a: unknown, ctx: Context) => (isResolvable(n) ? user(ctx, n.resolvedById) : null),
};

const discussionResolved = (d: DiscussionRow) => {
  const notes = d.notes.filter(isResolvable);
  return notes.length > 0 && notes.every((n) => n.resolvedAt !== null);
};

const lastResolved = (d: DiscussionRow) =>
  d.notes.filter((n) => isResolvable(n) && n.resolvedAt !== null).reduce<NoteRow | null>((last, n) => (!last || n.resolvedAt! > last.resolvedAt! ? n : last), null);

/**
 * GitLab's Noteable fields for a kind's GraphQL type (`Issue`, `MergeRequest`, `Epic`, `Snippet`): `notes`, every
 * note oldest first, and `discussions`, its threads, the object as the notes engine reads it.
 */
export function noteableFields(type: string) {
  const of = (row: { id: number }, ctx: Context) => ctx.services.notes.noteableOfRow(ctx.services, type, row);
  return {
    notes: async (row: { id: number }, args: PageArgs, ctx: Context) => ctx.services.notes.comments(await of(row, ctx), args),
    discussions: async (row: { id: number }, args: PageArgs, ctx: Context) => ctx.services.notes.discussions(await of(row, ctx), args),
  };
}

export const notesResolvers = {
  DiscussionID,
  NoteableID,
  NoteableKind: { COMMIT },
  Query: {
    noteableThreads: (_: unknown, args: NoteableArgs, ctx: Context) => noteableOf(ctx, args),
    note: (_: unknown, args: { id: number }, ctx: Context) => ctx.services.notes.findReadable(ctx.services, args.id),
  },
  NoteableThreads: {
    discussions: (n: Awaited<ReturnType<typeof noteableOf>>, args: PageArgs, ctx: Context) => ctx.services.notes.discussions(n, args),
    discussion: (n: Awaited<ReturnType<typeof noteableOf>>, args: { id: string }, ctx: Context) => ctx.services.notes.discussion(n, args.id),
    discussionNotes: (n: Awaited<ReturnType<typeof noteableOf>>, args: { id: string }, ctx: Context) => ctx.services.notes.discussionNotes(n, args.id),
    note: (n: Awaited<ReturnType<typeof noteableOf>>, args: { id: number }, ctx: Context) => ctx.services.notes.note(n, args.id),
    notes: (n: Awaited<ReturnType<typeof noteableOf>>, args: PageArgs & { orderBy?: 'created_at' | 'updated_at' | null; sort?: 'ASC' | 'DESC' | null }, ctx: Context) =>
      ctx.services.notes.notes(n, args, args.orderBy ?? 'created_at', args.sort === 'ASC' ? 'asc' : 'desc'),
  },
  Commit: {
    comments: async (c: CommitRow, args: PageArgs, ctx: Context) =>
      ctx.services.notes.comments(await ctx.services.notes.noteable(ctx.services, COMMIT, { id: c.project.id }, c.sha), args),
    discussions: async (c: CommitRow, args: PageArgs, ctx: Context) =>
      ctx.services.notes.discussions(await ctx.services.notes.noteable(ctx.services, COMMIT, { id: c.project.id }, c.sha), args),
  },
  Mutation: {
    // `mergeRequestDiffHeadSha` is read by GitLab's `/merge` quick action alone: the head it merges, if still the diff head.
    createNote: async (_: unknown, args: InternalInput & { noteableId: ParsedGid; body: string; discussionId?: string | null; mergeRequestDiffHeadSha?: string | null }, ctx: Context) => {
      const { notes } = ctx.services;
      const noteable = await notes.noteableByGlobalId(ctx.services, args.noteableId.model, args.noteableId.id, args.noteableId.params.get('project_id'));
      const discussion = args.discussionId as unknown as ParsedGid | null | undefined;
      const creation = discussion
        ? await notes.reply(ctx.services, noteable, discussion.id, { body: args.body })
        : await notes.createComment(ctx.services, noteable, { note: args.body, internal: args.internal, confidential: args.confidential, mergeRequestDiffHeadSha: args.mergeRequestDiffHeadSha });
      return notes.graphqlCreation(creation);
    },
    createDiffNote: async (_: unknown, args: DiffNoteArgs & { position: DiffPositionInput & { oldLine?: number | null; newLine?: number | null } }, ctx: Context) => {
      const { position } = args;
      // Mutations::Notes::Create::DiffNote#ready?: a line is needed, before anything is looked up.
      if (position.oldLine == null && position.newLine == null) throw argumentError('position oldLine or newLine arguments are required');
      return createDiffNote(ctx, args, { position_type: 'text', old_line: position.oldLine ?? null, new_line: position.newLine ?? null });
    },
    createImageDiffNote: async (_: unknown, args: DiffNoteArgs & { position: DiffPositionInput & { width: number; height: number; x: number; y: number } }, ctx: Context) => {
      const { width, height, x, y } = args.position;
      return createDiffNote(ctx, args, { position_type: 'image', width, height, x, y });
    },
    updateNote: async (_: unknown, args: { id: number; body?: string | null; confidential?: boolean | null }, ctx: Context) => {
      const { note, noteable } = await ctx.services.notes.byId(ctx.services, args.id);
      return { note: await ctx.services.notes.update(ctx.services, noteable, note.id, args.body, args.confidential) };
    },
    destroyNote: async (_: unknown, args: { id: number }, ctx: Context) => {
      const { note, noteable } = await ctx.services.notes.byId(ctx.services, args.id);
      await ctx.services.notes.destroy(noteable, note.id);
      return { note: null };
    },
    noteableDiscussionCreate: async (_: unknown, args: NoteableArgs & { body: string; createdAt?: string | null; position?: Record<string, unknown> | null }, ctx: Context) => {
      const { created, commands } = ctx.services.notes.restCreation(await ctx.services.notes.createDiscussion(ctx.services, await noteableOf(ctx, args), args));
      return { discussion: created, commands };
    },
    noteableNoteCreate: async (_: unknown, args: NoteableArgs & InternalInput & { body: string; createdAt?: string | null; mergeRequestDiffHeadSha?: string | null }, ctx: Context) => {
      const { created, commands } = ctx.services.notes.restCreation(
        await ctx.services.notes.createComment(ctx.services, await noteableOf(ctx, args), {
          note: args.body,
          createdAt: args.createdAt,
          internal: args.internal,
          confidential: args.confidential,
          mergeRequestDiffHeadSha: args.mergeRequestDiffHeadSha,
        }),
      );
      return { note: created, commands };
    },
    noteableDiscussionReply: async (_: unknown, args: NoteableArgs & { discussionId: string; body: string; createdAt?: string | null }, ctx: Context) => {
      const { created, commands } = ctx.services.notes.restCreation(await ctx.services.notes.reply(ctx.services, await noteableOf(ctx, args), args.discussionId, args));
      return { note: created, commands };
    },
    noteableNoteUpdate: async (_: unknown, args: NoteableArgs & { noteId: number; body?: string | null; resolved?: boolean | null; confidential?: boolean | null }, ctx: Context) => ({
      note: await ctx.services.notes.updateOrResolve(ctx.services, await noteableOf(ctx, args), args.noteId, args.body, args.resolved, args.confidential),
    }),
    noteableDiscussionResolve: async (_: unknown, args: NoteableArgs & { discussionId: string; resolved: boolean }, ctx: Context) => ({
      discussion: await ctx.services.notes.resolveDiscussion(ctx.services, await noteableOf(ctx, args), args.discussionId, args.resolved),
    }),
    discussionToggleResolve: async (_: unknown, args: { id: ParsedGid; resolve: boolean }, ctx: Context) => {
      const noteable = await ctx.services.notes.noteableOfDiscussion(ctx.services, args.id.id);
      return { discussion: await ctx.services.notes.resolveDiscussion(ctx.services, noteable, args.id.id, args.resolve) };
    },
    noteableNoteDestroy: async (_: unknown, args: NoteableArgs & { noteId: number }, ctx: Context) => ({
      note: await ctx.services.notes.destroy(await noteableOf(ctx, args), args.noteId),
    }),
    commitCommentCreate: async (_: unknown, args: { projectId: string; sha: string; note: string; path?: string | null; line?: number | null; lineType?: string | null }, ctx: Context) => {
      const noteable = await ctx.services.notes.commitForComments(ctx.services, parseRef(args.projectId, 'Project', 'projectId'), args.sha);
      return { note: (await ctx.services.notes.createComment(ctx.services, noteable, args)).created };
    },
  },
  Event: {
    // GitLab's Event#note?: a target of one of Note's classes.
    note: (e: { targetType: string | null; targetId: number | null }, _a: unknown, ctx: Context) =>
      e.targetId !== null && e.targetType !== null && NOTE_CLASSES.has(e.targetType) ? ctx.loaders.notes.byId.load(e.targetId) : null,
  },
  Note: {
    databaseId: (n: NoteRow) => n.id,
    noteType: (n: NoteRow) => n.type,
    body: (n: NoteRow) => n.note,
    bodyHtml: (n: NoteRow, _a: unknown, ctx: Context) => ctx.services.notes.bodyHtml(ctx.services, n),
    attachment: () => null,
    author: (n: NoteRow, _a: unknown, ctx: Context) => user(ctx, n.authorId),
    lastEditedBy: (n: NoteRow, _a: unknown, ctx: Context) => (n.lastEditedAt ? user(ctx, n.updatedById) : null),
    internal: (n: NoteRow) => n.internal,
    confidential: (n: NoteRow) => n.internal,
    imported: () => false,
    importedFrom: () => 'none',
    commandsChanges: (n: CreatedNote) => n.commandsChanges ?? {},
    resolvable: (n: NoteRow) => isResolvable(n),
    ...resolution,
    // REST's resolution keys, shown for resolvable notes only (Entities::Note's `if: resolvable?`).
    resolution: (n: NoteRow) => (isResolvable(n) ? n : null),
    discussion: (n: NoteRow, _a: unknown, ctx: Context) => ctx.services.notes.discussionOf(n),
    project: (n: NoteRow, _a: unknown, ctx: Context) => (n.projectId === null ? null : ctx.services.projects.find({ id: n.projectId })),
    noteableIid: (n: NoteRow, _a: unknown, ctx: Context) => {
      const kind = noteableKind(n.noteableType);
      return kind?.iidOf && n.noteableId !== null ? kind.iidOf({ access: ctx.access, services: ctx.services }, n.noteableId) : null;
    },
    path: (n: NoteRow) => (n.type === 'LegacyDiffNote' ? n.path : null),
    line: (n: NoteRow) => (n.type === 'LegacyDiffNote' ? n.line : null),
    lineType: (n: NoteRow) => (n.type === 'LegacyDiffNote' ? n.lineType : null),
    position: (n: NoteRow) => (n.type === 'DiffNote' && n.position ? diffPosition(n.position as Record<string, unknown>) : null),
    positionHash: (n: NoteRow) => (n.type === 'DiffNote' ? n.position : null),
    url: (n: NoteRow, _a: unknown, ctx: Context) => ctx.services.notes.url(n),
    userPermissions: (n: NoteRow) => n,
  },
  NoteResolution: resolution,
  NotePermissions: {
    adminNote: (n: NoteRow, _a: unknown, ctx: Context) => ctx.services.notes.canAdmin(n),
    readNote: () => true,
    resolveNote: async (n: NoteRow, _a: unknown, ctx: Context) => {
      if (!isResolvable(n)) return false;
      const noteable = await ctx.services.notes.readableNoteableOf(ctx.services, n);
      return !!noteable && ctx.services.notes.mayResolve(noteable, n);
    },
  },
  Discussion: {
    id: (d: DiscussionRow) => d.id,
    databaseId: (d: DiscussionRow) => d.id,
    replyId: (d: DiscussionRow) => d.id,
    individualNote: (d: DiscussionRow) => isIndividual(d.notes[0]),
    createdAt: (d: DiscussionRow) => d.notes[0].createdAt,
    resolvable: (d: DiscussionRow) => d.notes.some(isResolvable),
    // ResolvableDiscussion: resolved when every resolvable note is; when and by whom, its last resolved note's.
    resolved: (d: DiscussionRow) => discussionResolved(d),
    resolvedAt: (d: DiscussionRow) => (discussionResolved(d) ? lastResolved(d)?.resolvedAt ?? null : null),
    resolvedBy: (d: DiscussionRow, _a: unknown, ctx: Context) => (discussionResolved(d) ? user(ctx, lastResolved(d)?.resolvedById ?? null) : null),
    notes: (d: DiscussionRow, args: PageArgs) => listConnection(args, d.notes),
    noteList: (d: DiscussionRow) => d.notes,
  },
};
