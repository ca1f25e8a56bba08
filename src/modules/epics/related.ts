/**
 * Related epics (GitLab's Epic::RelatedEpicLink, `ee/lib/api/related_epic_links.rb`): two-way relations between
 * epics, `relates_to` or `blocks` (`is_blocked_by` stored as `blocks` the other way round), with
 * Epics::RelatedEpicLinks::CreateService and DestroyService's rules, a system note on each epic, and the blocking
 * counts GraphQL's Epic shows.
 */
import DataLoader from 'dataloader';
import type { Prisma } from '../../db/database.js';
import { conflict, forbidden, notFoundAs, recordNotFound, unprocessable } from '../../errors.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { NotesService } from '../notes/service.js';
import type { LinkType } from '../issue_links/service.js';
import { toSentence } from '../resource_events/issuables.js';
import { EPIC, type EpicRow, type EpicsService } from './service.js';

export type RelatedEpicLinkRow = Prisma.RelatedEpicLinkGetPayload<object>;

/** IssuableLink::MAX_LINKS_COUNT: links one epic may have. */
export const MAX_EPIC_LINKS = 100;

/** An epic related to another, as seen from that other one (Entities::RelatedEpic): the epic, the link, its type from that side. */
export interface RelatedEpic {
  epic: EpicRow;
  link: RelatedEpicLinkRow;
  linkType: LinkType;
}

/** A link with both its epics (Entities::RelatedEpicLink). */
export interface RelatedEpicLinkView {
  link: RelatedEpicLinkRow;
  source: EpicRow;
  target: EpicRow;
}

const inverse = (type: string): LinkType => (type === 'blocks' ? 'is_blocked_by' : 'relates_to');

