/**
 * Owns award emoji (GitLab's AwardEmoji): emoji reactions by users on issues, merge requests, snippets, epics and
 * their notes, found through the notes engine's noteable kinds (whose read and comment checks are GitLab's
 * `read_<awardable>` and `award_emoji`), with AwardEmojis::AddService's and DestroyService's rules.
 */
import type { Prisma } from '../../db/database.js';
import { invalidArgument, notFound, recordNotFound, unauthenticated } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase, Services } from '../module.js';
import { noteableKind, type Noteable, type NoteableContext, type NoteableKind } from '../notes/noteables.js';
import type { NoteRow } from '../notes/service.js';
import { toSentence } from '../resource_events/issuables.js';
import { isEmojiName, normalizeName } from './names.js';

export type AwardEmojiRow = Prisma.AwardEmojiGetPayload<object>;

/** GitLab's awardable classes, and the column an award names each by. */
export const AWARDABLE_COLUMNS = {
  Issue: 'issueId',
  MergeRequest: 'mergeRequestId',
  Snippet: 'snippetId',
  Epic: 'epicId',
  Note: 'noteId',
} as const;

export type AwardableType = keyof typeof AWARDABLE_COLUMNS;
export type AwardableColumn = (typeof AWARDABLE_COLUMNS)[AwardableType];

/** Note and its subclasses, as global IDs name them. */
const NOTE_CLASSES = ['Note', 'DiscussionNote', 'DiffNote', 'LegacyDiffNote'];

/** Something awarded: a noteable, or a note on one. */
export interface Awardable {
  type: AwardableType;
  id: number;
  /** The noteable, or the note's noteable: what reading and awarding are asked of. */
  noteable: Noteable;
  kind: NoteableKind;
  note: NoteRow | null;
}

/** Where REST names an awardable: a project's (or, for epics, a group's) noteable by its key, perhaps one of its notes. */
export interface AwardablePath {
  parent: Ref;
  onGroup: boolean;
  /** The noteable kind's GraphQL enum value (`ISSUE`). */
  kindName: string;
  key: string;
  noteId: number | null;
}

/** The columns an award row names its awardable by, as the awardable's type and id. */
export function awardableOf(award: AwardEmojiRow): { type: AwardableType; id: number } {
  for (const [type, column] of Object.entries(AWARDABLE_COLUMNS) as [AwardableType, AwardableColumn][]) {
    const id = award[column];
    if (id !== null) return { type, id };
  }
  throw new Error(`award ${award.id} names no awardable`);
}

/** AwardEmoji's validations, in Rails' full messages. */
function nameErrors(name: string): string[] {
  if (!name.trim()) return ["Name can't be blank", 'Name is not a valid emoji name'];
  return isEmojiName(name) ? [] : ['Name is not a valid emoji name'];
}

export class AwardEmojiService {
  constructor(private readonly base: ServiceBase) {}

  private get db() {
    return this.base.db;
  }

  private ctx(services: Services): NoteableContext {
    return { access: this.base.access, services };
  }

  private awardableKind(name: string): NoteableKind {
    const kind = noteableKind(name);
    if (!kind || !(kind.type in AWARDABLE_COLUMNS)) throw invalidArgument('awardableType');
    return kind;
  }

  /**
   * API::Helpers::AwardEmoji#awardable with the API's read check: the parent (`404 Project Not Found`), the noteable
   * (`404 Not found`), the note (`404 Not found`), then `read_<awardable>` (`404 Award Emoji Not Found`).
   */
  async find(services: Services, path: AwardablePath): Promise<Awardable> {
    const kind = this.awardableKind(path.kindName);
    const ctx = this.ctx(services);
    const noteable = path.onGroup
      ? await kind.findInGroup?.(ctx, await services.groups.get(path.parent), path.key)
      : await kind.find(ctx, await services.projects.get(path.parent), path.key);
    if (!noteable || noteable.id === null) throw recordNotFound();
    const note = path.noteId === null ? null : await services.notes.note(noteable, path.noteId);
    if (!(await kind.canRead(ctx, noteable))) throw notFound('Award Emoji');
    return { type: note ? 'Note' : (kind.type as AwardableType), id: note ? note.id : noteable.id, noteable, kind, note };
  }

  /** The awardable a global ID names (GraphQL's `awardableId`), read by the viewer; `404 Awardable Not Found` otherwise. */
  async byGlobalId(services: Services, type: string, id: number): Promise<Awardable> {
    const ctx = this.ctx(services);
    if (NOTE_CLASSES.includes(type)) {
      const { note, noteable } = await services.notes.byId(services, id);
      const kind = this.awardableKind(noteable.type);
      return { type: 'Note', id: note.id, noteable, kind, note };
    }
    const kind = noteableKind(type);
    if (!kind || !(kind.type in AWARDABLE_COLUMNS)) throw notFound('Awardable');
    const noteable = await kind.ofNote(ctx, { projectId: null, groupId: null, noteableId: id, commitId: null }).catch(() => null);
    if (!noteable || noteable.id === null || !(await kind.canRead(ctx, noteable))) throw notFound('Awardable');
    return { type: kind.type as AwardableType, id: noteable.id, noteable, kind, note: null };
  }

