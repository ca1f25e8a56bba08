/**
 * Owns issue links (GitLab's IssueLink): two-way relations between issues, `relates_to` or `blocks` (`is_blocked_by`
 * stored as `blocks` the other way round), with GitLab's IssueLinks::CreateService and DestroyService rules, their
 * system notes on both issues, and the counts of blocking links an issue shows.
 */
import { issueRowInclude } from '../issues/policy.js';
import DataLoader from 'dataloader';
import type { Prisma } from '../../db/database.js';
import { conflict, notFoundAs, recordNotFound, refused, unprocessable } from '../../errors.js';
import type { Ref } from '../../graphql/ids.js';
import type { IssueRow, IssuesService } from '../issues/service.js';
import type { ServiceBase } from '../module.js';
import type { NotesService } from '../notes/service.js';
import { toSentence } from '../resource_events/issuables.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';

export type IssueLinkRow = Prisma.IssueLinkGetPayload<object>;

/** GitLab's IssuableLink::MAX_LINKS_COUNT: links one issue may have. */
export const MAX_LINKS = 100;

export type LinkType = 'relates_to' | 'blocks' | 'is_blocked_by';

/** A linked issue as seen from another (Entities::RelatedIssue): the issue, the link, and the link's type from that side. */
export interface RelatedIssue {
  issue: IssueRow;
  link: IssueLinkRow;
  /** Issue#issue_link_type: the stored type when the viewed issue is the link's source, its inverse otherwise. */
  linkType: LinkType;
}

/** A link with both its issues (Entities::IssueLink). */
export interface IssueLinkView {
  link: IssueLinkRow;
  source: IssueRow;
  target: IssueRow;
}


/** Issue#to_reference(from): `#12` in its own project, `project#12` in its namespace, `group/project#12` elsewhere. */
export function issueReference(issue: IssueRow, of: ProjectRow, from: ProjectRow): string {
  if (of.id === from.id) return `#${issue.iid}`;
  if (of.namespaceId === from.namespaceId) return `${of.path}#${issue.iid}`;
  return `${of.fullPath}#${issue.iid}`;
}

const inverse = (type: string): LinkType => (type === 'blocks' ? 'is_blocked_by' : 'relates_to');

export class IssueLinksService {
  constructor(
    private readonly base: ServiceBase,
    private readonly issues: IssuesService,
    private readonly projects: ProjectsService,
    private readonly notes: NotesService,
  ) {}

  private get db() {
    return this.base.db;
  }

  /** GitLab's find_project_issue: the project (`404 Project Not Found` when hidden), then its issue the viewer reads (`404 Not found`). */
  private async findIssue(project: ProjectRow, iid: number): Promise<IssueRow> {
    const issue = await this.issues.find(project, iid);
    if (!issue) throw recordNotFound();
    return issue;
  }

  private async readableIssues(): Promise<Prisma.IssueWhereInput> {
    return { AND: [await this.base.access.where('read_issue'), { project: { pendingDelete: false } }] };
  }

  private relatedLoader?: DataLoader<number, RelatedIssue[]>;

  /**
   * Issue#related_issues: the issues linked to this one that the viewer may read, oldest link first, each with its
   * link (at most MAX_LINKS exist). Batched per request: a GraphQL list of issues reads them in two queries.
   */
  related(issue: IssueRow): Promise<RelatedIssue[]> {
    this.relatedLoader ??= new DataLoader(async (ids) => {
      const readable = await this.readableIssues();
      const links = await this.db.issueLink.findMany({
        where: { OR: [{ sourceId: { in: [...ids] }, target: { is: readable } }, { targetId: { in: [...ids] }, source: { is: readable } }] },
        orderBy: { id: 'asc' },
      });
      const others = new Set(links.flatMap((l) => [l.sourceId, l.targetId]));
      const rows = await this.db.issue.findMany({ where: { id: { in: [...others] } }, include: issueRowInclude });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const byIssue = new Map(ids.map((id) => [id, [] as RelatedIssue[]]));
      for (const link of links) {
        // A link between two issues of the batch is listed on both sides.
        for (const [own, other, linkType] of [
          [link.sourceId, link.targetId, link.linkType as LinkType],
          [link.targetId, link.sourceId, inverse(link.linkType)],
        ] as const) {
          const issue = byId.get(other);
          if (issue) byIssue.get(own)?.push({ issue, link, linkType });
        }
      }
      return ids.map((id) => byIssue.get(id)!.slice(0, MAX_LINKS));
    });
    return this.relatedLoader.load(issue.id);
  }

