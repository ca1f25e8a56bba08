/**
 * The noteable kinds the notes engine serves (GitLab's `Noteable` classes and NotesFinder's targets): each kind says
 * how its subject is found, who may read it and its notes, who may comment on it and set a note's creation time,
 * and GitLab's rules for its threads (whether a single comment may be replied to, whether threads resolve).
 * Commits register themselves here (commits.ts); adding issues, epics, snippets or merge requests is one
 * `registerNoteable` call from their module (with `extend enum NoteableKind { ISSUE }` in its SDL and
 * `NoteableKind: { ISSUE: 'Issue' }` in its resolvers), whose REST routes then run the notes operations with
 * `noteableType: ISSUE` and the iid as `key`; its GlobalID (`gid://gitlab/Issue/<id>`) reaches createNote
 * through `ofNote`, and a resolver for `#` (registerReferenceResolver) links `#12` in every note's HTML.
 */
import type { Access } from '../../auth/policy.js';
import type { Prisma } from '../../db/database.js';
import type { Services } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { NumberedReference } from '../../markdown.js';
import type { ProjectRow } from '../projects/service.js';

/** One noteable, found and ready for the notes engine: what its notes are stored under, and what its checks read. */
export interface Noteable {
  /** GitLab's class name, stored in `notes.noteableType` and shown as `noteable_type`: `Commit`, `Issue`, … */
  type: string;
  /** Its project; null for group noteables (epics). */
  project: ProjectRow | null;
  /** Its group, for group noteables; null otherwise. */
  groupId: number | null;
  /** Its row id (`noteable_id`); null for commits, which have no row. */
  id: number | null;
  /** A commit's SHA; null for every other kind. */
  commitId: string | null;
  /** Its iid, for kinds that have one (`noteable_iid`: issues, merge requests). */
  iid: number | null;
  /** Its title, for activity events (`target_title`). */
  title: string | null;
  /** Its author, for kinds whose threads resolve: the noteable's author may resolve them (NotePolicy's is_noteable_author). */
  authorId?: number | null;
}

/** What a kind's checks are asked with: the request's policy and every service of the request. */
export interface NoteableContext {
  access: Access;
  services: Services;
}

export interface NoteableKind {
  /** GitLab's class name (`Commit`). */
  type: string;
  /** Subclasses whose global IDs name it too (`PersonalSnippet`, `ProjectSnippet` for `Snippet`). */
  subclasses?: readonly string[];
  /** The GraphQL enum value naming it (`COMMIT`), which REST operations pass. */
  enumValue: string;
  /** The resource of its 404 (`404 Commit Not Found`). */
  resource: string;
  /** GitLab's `Noteable.replyable_types`: a single comment on it may be replied to, which turns it into a thread. */
  replyable: boolean;
  /** GitLab's `Noteable.resolvable_types`: its thread notes can be resolved. */
  resolvable: boolean;
  /**
   * GitLab's Note#noteable_can_have_confidential_note?: its notes may be internal (16.3: issues, and epics in EE;
   * merge requests from 16.9). Others refuse an internal note: `Confidential can not be set for this resource`.
   */
  internalNotes?: boolean;
  /**
   * GitLab's DiffNote.noteable_types: its threads may start on a line or image of a diff (`position`, a DiffNote):
   * commits and merge requests. Others take no position (the Discussions API declares none for them).
   */
  diffNotes?: boolean;
  /** The noteable a project's key names (a commit's SHA or ref, an issue's iid), or null; no ability asked. */
  find(ctx: NoteableContext, project: ProjectRow, key: string): Promise<Noteable | null>;
  /** For group noteables (epics): the noteable a group's key names, or null; no ability asked beyond the group's. */
  findInGroup?(ctx: NoteableContext, group: NamespaceRow, key: string): Promise<Noteable | null>;
  /**
   * The noteable of its own GraphQL object's row (an `Issue`'s IssueRow), for the object's `notes` and `discussions`:
   * no second read of the row; its project through the loaders. No ability asked.
   */
  fromRow?(ctx: NoteableContext, row: unknown): Promise<Noteable | null>;
  /** The noteable a stored note is on, or null when it is gone; no ability asked beyond finding its project. */
  ofNote(ctx: NoteableContext, note: { projectId: number | null; groupId: number | null; noteableId: number | null; commitId: string | null }): Promise<Noteable | null>;
  /** Of these noteable ids, those `canRead` allows, in one query (kinds with rows; others are asked one by one). */
  readableIds?(ctx: NoteableContext, ids: readonly number[]): Promise<Set<number>>;
  /** GitLab's `read_<noteable>` and `read_note` on it: the viewer may read it and its notes. */
  canRead(ctx: NoteableContext, noteable: Noteable): Promise<boolean>;
  /** GitLab's `create_note` on it. */
  canCreateNote(ctx: NoteableContext, noteable: Noteable): Promise<boolean>;
  /** GitLab's `set_note_created_at` on it: administrators and the project's (or group's) Owners. */
  canSetCreatedAt(ctx: NoteableContext, noteable: Noteable): Promise<boolean>;
  /**
   * What a note hook shows of the noteable (Gitlab::DataBuilder::Note): the key it is under (`issue`, `snippet`) with
   * its hook attributes, and whether it is confidential (its notes then go to `confidential_note_hooks`). Kinds
   * without one show nothing beyond the note (commits embed their commit themselves).
   */
  hookAttrs?(ctx: NoteableContext, noteable: Noteable, externalUrl: string): Promise<{ key: string; attrs: unknown; confidential: boolean } | null>;
  /**
   * Told, in the transaction that changed it, that the resolution of its threads changed (a merge request announces
   * its merge status, which `only_allow_merge_if_all_discussions_are_resolved` makes depend on them).
   */
  resolutionChanged?(ctx: NoteableContext, noteable: Noteable, tx: Prisma.TransactionClient): Promise<void>;
  /** Told, in the transaction that wrote it, that the viewer's note started a discussion on it (Notes::CreateService#set_reviewed). */
  discussionStarted?(ctx: NoteableContext, noteable: Noteable, tx: Prisma.TransactionClient): Promise<void>;
  /** A review of it was published (the viewer's draft notes, DraftNotes::PublishService#set_reviewed). */
  reviewPublished?(ctx: NoteableContext, noteable: Noteable, tx: Prisma.TransactionClient): Promise<void>;
  /** The iid of the noteable a stored note names (a note's `noteable_iid`), for kinds that have iids; batched by the kind. */
  iidOf?(ctx: NoteableContext, noteableId: number): Promise<number | null>;
}

