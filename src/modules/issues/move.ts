/**
 * Moving and cloning an issue to another project (GitLab's Issues::MoveService and Issues::CloneService on
 * Issuable::Clone::BaseService): a new issue in the target project, its references rewritten to keep pointing where
 * they did (Gitlab::Gfm::ReferenceRewriter, for issue and merge request references), labels and milestone matched by
 * title (Gitlab::Issuable::Clone::AttributesRewriter), then, for a move, its award emoji, notes (Notes::CopyService:
 * threads kept as threads, under new discussion ids, system notes too, each note's award emoji) and resource events
 * (CopyResourceEventsService), its issue links and epic (EE), the original closed and marked `moved_to_id`; for a
 * clone, the original untouched, the clone authored by the caller, notes and events only when asked. The
 * `moved to`/`moved from` (`cloned to`/`cloned from`) system notes on both. One transaction; notes and events are
 * copied in batches.
 */
import { issueRowInclude } from './policy.js';
import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../db/database.js';
import { badRequest, notFound } from '../../errors.js';
import type { LabelsService } from '../labels/service.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { ResourceEventsService } from '../resource_events/service.js';
import { lockForIid } from './issuable.js';
import { ISSUE, issueSubject, type IssueRow } from './service.js';

type Tx = Prisma.TransactionClient;

/** What the issues service does for a move or clone, in its transaction (announcements, the close of a move). */
export interface IssueMoveHooks {
  /** The new issue, announced as a creation (activity event, Issue Hook, subscriptions). */
  created(tx: Tx, project: ProjectRow, issue: IssueRow): Promise<void>;
  /** Closes the moved issue (its state event, activity event and announcement), writing `data` with the close. */
  close(tx: Tx, project: ProjectRow, issue: IssueRow, data: Prisma.IssueUncheckedUpdateInput): Promise<IssueRow>;
  /** After the commit: the todos of the issues as they now are. */
  committed(project: ProjectRow, before: IssueRow | null, after: IssueRow): Promise<void>;
}

type Mode = 'move' | 'clone';

/** How many notes or events one INSERT copies. */
const BATCH = 500;

const ISSUE_REFERENCE = /(^|[^\w/&#!@~%])([#!])(\d+)\b/g;
const CODE = /(```[\s\S]*?```|~~~[\s\S]*?~~~|`[^`\n]*`)/g;

/**
 * How `project` is named from `from` (Project#to_reference_base): nothing from itself, its path from a project of the
 * same namespace, its full path from elsewhere.
 */
export function referenceBase(project: ProjectRow, from: ProjectRow): string {
  if (project.id === from.id) return '';
  return project.namespace.id === from.namespace.id ? project.path : project.fullPath;
}

/**
 * Text written in `source` as it reads from `target` (Gitlab::Gfm::ReferenceRewriter): its local issue (`#12`) and
 * merge request (`!3`) references made cross-project (`group/source#12`), code spans and blocks left as written.
 */
export function rewriteReferences(text: string | null, source: ProjectRow, target: ProjectRow): string | null {
  if (!text || source.id === target.id) return text;
  const base = referenceBase(source, target);
  return text
    .split(CODE)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(ISSUE_REFERENCE, (_m, before: string, sigil: string, n: string) => `${before}${base}${sigil}${n}`)))
    .join('');
}

/** A thread's id: 40 lowercase hex characters. */
const newDiscussionId = () => randomBytes(20).toString('hex');

export class IssueMoves {
  constructor(
    private readonly base: ServiceBase,
    private readonly labels: LabelsService,
    private readonly events: ResourceEventsService,
    private readonly hooks: IssueMoveHooks,
  ) {}

  private get db() {
    return this.base.db;
  }

  /**
   * The project an issue goes to, by ID or full path, as GitLab finds it (`Project.find_by`): whether the caller may
   * put issues there is the service's question (`insufficient permissions`); one that does not exist is `404 Project`.
   */
  async target(ref: { id: number } | { path: string }): Promise<ProjectRow> {
    const { loaders } = this.base;
    const id = 'id' in ref ? ref.id : (await this.db.project.findUnique({ where: { fullPath: ref.path }, select: { id: true } }))?.id;
    const project = id ? await loaders.projects.byId.load(id) : null;
    if (!project || project.pendingDelete) throw notFound('Project');
    return project;
  }