  private where(a: Pick<Awardable, 'type' | 'id'>): Prisma.AwardEmojiWhereInput {
    return { [AWARDABLE_COLUMNS[a.type]]: a.id };
  }

  /** `awardable.award_emoji`, oldest first. */
  list(a: Awardable, page: PageArgs) {
    const where = this.where(a);
    return connection(
      page,
      ({ skip, take }) => this.db.awardEmoji.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => this.db.awardEmoji.count({ where }),
    );
  }

  /** `awardable.award_emoji.find(id)`: `404 Not found` otherwise. */
  async get(a: Awardable, awardId: number): Promise<AwardEmojiRow> {
    const award = await this.db.awardEmoji.findFirst({ where: { AND: [this.where(a), { id: awardId }] } });
    if (!award) throw recordNotFound();
    return award;
  }

  /** Awardable#user_can_award?: `award_emoji` on it (for a note, on its noteable), as commenting is decided. */
  private async authorizeAward(services: Services, a: Awardable): Promise<number> {
    const viewer = this.base.viewer;
    if (!viewer || !(await a.kind.canCreateNote(this.ctx(services), a.noteable))) throw notFound('Award Emoji');
    return viewer.id;
  }

  /**
   * AwardEmojis::AddService: the award, or the reasons it was refused (a system note cannot be awarded; the name must
   * be an emoji's, and the user's first of that name on the awardable). Names are normalized (`+1` is `thumbsup`).
   */
  async add(services: Services, a: Awardable, rawName: string): Promise<{ award: AwardEmojiRow } | { errors: string[] }> {
    const userId = await this.authorizeAward(services, a);
    if (a.note?.system) return { errors: ['Awardable cannot be awarded emoji'] };
    const name = normalizeName(rawName);
    const errors = nameErrors(name);
    if (errors.length) return { errors };
    const taken = await this.db.awardEmoji.findFirst({ where: { AND: [this.where(a), { userId, name }] }, select: { id: true } });
    if (taken) return { errors: ['Name has already been taken'] };
    const now = new Date();
    const award = await this.db.awardEmoji.create({ data: { name, userId, [AWARDABLE_COLUMNS[a.type]]: a.id, createdAt: now, updatedAt: now } });
    return { award };
  }

  /** The REST answer to a refused award: `404 Award Emoji <reasons> Not Found`, as lib/api/award_emoji.rb words it. */
  async addOrRefuse(services: Services, a: Awardable, name: string): Promise<AwardEmojiRow> {
    const result = await this.add(services, a, name);
    if ('errors' in result) throw notFound(`Award Emoji ${toSentence(result.errors)}`);
    return result.award;
  }

  /** `DELETE …/award_emoji/:award_id`: only its user or an administrator (`401 Unauthorized` for others). */
  async remove(a: Awardable, awardId: number): Promise<AwardEmojiRow> {
    const award = await this.get(a, awardId);
    // GitLab's `unauthorized!`: 401, whoever asks.
    if (!(await this.base.access.can('destroy_award_emoji', award))) throw unauthenticated();
    await this.db.awardEmoji.delete({ where: { id: award.id } });
    return award;
  }

  /** The viewer's award of a name (normalized) on the awardable, if any. */
  private mine(a: Awardable, userId: number, name: string): Promise<AwardEmojiRow | null> {
    return this.db.awardEmoji.findFirst({ where: { AND: [this.where(a), { userId, name: normalizeName(name) }] } });
  }

  /** AwardEmojis::DestroyService (GraphQL's awardEmojiRemove): the viewer's award of that name, or why there is none. */
  async removeByName(services: Services, a: Awardable, name: string): Promise<{ award: AwardEmojiRow } | { errors: string[] }> {
    const userId = await this.authorizeAward(services, a);
    const award = await this.mine(a, userId, name);
    if (!award) return { errors: [`User has not awarded emoji of type ${normalizeName(name)} on the awardable`] };
    await this.db.awardEmoji.delete({ where: { id: award.id } });
    return { award };
  }

  /** AwardEmojis::ToggleService (GraphQL's awardEmojiToggle): removes the viewer's award of that name, or adds it. */
  async toggle(services: Services, a: Awardable, name: string): Promise<{ award: AwardEmojiRow | null; toggledOn: boolean; errors: string[] }> {
    const userId = await this.authorizeAward(services, a);
    const existing = await this.mine(a, userId, name);
    if (existing) {
      await this.db.awardEmoji.delete({ where: { id: existing.id } });
      return { award: null, toggledOn: false, errors: [] };
    }
    const added = await this.add(services, a, name);
    return 'errors' in added ? { award: null, toggledOn: false, errors: added.errors } : { award: added.award, toggledOn: true, errors: [] };
  }

  /** Upvotes and downvotes of an awardable (`thumbsup` and `thumbsdown` awards), batched per request. */
  votes(type: AwardableType, id: number): Promise<{ up: number; down: number }> {
    return this.base.loaders.award_emoji.votes(AWARDABLE_COLUMNS[type]).load(id);
  }

  /** The awards on an awardable its parent already showed, oldest first, batched per request. */
  of(type: AwardableType, id: number): Promise<AwardEmojiRow[]> {
    return this.base.loaders.award_emoji.byAwardable(AWARDABLE_COLUMNS[type]).load(id);
  }
}