  /** `GET …/issues/:issue_iid/links`: the related issues of a project's issue the viewer reads (`404 Not found` otherwise). */
  async listed(project: ProjectRow, iid: number): Promise<RelatedIssue[]> {
    return this.related(await this.findIssue(project, iid));
  }

  private blockedByLoader?: DataLoader<number, IssueRow[]>;

  /** The open issues blocking an issue that the viewer may read (GraphQL's `blocked`, `blockedByIssues`): batched per request. */
  blockedBy(issue: IssueRow): Promise<IssueRow[]> {
    this.blockedByLoader ??= new DataLoader(async (ids) => {
      const readable = await this.readableIssues();
      const links = await this.db.issueLink.findMany({
        where: { targetId: { in: [...ids] }, linkType: 'blocks', source: { is: { AND: [readable, { state: 'opened' }] } } },
        orderBy: { id: 'asc' },
        include: { source: { include: issueRowInclude } },
      });
      const byIssue = new Map(ids.map((id) => [id, [] as IssueRow[]]));
      for (const link of links) byIssue.get(link.targetId)!.push(link.source);
      return ids.map((id) => byIssue.get(id)!.slice(0, MAX_LINKS));
    });
    return this.blockedByLoader.load(issue.id);
  }

  /** One of the issue's links (`GET …/links/:issue_link_id`); its target must be readable too. */
  async get(project: ProjectRow, iid: number, linkId: number): Promise<IssueLinkView> {
    const issue = await this.findIssue(project, iid);
    return this.view(await this.linkOf(issue, linkId));
  }

  /** IssueLink.for_source_or_target(issue).find(id): `404 Not found` otherwise. */
  private async linkOf(issue: IssueRow, linkId: number): Promise<IssueLinkRow> {
    const link = await this.db.issueLink.findFirst({ where: { id: linkId, OR: [{ sourceId: issue.id }, { targetId: issue.id }] } });
    if (!link) throw recordNotFound();
    return link;
  }

  /** The link with both issues, as the API checks them: the target found through find_project_issue (404s when hidden). */
  private async view(link: IssueLinkRow): Promise<IssueLinkView> {
    const [source, target] = await Promise.all([this.issueById(link.sourceId), this.issueById(link.targetId)]);
    const targetProject = await this.projects.get({ id: target.projectId });
    await this.findIssue(targetProject, target.iid);
    return { link, source, target };
  }

  private issueById(id: number): Promise<IssueRow> {
    return this.db.issue.findUniqueOrThrow({ where: { id }, include: issueRowInclude });
  }

  private async canLink(issue: IssueRow): Promise<boolean> {
    return this.base.access.can('admin_issue_link', await this.issues.subject(issue));
  }