const kinds = new Map<string, NoteableKind>();

/** Adds a kind; each type once. */
export function registerNoteable(kind: NoteableKind): void {
  if (kinds.has(kind.type)) throw new Error(`noteable ${kind.type} is registered twice`);
  kinds.set(kind.type, kind);
}

/** The kind of a stored type, one of its subclasses or its GraphQL enum value; undefined for none registered. */
export function noteableKind(typeOrEnum: string): NoteableKind | undefined {
  return kinds.get(typeOrEnum) ?? [...kinds.values()].find((k) => k.enumValue === typeOrEnum || k.subclasses?.includes(typeOrEnum));
}

/**
 * GitLab's reference filters beyond users (`#12` issues, `!3` merge requests, `&4` epics): a kind that has
 * references registers a resolver for its prefix, which the Markdown renderer asks for the references it meets.
 * A number the viewer may not read stays plain text, as one naming nothing does.
 */
export interface ReferenceResolver {
  /** The character that starts a reference: `#`, `!`, `&`. */
  prefix: string;
  /** For each number referenced in a project, its link and title when the viewer may see it. */
  resolve(ctx: NoteableContext, project: ProjectRow | null, numbers: number[], externalUrl: string): Promise<Map<number, NumberedReference>>;
}

const referenceResolvers = new Map<string, ReferenceResolver>();

export function registerReferenceResolver(resolver: ReferenceResolver): void {
  if (referenceResolvers.has(resolver.prefix)) throw new Error(`references starting ${resolver.prefix} are registered twice`);
  referenceResolvers.set(resolver.prefix, resolver);
}

/** How many distinct numbers of one prefix a text may have resolved: the rest stay text, so a text costs a bounded lookup. */
const MAX_REFERENCES = 100;

/**
 * References by iid within the text's project (`#12` issues, `!3` merge requests), linked to their pages as GitLab's
 * IssueReferenceFilter and MergeRequestReferenceFilter link them; `readable` answers, in one lookup, those of the
 * iids the viewer may read.
 */
export function registerIidReferences(options: {
  prefix: string;
  referenceType: string;
  route: string;
  readable: (ctx: NoteableContext, project: ProjectRow, iids: number[]) => Promise<{ iid: number; title: string }[]>;
}): void {
  registerReferenceResolver({
    prefix: options.prefix,
    async resolve(ctx, project, numbers, externalUrl) {
      const found = new Map<number, NumberedReference>();
      if (!project) return found;
      for (const row of await options.readable(ctx, project, numbers.slice(0, MAX_REFERENCES))) {
        found.set(row.iid, { url: `${externalUrl}/${project.fullPath}/-/${options.route}/${row.iid}`, title: row.title, referenceType: options.referenceType });
      }
      return found;
    },
  });
}

export function referenceResolversInUse(): ReferenceResolver[] {
  return [...referenceResolvers.values()];
}