export class RelatedEpics {
  constructor(
    private readonly base: ServiceBase,
    private readonly epics: EpicsService,
    private readonly notes: NotesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  private relatedLoader?: DataLoader<number, RelatedEpic[]>;

  /**
   * Epic#related_epics: the epics linked to this one that the viewer may read, by link id, each with its link. Batched
   * per request, so a list of epics reads them in two queries.
   */
  related(epic: EpicRow): Promise<RelatedEpic[]> {
    this.relatedLoader ??= new DataLoader(async (ids) => {
      const readable = await this.base.access.where('read_epic');
      const links = await this.db.relatedEpicLink.findMany({
        where: { OR: [{ sourceId: { in: [...ids] }, target: { is: readable } }, { targetId: { in: [...ids] }, source: { is: readable } }] },
        orderBy: { id: 'asc' },
        include: { source: true, target: true },
      });
      const byEpic = new Map(ids.map((id) => [id, [] as RelatedEpic[]]));
      for (const { source, target, ...link } of links) {
        // A link between two epics of the batch is listed on both sides.
        byEpic.get(link.sourceId)?.push({ epic: target, link, linkType: link.linkType as LinkType });
        byEpic.get(link.targetId)?.push({ epic: source, link, linkType: inverse(link.linkType) });
      }
      return ids.map((id) => byEpic.get(id)!.slice(0, MAX_EPIC_LINKS));
    });
    return this.relatedLoader.load(epic.id);
  }

  private blockingLoader?: DataLoader<number, { blockedBy: EpicRow[]; blocking: number }>;

  /** The open epics blocking this one that the viewer reads, and how many epics it blocks (GraphQL's blocked* fields). */
  blocking(epic: EpicRow): Promise<{ blockedBy: EpicRow[]; blocking: number }> {
    this.blockingLoader ??= new DataLoader(async (ids) => {
      const readable = await this.base.access.where('read_epic');
      const [blockers, counts] = await Promise.all([
        this.db.relatedEpicLink.findMany({
          where: { targetId: { in: [...ids] }, linkType: 'blocks', source: { is: { AND: [readable, { state: 'opened' }] } } },
          orderBy: { id: 'asc' },
          include: { source: true },
        }),
        this.db.relatedEpicLink.groupBy({ by: ['sourceId'], where: { sourceId: { in: [...ids] }, linkType: 'blocks' }, _count: { _all: true } }),
      ]);
      const blockedBy = new Map(ids.map((id) => [id, [] as EpicRow[]]));
      for (const link of blockers) blockedBy.get(link.targetId)!.push(link.source);
      const blocking = new Map(counts.map((c) => [c.sourceId, c._count._all]));
      return ids.map((id) => ({ blockedBy: blockedBy.get(id)!.slice(0, MAX_EPIC_LINKS), blocking: blocking.get(id) ?? 0 }));
    });
    return this.blockingLoader.load(epic.id);
  }

  /** `GET …/related_epics`: the epic, when the viewer reads it (403 otherwise, as `authorize_can_read!` answers). */
  async list(group: NamespaceRow, iid: number): Promise<RelatedEpic[]> {
    return this.related(await this.epics.get(group, iid));
  }

  /**
   * find_permissioned_epic!: the group's epic by iid (`404 Not found` when it has none), then 403 unless the viewer
   * has the ability on it.
   */
  private async permissioned(group: NamespaceRow, iid: number, ability: 'admin_epic_relation' | 'admin_epic'): Promise<EpicRow> {
    this.epics.requireAvailable();
    const epic = await this.db.epic.findUnique({ where: { groupId_iid: { groupId: group.id, iid } } });
    if (!epic) throw recordNotFound();
    // One the viewer may not read is refused like one they may not relate, as `authorize!` refuses both.
    if (!(await this.base.access.can(ability, this.epics.subjectOf(group, epic)))) throw forbidden();
    return epic;
  }

  /** Epic#to_reference(from): `&iid` in `from`'s group, with the group's full path elsewhere. */
  private async reference(epic: EpicRow, from: EpicRow): Promise<string> {
    if (epic.groupId === from.groupId) return `&${epic.iid}`;
    const group = await this.base.loaders.namespaces.byId.load(epic.groupId);
    return `${group?.fullPath ?? ''}&${epic.iid}`;
  }

  /** SystemNoteService#relate_issuable and unrelate_issuable on `epic`, naming `other`. */
  private async note(tx: Prisma.TransactionClient, epic: EpicRow, other: EpicRow, text: string, userId: number, at: Date): Promise<void> {
    await this.notes.createSystemNote(tx, { type: EPIC, id: epic.id, projectId: null, groupId: epic.groupId }, userId, `${text} ${await this.reference(other, epic)}`, at);
  }

  /**
   * `POST …/related_epics` (Epics::RelatedEpicLinks::CreateService with one target): the source needs the relation
   * ability (Guests and above), the target `admin_epic`; 409 when they are already related either way, 422 with the
   * link's validation errors. The link and a system note on each epic.
   */
  async create(group: NamespaceRow, iid: number, targetGroupRef: Ref, targetIid: number, linkType: LinkType): Promise<RelatedEpicLinkView> {
    const viewer = this.base.access.requireViewer();
    const epic = await this.permissioned(group, iid, 'admin_epic_relation');
    const targetGroup = await this.epics.group(targetGroupRef);
    const referenced = await this.permissioned(targetGroup, targetIid, 'admin_epic');
    const existing = await this.db.relatedEpicLink.findFirst({
      where: { OR: [{ sourceId: epic.id, targetId: referenced.id }, { sourceId: referenced.id, targetId: epic.id }] },
      select: { id: true },
    });
    if (existing) throw conflict('Epic(s) already assigned');
    const [source, target] = linkType === 'is_blocked_by' ? [referenced, epic] : [epic, referenced];
    const stored = linkType === 'relates_to' ? 'relates_to' : 'blocks';
    const errors = await this.linkErrors(source, target);
    if (errors.length) throw unprocessable(`${await this.reference(referenced, epic)} cannot be added: ${toSentence(errors)}`);
    const link = await this.db.$transaction(async (tx) => {
      const now = new Date();
      const created = await tx.relatedEpicLink.create({ data: { sourceId: source.id, targetId: target.id, linkType: stored, createdAt: now, updatedAt: now } });
      const [sourceText, targetText] = stored === 'blocks' ? ['marked this epic as blocking', 'marked this epic as blocked by'] : ['marked this epic as related to', 'marked this epic as related to'];
      await this.note(tx, source, target, sourceText, viewer.id, now);
      await this.note(tx, target, source, targetText, viewer.id, now);
      return created;
    });
    return { link, source, target };
  }

  /** IssuableLink's validations beyond uniqueness, in their words: itself, and the number of links on either side. */
  private async linkErrors(source: EpicRow, target: EpicRow): Promise<string[]> {
    if (source.id === target.id) return ['cannot be related to itself'];
    const errors: string[] = [];
    for (const epic of [source, target]) {
      const count = await this.db.relatedEpicLink.count({ where: { OR: [{ sourceId: epic.id }, { targetId: epic.id }] } });
      if (count >= MAX_EPIC_LINKS) errors.push(`This epic would exceed the maximum number of linked epics (${MAX_EPIC_LINKS}).`);
    }
    return errors;
  }

  /**
   * `DELETE …/related_epics/:related_epic_link_id` (Epics::RelatedEpicLinks::DestroyService): one of the epic's links
   * (`404 Not found` otherwise), when the viewer may relate both of its epics (`404 No Related Epic Link found`); a
   * system note on each epic.
   */
  async destroy(group: NamespaceRow, iid: number, linkId: number): Promise<RelatedEpicLinkView> {
    const viewer = this.base.access.requireViewer();
    const epic = await this.permissioned(group, iid, 'admin_epic_relation');
    const found = await this.db.relatedEpicLink.findFirst({ where: { id: linkId, OR: [{ sourceId: epic.id }, { targetId: epic.id }] }, include: { source: true, target: true } });
    if (!found) throw recordNotFound();
    const { source, target, ...link } = found;
    for (const side of [source, target]) {
      if (!(await this.base.access.can('admin_epic_relation', await this.epics.subject(side)))) throw notFoundAs('No Related Epic Link found');
    }
    await this.db.$transaction(async (tx) => {
      const now = new Date();
      await tx.relatedEpicLink.delete({ where: { id: link.id } });
      await this.note(tx, source, target, 'removed the relation with', viewer.id, now);
      await this.note(tx, target, source, 'removed the relation with', viewer.id, now);
    });
    return { link, source, target };
  }
}