  /** Issues::MoveService#execute. */
  move(project: ProjectRow, issue: IssueRow, target: ProjectRow): Promise<IssueRow> {
    return this.copy('move', project, issue, target, true);
  }

  /** Issues::CloneService#execute (`with_notes`: its notes and resource events too). */
  clone(project: ProjectRow, issue: IssueRow, target: ProjectRow, withNotes: boolean): Promise<IssueRow> {
    return this.copy('clone', project, issue, target, withNotes);
  }

  /** Issue#can_move? (and can_clone?): admin_issue on the issue and on the target project, and not moved already. */
  private async verify(mode: Mode, project: ProjectRow, issue: IssueRow, target: ProjectRow): Promise<void> {
    const { access } = this.base;
    const allowed = !issue.movedToId && (await access.can('admin_issue', issueSubject(project, issue))) && (await access.can('set_issue_metadata', target));
    if (!allowed) throw badRequest(`Cannot ${mode} issue due to insufficient permissions!`);
    if (mode === 'move' && project.id === target.id) throw badRequest('Cannot move issue to project it originates from!');
  }

  private async copy(mode: Mode, project: ProjectRow, issue: IssueRow, target: ProjectRow, withNotes: boolean): Promise<IssueRow> {
    const viewer = this.base.access.requireViewer();
    await this.verify(mode, project, issue, target);
    const [labelIds, milestoneId, sprintId] = await Promise.all([this.matchingLabels(issue, target), this.matchingMilestone(issue, target), this.keptIteration(issue, target)]);
    const moved = mode === 'move';
    const result = await this.db.$transaction(async (tx) => {
      await lockForIid(tx, target.id);
      const { _max } = await tx.issue.aggregate({ where: { projectId: target.id }, _max: { iid: true } });
      const now = new Date();
      const created = await tx.issue.create({
        data: {
          projectId: target.id,
          iid: (_max.iid ?? 0) + 1,
          title: issue.title,
          description: rewriteReferences(issue.description, project, target),
          confidential: issue.confidential,
          dueDate: issue.dueDate,
          weight: issue.weight,
          discussionLocked: issue.discussionLocked,
          timeEstimate: issue.timeEstimate,
          issueType: issue.issueType,
          severity: issue.severity,
          escalationStatus: issue.escalationStatus,
          healthStatus: issue.healthStatus,
          authorId: moved ? issue.authorId : viewer.id,
          milestoneId,
          sprintId,
          createdAt: now,
          updatedAt: now,
          assignees: { create: issue.assignees.map((a) => ({ userId: a.userId })) },
        },
        include: issueRowInclude,
      });
      if (labelIds.length) await tx.labelLink.createMany({ data: labelIds.map((labelId) => ({ labelId, issueId: created.id })) });
      // The kept iteration is the new issue's from its creation (ResourceEvents::ChangeIterationService's `add`).
      if (sprintId !== null) await tx.resourceIterationEvent.create({ data: { issueId: created.id, iterationId: sprintId, action: 'add', userId: viewer.id, createdAt: now } });
      if (moved) await this.copyAwards(tx, issue.id, created.id);
      if (withNotes) {
        await this.copyNotes(tx, issue.id, created.id, project, target);
        await this.copyEvents(tx, issue.id, created.id, target);
      }
      await this.moveRelations(tx, mode, issue.id, created.id);
      await this.hooks.created(tx, target, created);
      const word = moved ? 'moved' : 'cloned';
      const at = new Date();
      await this.events.issuables.note(tx, created, viewer.id, `${word} from ${referenceBase(project, target)}#${issue.iid}`, at);
      await this.events.issuables.note(tx, issue, viewer.id, `${word} to ${referenceBase(target, project)}#${created.iid}`, at);
      const original = moved
        ? issue.state === 'closed'
          ? await tx.issue.update({ where: { id: issue.id }, data: { movedToId: created.id, updatedAt: at }, include: issueRowInclude })
          : await this.hooks.close(tx, project, issue, { movedToId: created.id })
        : issue;
      return { created, original };
    });
    await this.hooks.committed(target, null, result.created);
    if (moved) await this.hooks.committed(project, issue, result.original);
    return result.created;
  }