  /**
   * IssueLinks::CreateService with one target: 409 when the issues are already related (either way), 403 when the
   * viewer may not relate both, 422 with the link's validation errors; the link and a system note on each issue.
   */
  async create(project: ProjectRow, iid: number, targetProjectRef: Ref, targetIid: number, linkType: LinkType): Promise<IssueLinkView> {
    const viewer = this.base.access.requireViewer();
    const issue = await this.findIssue(project, iid);
    const targetProject = await this.projects.get(targetProjectRef);
    const referenced = await this.findIssue(targetProject, targetIid);
    const existing = await this.db.issueLink.findFirst({
      where: { OR: [{ sourceId: issue.id, targetId: referenced.id }, { sourceId: referenced.id, targetId: issue.id }] },
      select: { id: true },
    });
    if (existing) throw conflict('Issue(s) already assigned');
    if (!(await this.canLink(referenced)) || !(await this.canLink(issue))) throw refused("Couldn't link issues. You must have at least the Guest role in both projects.");
    // `is_blocked_by` is a `blocks` link the other way round.
    const [source, target] = linkType === 'is_blocked_by' ? [referenced, issue] : [issue, referenced];
    const stored = linkType === 'relates_to' ? 'relates_to' : 'blocks';
    const errors = await this.linkErrors(source, target);
    if (errors.length) throw unprocessable(`${issueReference(referenced, targetProject, project)} cannot be added: ${toSentence(errors)}`);
    const projects = new Map([
      [project.id, project],
      [targetProject.id, targetProject],
    ]);
    const link = await this.db.$transaction(async (tx) => {
      const now = new Date();
      const created = await tx.issueLink.create({ data: { sourceId: source.id, targetId: target.id, linkType: stored, createdAt: now, updatedAt: now } });
      const [sourceText, targetText] =
        stored === 'blocks' ? ['marked this issue as blocking', 'marked this issue as blocked by'] : ['marked this issue as related to', 'marked this issue as related to'];
      await this.note(tx, source, target, projects, `${sourceText}`, viewer.id, now);
      await this.note(tx, target, source, projects, `${targetText}`, viewer.id, now);
      // The database counted the new link into the source's blocking count (a trigger): the answer shows it.
      const counted = await tx.issue.findUniqueOrThrow({ where: { id: source.id }, select: { blockingIssuesCount: true } });
      return { created, counted };
    });
    return { link: link.created, source: { ...source, ...link.counted }, target };
  }

  /** IssuableLink's validations beyond uniqueness, in their words: itself, and the number of links on either side. */
  private async linkErrors(source: IssueRow, target: IssueRow): Promise<string[]> {
    if (source.id === target.id) return ['cannot be related to itself'];
    const errors: string[] = [];
    for (const issue of [source, target]) {
      const count = await this.db.issueLink.count({ where: { OR: [{ sourceId: issue.id }, { targetId: issue.id }] } });
      if (count >= MAX_LINKS) errors.push(`This issue would exceed the maximum number of linked issues (${MAX_LINKS}).`);
    }
    return errors;
  }

  /** SystemNoteService's relate/unrelate notes: `<text> <reference of other, from issue's project>` on `issue`. */
  private async note(tx: Prisma.TransactionClient, issue: IssueRow, other: IssueRow, projects: Map<number, ProjectRow>, text: string, userId: number, at: Date) {
    const of = projects.get(other.projectId) ?? (await this.projects.get({ id: other.projectId }));
    const from = projects.get(issue.projectId) ?? (await this.projects.get({ id: issue.projectId }));
    await this.notes.createSystemNote(tx, { type: 'Issue', id: issue.id, projectId: issue.projectId, groupId: null }, userId, `${text} ${issueReference(other, of, from)}`, at);
  }

  /**
   * IssueLinks::DestroyService: the link, when the viewer may relate both of its issues (`404 No Issue Link found`
   * otherwise); a system note on each issue.
   */
  async destroy(project: ProjectRow, iid: number, linkId: number): Promise<IssueLinkView> {
    const viewer = this.base.access.requireViewer();
    const issue = await this.findIssue(project, iid);
    const view = await this.view(await this.linkOf(issue, linkId));
    if (!(await this.canLink(view.source)) || !(await this.canLink(view.target))) throw notFoundAs('No Issue Link found');
    const projects = new Map<number, ProjectRow>([[project.id, project]]);
    await this.db.$transaction(async (tx) => {
      const now = new Date();
      await tx.issueLink.delete({ where: { id: view.link.id } });
      await this.note(tx, view.source, view.target, projects, 'removed the relation with', viewer.id, now);
      await this.note(tx, view.target, view.source, projects, 'removed the relation with', viewer.id, now);
    });
    return view;
  }
}