  /** The target's labels (its own and its groups') titled as the issue's (AttributesRewriter#cloneable_labels). */
  private async matchingLabels(issue: IssueRow, target: ProjectRow): Promise<number[]> {
    const links = await this.db.labelLink.findMany({ where: { issueId: issue.id }, select: { label: { select: { title: true } } } });
    if (!links.length) return [];
    const found = await this.labels.findOrCreateByTitles(target, links.map((l) => l.label.title), false);
    return found.map((l) => l.id);
  }

  /** The issue's iteration when it is one of the target's groups' (an iteration belongs to a group and those below it). */
  private async keptIteration(issue: IssueRow, target: ProjectRow): Promise<number | null> {
    if (issue.sprintId === null) return null;
    const iteration = await this.db.iteration.findUnique({ where: { id: issue.sprintId }, select: { groupId: true } });
    return iteration && target.namespace.traversalIds.includes(iteration.groupId) ? issue.sprintId : null;
  }

  /** The target's milestone (its own or its groups') titled as the issue's (AttributesRewriter#cloneable_milestone). */
  private async matchingMilestone(issue: IssueRow, target: ProjectRow): Promise<number | null> {
    if (!issue.milestoneId) return null;
    const milestone = await this.db.milestone.findUnique({ where: { id: issue.milestoneId }, select: { title: true } });
    if (!milestone) return null;
    return this.milestoneTitled(this.db, milestone.title, target);
  }

  private async milestoneTitled(db: Tx, title: string, target: ProjectRow): Promise<number | null> {
    const groups = target.namespace.kind === 'group' ? target.namespace.traversalIds : [];
    const found = await db.milestone.findFirst({ where: { title, OR: [{ projectId: target.id }, { groupId: { in: groups } }] }, orderBy: { id: 'asc' }, select: { id: true } });
    return found?.id ?? null;
  }

  /** AwardEmojis::CopyService: the issue's awards, by the same users. */
  private async copyAwards(tx: Tx, from: number, to: number): Promise<void> {
    const awards = await tx.awardEmoji.findMany({ where: { issueId: from }, select: { name: true, userId: true, createdAt: true, updatedAt: true } });
    if (awards.length) await tx.awardEmoji.createMany({ data: awards.map((a) => ({ ...a, issueId: to })), skipDuplicates: true });
  }

  /**
   * Notes::CopyService: every note, oldest first, in batches, each thread under a new discussion id, its text's
   * references rewritten, its award emoji with it.
   */
  private async copyNotes(tx: Tx, from: number, to: number, source: ProjectRow, target: ProjectRow): Promise<void> {
    const threads = new Map<string, string>();
    let after: { createdAt: Date; id: number } | null = null;
    for (;;) {
      const cursor: Prisma.NoteWhereInput = after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {};
      const notes = await tx.note.findMany({ where: { noteableType: ISSUE, noteableId: from, ...cursor }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: BATCH });
      if (!notes.length) break;
      after = notes[notes.length - 1];
      const copies = await tx.note.createManyAndReturn({
        data: notes.map((n) => {
          let discussionId = threads.get(n.discussionId);
          if (!discussionId) threads.set(n.discussionId, (discussionId = newDiscussionId()));
          return {
            noteableType: ISSUE,
            noteableId: to,
            projectId: target.id,
            discussionId,
            startsDiscussion: n.startsDiscussion,
            type: n.type,
            note: rewriteReferences(n.note, source, target) ?? '',
            authorId: n.authorId,
            system: n.system,
            internal: n.internal,
            lastEditedAt: n.lastEditedAt,
            updatedById: n.updatedById,
            resolvedAt: n.resolvedAt,
            resolvedById: n.resolvedById,
            createdAt: n.createdAt,
            updatedAt: n.updatedAt,
          };
        }),
        select: { id: true },
      });
      const noteIds = new Map(notes.map((n, i) => [n.id, copies[i].id]));
      const awards = await tx.awardEmoji.findMany({ where: { noteId: { in: notes.map((n) => n.id) } }, select: { name: true, userId: true, noteId: true, createdAt: true, updatedAt: true } });
      if (awards.length) await tx.awardEmoji.createMany({ data: awards.map((a) => ({ ...a, noteId: noteIds.get(a.noteId!)! })), skipDuplicates: true });
      if (notes.length < BATCH) break;
    }
  }

  /**
   * CopyResourceEventsService: the label, state and weight events as they were, and the milestone events whose
   * milestone the target has by title (the others are dropped, as GitLab drops them).
   */
  private async copyEvents(tx: Tx, from: number, to: number, target: ProjectRow): Promise<void> {
    const resource = { resourceType: ISSUE, resourceId: from };
    const [labels, states, weights, milestones] = await Promise.all([
      tx.resourceLabelEvent.findMany({ where: resource, orderBy: { id: 'asc' } }),
      tx.resourceStateEvent.findMany({ where: resource, orderBy: { id: 'asc' } }),
      tx.resourceWeightEvent.findMany({ where: { issueId: from }, orderBy: { id: 'asc' } }),
      tx.resourceMilestoneEvent.findMany({ where: resource, orderBy: { id: 'asc' }, include: { milestone: { select: { title: true } } } }),
    ]);
    const moved = { resourceId: to, projectId: target.id, groupId: null };
    for (let i = 0; i < labels.length; i += BATCH) {
      await tx.resourceLabelEvent.createMany({ data: labels.slice(i, i + BATCH).map(({ id: _id, ...e }) => ({ ...e, ...moved })) });
    }
    for (let i = 0; i < states.length; i += BATCH) {
      await tx.resourceStateEvent.createMany({ data: states.slice(i, i + BATCH).map(({ id: _id, ...e }) => ({ ...e, ...moved })) });
    }
    for (let i = 0; i < weights.length; i += BATCH) {
      await tx.resourceWeightEvent.createMany({ data: weights.slice(i, i + BATCH).map(({ id: _id, ...e }) => ({ ...e, issueId: to })) });
    }
    const titles = new Map<string, number | null>();
    for (const title of new Set(milestones.map((e) => e.milestone.title))) titles.set(title, await this.milestoneTitled(tx, title, target));
    const kept = milestones.flatMap(({ id: _id, milestone, ...e }) => {
      const milestoneId = titles.get(milestone.title);
      return milestoneId ? [{ ...e, milestoneId, resourceId: to, projectId: target.id }] : [];
    });
    for (let i = 0; i < kept.length; i += BATCH) await tx.resourceMilestoneEvent.createMany({ data: kept.slice(i, i + BATCH) });
  }

  /**
   * A move takes the issue's links to other issues (MoveService#rewrite_related_issues) and its epic (EE's
   * rewrite_epic_issue) to the new issue; a clone joins the original's epic too (EE's CloneService).
   */
  private async moveRelations(tx: Tx, mode: Mode, from: number, to: number): Promise<void> {
    const epic = await tx.epicIssue.findUnique({ where: { issueId: from } });
    if (mode === 'clone') {
      if (epic) await tx.epicIssue.create({ data: { epicId: epic.epicId, issueId: to, relativePosition: epic.relativePosition } });
      return;
    }
    if (epic) await tx.epicIssue.update({ where: { id: epic.id }, data: { issueId: to } });
    await tx.issueLink.updateMany({ where: { sourceId: from, targetId: { not: to } }, data: { sourceId: to } });
    await tx.issueLink.updateMany({ where: { targetId: from, sourceId: { not: to } }, data: { targetId: to } });
  }
}
