/**
 * Owns merge requests (GitLab's MergeRequest), numbered by iid within their project, with their assignees, reviewers
 * and label links: the Merge Requests API of projects, groups and the instance (MergeRequestsFinder's filters and
 * orders), create with GitLab's branch validations, update with state events and label changes, delete, and their
 * activity events. Their git side (commits, diffs, mergeability, merging) is git.ts.
 */
import { byKeyLoader } from '../../db/loader.js';
import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../../db/database.js';
import { equalsIgnoringCase } from '../../db/text.js';
import { GraphQLError } from 'graphql';
import { atLeastOneOf, attributeError, invalid, invalidArgument, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { ActivityService } from '../activity/service.js';
import { can } from '../../auth/policy.js';
import { liveActor } from '../../auth/memberships.js';
import { MERGE_REQUEST_UPDATED, mergeRequestOfMessage, type MergeRequestPart, type MergeRequestUpdatedMessage } from './live.js';
import { enqueueHookEvent, hookHeard } from '../hooks/events.js';
import { mergeRequestData, mergeRequestHookAttrs, type HookMergeRequest, type MergeRequestBefore, type MergeRequestHookAction } from '../hooks/payloads.js';
import { hookProjectOf } from '../hooks/samples.js';
import type { IssuesService } from '../issues/service.js';
import { issueReferences } from './references.js';
import { labelCountLoader, type LabelInParent } from '../labels/loaders.js';
import type { LabelsService } from '../labels/service.js';
import type { NotesService } from '../notes/service.js';
import { issuableConditions } from '../issues/finder.js';
import { existingUsers, lockForIid, usableMilestone } from '../issues/issuable.js';
import { logTime, type Spend } from '../issues/timelogs.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import { VISIBILITY_RANK } from '../namespaces/paths.js';
import { fetchProjectRows } from '../projects/loaders.js';
import type { ProjectRow } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import type { EventResource, ResourceEventsService } from '../resource_events/service.js';
import { MergeRequestApprovals } from './approvals.js';
import { MergeRequestGit } from './git.js';
import { MergeRequestPipelines } from './pipelines.js';
import type { PipelinesService } from '../pipelines/service.js';
import { MergeRequestVersions } from './versions.js';
import { REBASE_JOB, type RebaseJobPayload } from './rebase.js';
import type { MergeRequestSubject } from './policy.js';
import { SubscriptionsService } from '../subscriptions/service.js';
import { MergeRequestInteractions } from './interactions.js';
import type { TodosService } from '../todos/service.js';
import { MergeRequestContextCommits } from './context-commits.js';

export const MERGE_REQUEST = 'MergeRequest';

/** A merge request as its resource events name it. */
const eventResource = (mr: { id: number; projectId: number }): EventResource => ({ type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null });

export const withPeople = {
  assignees: { select: { userId: true }, orderBy: { createdAt: 'asc' } },
  reviewers: { select: { userId: true, state: true, createdAt: true }, orderBy: { createdAt: 'asc' } },
} as const;

export type MergeRequestRow = Prisma.MergeRequestGetPayload<{ include: typeof withPeople }>;

export type MergeRequestScope = { project: ProjectRow } | { group: NamespaceRow } | { all: true };

/** REST's `order_by` values, and GraphQL's `closed_at` (MergeRequestSort's CLOSED_AT_*, which REST's sort options lack). */
export type MergeRequestOrderBy = 'created_at' | 'updated_at' | 'merged_at' | 'closed_at' | 'title' | 'priority' | 'label_priority' | 'milestone_due' | 'popularity';

/** MergeRequestsFinder's filters, as the Merge Requests API names them. */
export interface MergeRequestFilters {
  state?: 'opened' | 'closed' | 'merged' | 'locked' | 'all' | null;
  labels?: readonly string[] | null;
  milestone?: string | null;
  authorId?: number | null;
  authorUsername?: string | null;
  /** A user id, `None` or `Any`. */
  assigneeId?: string | null;
  assigneeUsername?: string | null;
  /** A user id, `None` or `Any`. */
  reviewerId?: string | null;
  reviewerUsername?: string | null;
  sourceBranches?: readonly string[] | null;
  targetBranches?: readonly string[] | null;
  search?: string | null;
  scope?: 'created_by_me' | 'assigned_to_me' | 'reviews_for_me' | 'all' | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  updatedAfter?: Date | null;
  updatedBefore?: Date | null;
  iids?: readonly number[] | null;
  draft?: boolean | null;
  orderBy?: MergeRequestOrderBy | null;
  sort?: 'asc' | 'desc' | null;
}

export interface MergeRequestInput {
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description?: string | null;
  labels?: readonly string[] | null;
  assigneeIds?: readonly number[] | null;
  reviewerIds?: readonly number[] | null;
  milestoneId?: number | null;
  removeSourceBranch?: boolean | null;
  squash?: boolean | null;
  draft?: boolean | null;
  /** The REST API's `target_project_id`: a project of the source's fork network to open it in. */
  targetProjectId?: number | null;
  /** GitLab's allow_collaboration (`allow_maintainer_to_push`): for a merge request from a fork. */
  allowCollaboration?: boolean | null;
}

export interface MergeRequestChanges {
  title?: string | null;
  description?: string | null;
  targetBranch?: string | null;
  labels?: readonly string[] | null;
  addLabels?: readonly string[] | null;
  removeLabels?: readonly string[] | null;
  /** Label ids replacing the current labels (GraphQL's mergeRequestSetLabels). */
  labelIds?: readonly number[] | null;
  assigneeIds?: readonly number[] | null;
  reviewerIds?: readonly number[] | null;
  /** Present with null or 0: the milestone is removed. */
  milestoneId?: number | null;
  stateEvent?: string | null;
  squash?: boolean | null;
  removeSourceBranch?: boolean | null;
  discussionLocked?: boolean | null;
  draft?: boolean | null;
  allowCollaboration?: boolean | null;
  /** Time estimate in seconds (mergeRequestUpdate's `timeEstimate`; 0 removes it). */
  timeEstimate?: number | null;
}

/** GitLab's draft prefixes (MergeRequest::DRAFT_REGEX): `Draft:`, `[Draft]`, `(Draft)`, any case, at the start. */
const DRAFT = /^\s*(?:\[draft\]|\(draft\)|draft:)\s*/i;

export function isDraftTitle(title: string): boolean {
  return DRAFT.test(title);
}

/** The title without its draft prefixes (`draftless_title`), or with one `Draft: ` in front (`draft_title`). */
function draftTitle(title: string, draft: boolean): string {
  let bare = title;
  while (DRAFT.test(bare)) bare = bare.replace(DRAFT, '');
  return draft ? `Draft: ${bare}` : bare;
}

function mergeRequestErrors(mr: { title: string; description: string | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!mr.title.trim()) errors.title = ["can't be blank"];
  else if (mr.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  if (mr.description && mr.description.length > 1_048_576) errors.description = ['is too long (maximum is 1048576 characters)'];
  return errors;
}

export const mergeRequestSubject = (project: ProjectRow, mr: MergeRequestRow): MergeRequestSubject => ({
  inProject: project,
  authorId: mr.authorId,
  assigneeIds: mr.assignees.map((a) => a.userId),
});

/**
 * What another module does to abort a closing merge request's auto-merge of its own strategy (AutoMergeService#abort):
 * merge trains register theirs (merge_trains/index.ts). Built from the merge requests service's own dependencies, as
 * services are made lazily per request. True when it was theirs to abort.
 */
export type AutoMergeAborter = (deps: MergeRequestsDeps, project: ProjectRow, mr: MergeRequestRow, reason: string) => Promise<boolean>;

/** The services a merge request service is built with, for the aborters of other modules. */
export interface MergeRequestsDeps {
  base: ServiceBase;
  mergeRequests: MergeRequestsService;
  pipelines: PipelinesService;
  repositories: RepositoriesService;
  notes: NotesService;
}

const AUTO_MERGE_ABORTERS: AutoMergeAborter[] = [];

/** Registers another module's auto-merge aborter (called once, when that module is loaded). */
export function registerAutoMergeAborter(aborter: AutoMergeAborter): void {
  AUTO_MERGE_ABORTERS.push(aborter);
}

export class MergeRequestsService {
  /** Commits, diffs, mergeability and merging, through the repository's git. */
  readonly git: MergeRequestGit;
  /** Approving, unapproving and resetting approvals (approvals.ts). */
  readonly approvals: MergeRequestApprovals;
  /** Its pipelines, merged results included, and its merge ref kept current (pipelines.ts). */
  readonly pipelines: MergeRequestPipelines;
  /** Diff versions (versions.ts). */
  readonly versions: MergeRequestVersions;
  /** What is between each of its users and it (interactions.ts). */
  readonly interactions: MergeRequestInteractions;
  /** Commits added for context (context-commits.ts). */
  readonly contextCommits: MergeRequestContextCommits;

  constructor(
    private readonly base: ServiceBase,
    private readonly labels: LabelsService,
    private readonly activity: ActivityService,
    readonly repositories: RepositoriesService,
    private readonly issues: IssuesService,
    private readonly events: ResourceEventsService,
    private readonly notes: NotesService,
    private readonly pipelineService: PipelinesService,
    private readonly todos: TodosService,
  ) {
    this.git = new MergeRequestGit(base, this, repositories);
    this.pipelines = new MergeRequestPipelines(base, this, pipelineService);
    this.approvals = new MergeRequestApprovals(base, this, notes);
    this.versions = new MergeRequestVersions(base, repositories, this.git);
    this.interactions = new MergeRequestInteractions(base, this);
    this.contextCommits = new MergeRequestContextCommits(base, this, repositories);
  }

  private get db() {
    return this.base.db;
  }

  private countsByLabel?: ReturnType<typeof labelCountLoader<'opened'>>;

  /** How many open merge requests the viewer may read carry a label where it is listed (Label#open_merge_requests_count). */
  async openLabelCount(label: LabelInParent): Promise<number> {
    this.countsByLabel ??= labelCountLoader(this.db, 'mergeRequest', ['opened'], () => this.base.access.where('read_merge_request'));
    return (await this.countsByLabel.load(label)).opened;
  }

  async projectOf(mr: MergeRequestRow): Promise<ProjectRow> {
    const project = await this.base.loaders.projects.byId.load(mr.projectId);
    if (!project) throw notFound('Project');
    return project;
  }

  async subject(mr: MergeRequestRow): Promise<MergeRequestSubject> {
    return mergeRequestSubject(await this.projectOf(mr), mr);
  }

  /**
   * One of the project's merge requests by iid, as GitLab's find_merge_request_with_access answers: `404 Merge Request
   * Not Found` when there is none, 403 when the viewer sees the project but may not read it.
   */
  async get(project: ProjectRow, iid: number): Promise<MergeRequestRow> {
    if (!(await this.base.access.can('read_project', project))) throw notFound('Project');
    const mr = await this.db.mergeRequest.findUnique({ where: { projectId_iid: { projectId: project.id, iid } }, include: withPeople });
    if (!mr) throw notFound('Merge Request');
    await this.base.access.authorize('read_merge_request', mergeRequestSubject(project, mr));
    return mr;
  }

  async find(project: ProjectRow, iid: number): Promise<MergeRequestRow | null> {
    if (!(await this.base.access.can('read_project', project))) throw notFound('Project');
    const mr = await this.db.mergeRequest.findUnique({ where: { projectId_iid: { projectId: project.id, iid } }, include: withPeople });
    if (!mr || !(await this.base.access.can('read_merge_request', mergeRequestSubject(project, mr)))) return null;
    return mr;
  }

  /** Of the project's merge requests with these iids, those the viewer may read (`!3` references). */
  async readableByIids(project: ProjectRow, iids: readonly number[]): Promise<MergeRequestRow[]> {
    if (!iids.length || !(await this.base.access.can('read_project', project))) return [];
    const found = (await this.byProjectIid.loadMany(iids.map((iid) => `${project.id}:${iid}`))).filter((mr): mr is MergeRequestRow => mr !== null && !(mr instanceof Error));
    const readable = await Promise.all(found.map((mr) => this.base.access.can('read_merge_request', mergeRequestSubject(project, mr))));
    return found.filter((_, i) => readable[i]);
  }

  /** Merge requests by `projectId:iid`, batched: the references of a page of texts in one query. */
  private readonly byProjectIid = byKeyLoader<string, MergeRequestRow>(
    (keys: readonly string[]) =>
      this.db.mergeRequest.findMany({ where: { OR: keys.map((k) => ({ projectId: Number(k.split(':')[0]), iid: Number(k.split(':')[1]) })) }, include: withPeople }),
    (mr) => `${mr.projectId}:${mr.iid}`,
  );

  /** A merge request by id when the viewer may read it (global IDs, notes); null otherwise. */
  async byId(id: number): Promise<MergeRequestRow | null> {
    const mr = await this.db.mergeRequest.findUnique({ where: { id }, include: withPeople });
    if (!mr) return null;
    const project = await this.base.loaders.projects.byId.load(mr.projectId);
    if (!project || project.pendingDelete || !(await this.base.access.can('read_merge_request', mergeRequestSubject(project, mr)))) return null;
    return mr;
  }

  /** Of these ids, those the viewer may read, in one query: their activity events' check. */
  async readableIds(ids: readonly number[]): Promise<Set<number>> {
    const rows = await this.db.mergeRequest.findMany({
      where: { AND: [{ id: { in: [...ids] } }, await this.base.access.where('read_merge_request'), { project: { pendingDelete: false } }] },
      select: { id: true },
    });
    return new Set(rows.map((r) => r.id));
  }

  /** The merge requests of the scope with MergeRequestsFinder's filters and order. */
  async list(scope: MergeRequestScope, filters: MergeRequestFilters, page: PageArgs) {
    const viewer = this.base.viewer;
    const listScope = filters.scope ?? ('all' in scope ? 'created_by_me' : 'all');
    if ('all' in scope && listScope !== 'all') this.base.access.requireViewer();
    const and: Prisma.MergeRequestWhereInput[] = [await this.base.access.where('read_merge_request'), { project: { pendingDelete: false } }];
    // GitLab's `authorize! :read_merge_request, user_project`: a project seen without its merge requests is a 403.
    if ('project' in scope) await this.base.access.authorize('read_project_merge_requests', scope.project);
    if ('project' in scope) and.push({ projectId: scope.project.id });
    if ('group' in scope) and.push({ project: { namespace: { traversalIds: { has: scope.group.id } } } });
    if (listScope === 'created_by_me' && viewer) and.push({ authorId: viewer.id });
    if (listScope === 'assigned_to_me' && viewer) and.push({ assignees: { some: { userId: viewer.id } } });
    if (listScope === 'reviews_for_me' && viewer) and.push({ reviewers: { some: { userId: viewer.id } } });
    if (filters.state && filters.state !== 'all') and.push({ state: filters.state });
    if (filters.sourceBranches?.length) and.push({ sourceBranch: { in: [...filters.sourceBranches] } });
    if (filters.targetBranches?.length) and.push({ targetBranch: { in: [...filters.targetBranches] } });
    if (filters.draft != null) and.push({ draft: filters.draft });
    and.push(
      ...(await issuableConditions(this.db, {
        ...filters,
        assigneeUsernames: filters.assigneeUsername ? [filters.assigneeUsername] : null,
        reviewerUsernames: filters.reviewerUsername ? [filters.reviewerUsername] : null,
      })),
    );
    const where: Prisma.MergeRequestWhereInput = { AND: and };
    const orderBy = this.order(filters.orderBy ?? 'created_at', filters.sort ?? 'desc');
    const list = connection(
      page,
      ({ skip, take }) => this.db.mergeRequest.findMany({ where, orderBy, skip, take, include: withPeople }),
      () => this.db.mergeRequest.count({ where }),
    );
    return Object.assign(list, { totalTimeToMerge: () => this.totalTimeToMerge(where) });
  }

  private async userIds(usernames: readonly string[]): Promise<number[]> {
    const users = await this.db.user.findMany({ where: { username: { in: [...usernames] } }, select: { id: true } });
    return users.map((u) => u.id);
  }


  private order(orderBy: MergeRequestOrderBy, sort: 'asc' | 'desc'): Prisma.MergeRequestOrderByWithRelationInput[] {
    const id = { id: sort } as const;
    switch (orderBy) {
      case 'updated_at':
        return [{ updatedAt: sort }, id];
      case 'title':
        return [{ title: sort }, id];
      case 'merged_at':
        return [{ mergedAt: { sort, nulls: 'last' } }, id];
      // GitLab's order_closed_at_*: metrics.latest_closed_at, set when it is closed and cleared when it is reopened.
      case 'closed_at':
        return [{ closedAt: { sort, nulls: 'last' } }, id];
      case 'priority':
      case 'label_priority':
      case 'milestone_due':
        return [{ milestone: { dueDate: { sort: 'asc', nulls: 'last' } } }, { createdAt: sort }, id];
      default:
        return [{ createdAt: sort }, id];
    }
  }

  private async labelIdsFor(project: ProjectRow, titles: readonly string[] | null | undefined): Promise<number[]> {
    const byTitle = titles?.length ? await this.labels.findOrCreateByTitles(project, titles, true) : [];
    return [...new Set(byTitle.map((l) => l.id))];
  }

  /** Records the merge request's event (`opened` is GitLab's `created` with target MergeRequest). */
  event(project: ProjectRow, mr: { id: number; iid: number; title: string }, action: 'created' | 'closed' | 'reopened' | 'merged' | 'approved', tx: Prisma.TransactionClient) {
    return this.activity.record(
      { action, authorId: this.base.access.requireViewer().id, project, targetType: MERGE_REQUEST, targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title },
      tx,
    );
  }

  /**
   * GitLab's MergeRequest#validate_branches for an open merge request: no other open one for the same source and
   * target (409, `validate_branches`).
   */
  private async checkNoOtherOpen(project: ProjectRow, sourceProjectId: number | null, source: string, target: string, except?: number): Promise<void> {
    const other = await this.db.mergeRequest.findFirst({
      where: { projectId: project.id, sourceProjectId, sourceBranch: source, targetBranch: target, state: 'opened', ...(except ? { id: { not: except } } : {}) },
      select: { iid: true },
      orderBy: { id: 'asc' },
    });
    if (other) throw attributeError(`Another open merge request already exists for this source branch: !${other.iid}`, 409);
  }

  /**
   * The project a merge request from `source` opens in (MergeRequests::BuildService#find_target_project): the one
   * asked for when the viewer may create merge requests in it, else the source's default target (its upstream, when
   * that has merge requests, is no more visible than the fork and takes them from the viewer), else the source.
   */
  private async targetFor(source: ProjectRow, askedId: number | null | undefined): Promise<ProjectRow> {
    const { access, loaders } = this.base;
    const takes = async (p: ProjectRow | null | undefined): Promise<ProjectRow | null> =>
      p && !p.pendingDelete && (await access.can('read_project', p)) && (await access.can('create_merge_request_in', p)) ? p : null;
    const asked = askedId == null ? null : await takes(askedId === source.id ? source : await loaders.projects.byId.load(askedId));
    if (asked) return asked;
    const upstream = source.forkedFromProjectId != null ? await loaders.projects.byId.load(source.forkedFromProjectId) : null;
    // Project#mr_can_target_upstream?: a fork no more visible than its upstream targets it by default.
    const rank = (p: ProjectRow) => VISIBILITY_RANK[p.visibility as keyof typeof VISIBILITY_RANK];
    return (upstream && rank(upstream) <= rank(source) ? await takes(upstream) : null) ?? source;
  }

  /** MergeRequest#can_allow_collaboration?: from a fork, whose code the viewer may push (`push_code`). */
  private async mayAllowCollaboration(mr: Pick<MergeRequestRow, 'projectId' | 'sourceProjectId'>): Promise<boolean> {
    if (mr.sourceProjectId === mr.projectId) return false;
    const source = await this.git.sourceProjectOf(mr);
    return !!source && (await this.base.access.can('push_code', source));
  }

  /** The root of a project's fork network (the project forks were first made from), following forked_from links. */
  private async forkNetworkRoot(project: ProjectRow): Promise<number> {
    let current: ProjectRow | null | undefined = project;
    const seen = new Set<number>();
    while (current && current.forkedFromProjectId != null && !seen.has(current.id)) {
      seen.add(current.id);
      const up: ProjectRow | null | undefined = await this.base.loaders.projects.byId.load(current.forkedFromProjectId);
      if (!up) break;
      current = up;
    }
    return current?.id ?? project.id;
  }

  /** Project#in_fork_network_of?: both have the same fork network root. */
  async inSameForkNetwork(a: ProjectRow, b: ProjectRow): Promise<boolean> {
    if (a.id === b.id) return true;
    const [ra, rb] = await Promise.all([this.forkNetworkRoot(a), this.forkNetworkRoot(b)]);
    return ra === rb;
  }

  /**
   * `POST /projects/:id/merge_requests` (MergeRequests::CreateService): `source` is the route's project, whose branch
   * is merged; the merge request lives in its target (targetFor), numbered there.
   */
  async create(source: ProjectRow, input: MergeRequestInput): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    if (!(await this.base.access.can('read_project', source))) throw notFound('Project');
    await this.base.access.authorize('create_merge_request_from', source);
    const project = await this.targetFor(source, input.targetProjectId);
    const forked = project.id !== source.id;
    const metadata = await this.base.access.can('set_merge_request_metadata', project);
    const title = input.draft ? draftTitle(input.title.trim(), true) : input.title.trim();
    const draft = { title, description: input.description ?? null };
    const errors = mergeRequestErrors(draft);
    if (Object.keys(errors).length) throw invalid(errors);
    // MergeRequests::BuildService's checks (MergeRequest#validate_fork, then errors on `base`), then the model's
    // (`branch_conflict`, `validate_branches`).
    if (forked && !(await this.inSameForkNetwork(source, project))) throw attributeError('Source project is not a fork of the target project', 422);
    if (!forked && input.sourceBranch === input.targetBranch) throw attributeError("You can't use same project/branch for source and target", 422);
    const [sourceRefs, refs] = await Promise.all([
      forked ? this.git.branchHeads(source, [input.sourceBranch]) : null,
      this.git.branchHeads(project, [input.sourceBranch, input.targetBranch]),
    ]);
    const sourceHead = (sourceRefs ?? refs).get(input.sourceBranch);
    if (!sourceHead) throw attributeError(`Source branch "${input.sourceBranch}" does not exist`, 422);
    if (!refs.get(input.targetBranch)) throw attributeError(`Target branch "${input.targetBranch}" does not exist`, 422);
    await this.checkNoOtherOpen(project, source.id, input.sourceBranch, input.targetBranch);
    // A fork's branch is fetched into the target's repository first (refs/merge-requests/<iid>/head once numbered).
    if (forked) await this.git.fetchObjects(project, source, sourceHead);
    const diffRefs = await this.git.diffRefsOf(project, sourceHead, refs.get(input.targetBranch)!);
    const milestoneId = metadata ? await usableMilestone(this.db, project, input.milestoneId) : null;
    const assigneeIds = metadata && input.assigneeIds ? await existingUsers(this.db, input.assigneeIds) : [];
    const reviewerIds = metadata && input.reviewerIds ? await existingUsers(this.db, input.reviewerIds) : [];
    const labelIds = metadata ? await this.labelIdsFor(project, input.labels) : [];
    const references = await this.issueReferencesOf(project, { title, description: draft.description, targetBranch: input.targetBranch });
    const created = await this.db.$transaction(async (tx) => {
      await lockForIid(tx, project.id);
      const { _max } = await tx.mergeRequest.aggregate({ where: { projectId: project.id }, _max: { iid: true } });
      const at = new Date();
      const mr = await tx.mergeRequest.create({
        data: {
          ...draft,
          projectId: project.id,
          sourceProjectId: source.id,
          allowMaintainerToPush: forked ? (input.allowCollaboration ?? false) : false,
          sourceBranch: input.sourceBranch,
          targetBranch: input.targetBranch,
          iid: (_max.iid ?? 0) + 1,
          authorId: viewer.id,
          milestoneId,
          draft: isDraftTitle(title),
          squash: input.squash ?? false,
          // MergeRequests::BuildService#force_remove_source_branch: as asked, else the source project's default.
          forceRemoveSourceBranch: input.removeSourceBranch ?? source.removeSourceBranchAfterMerge,
          headSha: diffRefs.headSha,
          baseSha: diffRefs.baseSha,
          startSha: diffRefs.startSha,
          createdAt: at,
          updatedAt: at,
          assignees: { create: assigneeIds.map((userId) => ({ userId })) },
          reviewers: { create: reviewerIds.map((userId) => ({ userId })) },
        },
        include: withPeople,
      });
      if (labelIds.length) await tx.labelLink.createMany({ data: labelIds.map((labelId) => ({ labelId, mergeRequestId: mr.id })) });
      if (milestoneId !== null) await this.events.recordMilestoneChange(tx, eventResource(mr), { milestoneId, previousId: null, state: mr.state }, viewer.id, at);
      await this.events.recordLabelChanges(tx, eventResource(mr), { added: labelIds, removed: [] }, viewer.id, at);
      await this.keepIssueReferences(tx, mr.id, references);
      await this.event(project, mr, 'created', tx);
      await this.executeHooks(tx, project, mr.id, 'open', { before: null });
      await this.announce(tx, mr, ['diffGenerated']);
      await this.pipelines.queueFirst(tx, mr.id, viewer.id);
      return mr;
    });
    // MergeRequests::AfterCreateService: its first diff version (a fork's branch fetched into the head ref first).
    await this.versions.reload(project, created);
    await this.todos.mergeRequestChanged(project, null, created);
    return created;
  }

  async update(project: ProjectRow, iid: number, changes: MergeRequestChanges, requireSome = true): Promise<MergeRequestRow> {
    const mr = await this.get(project, iid);
    const given = Object.entries(changes).some(([, v]) => v !== undefined && v !== null);
    if (requireSome && !given && changes.milestoneId === undefined) {
      throw atLeastOneOf('assigneeId', 'assigneeIds', 'reviewerIds', 'description', 'labels', 'addLabels', 'removeLabels', 'milestoneId', 'removeSourceBranch', 'allowCollaboration', 'stateEvent', 'targetBranch', 'title', 'discussionLocked', 'squash');
    }
    const subject = mergeRequestSubject(project, mr);
    await this.base.access.authorize('update_merge_request', subject);
    const metadata = await this.base.access.can('admin_merge_request', subject);
    if (changes.stateEvent != null && changes.stateEvent !== 'close' && changes.stateEvent !== 'reopen') throw invalidArgument('stateEvent');
    const data: Prisma.MergeRequestUncheckedUpdateInput = {};
    let title = changes.title != null ? changes.title.trim() : mr.title;
    if (changes.draft != null) title = draftTitle(title, changes.draft);
    if (title !== mr.title) {
      data.title = title;
      data.draft = isDraftTitle(title);
    }
    if (changes.description != null) data.description = changes.description;
    if (changes.squash != null) data.squash = changes.squash;
    if (changes.removeSourceBranch != null) data.forceRemoveSourceBranch = changes.removeSourceBranch;
    // MergeRequest#can_allow_collaboration?: only someone who may push to the fork sets it (else it is ignored).
    if (changes.allowCollaboration != null && (await this.mayAllowCollaboration(mr))) data.allowMaintainerToPush = changes.allowCollaboration;
    if (changes.discussionLocked != null && metadata) data.discussionLocked = changes.discussionLocked;
    if (metadata && changes.milestoneId !== undefined) data.milestoneId = await usableMilestone(this.db, project, changes.milestoneId);
    if (metadata && changes.timeEstimate != null && changes.timeEstimate !== mr.timeEstimate) data.timeEstimate = changes.timeEstimate;
    const errors = mergeRequestErrors({ title, description: (data.description as string | undefined) ?? mr.description });
    if (Object.keys(errors).length) throw invalid(errors);
    const viewer = this.base.access.requireViewer();
    if (changes.targetBranch != null && changes.targetBranch !== mr.targetBranch) {
      if (mr.state === 'merged') throw attributeError('Cannot change target branch of a merged merge request', 422);
      if (changes.targetBranch === mr.sourceBranch && mr.sourceProjectId === mr.projectId) throw attributeError("You can't use same project/branch for source and target", 422);
      const heads = await this.git.branchHeads(project, [changes.targetBranch]);
      if (!heads.get(changes.targetBranch)) throw attributeError(`Target branch "${changes.targetBranch}" does not exist`, 422);
      data.targetBranch = changes.targetBranch;
    }
    let state = mr.state;
    if (changes.stateEvent === 'close' && mr.state === 'opened') state = 'closed';
    if (changes.stateEvent === 'reopen' && mr.state === 'closed') state = 'opened';
    // MergeRequest#validate_fork on an open one: a fork that is gone or left the fork network cannot be reopened.
    if (state === 'opened' && state !== mr.state && MergeRequestGit.forFork(mr)) {
      const source = await this.git.sourceProjectOf(mr);
      if (!source || !(await this.inSameForkNetwork(source, project))) throw attributeError('Source project is not a fork of the target project', 422);
    }
    if (state === 'opened' && (state !== mr.state || data.targetBranch)) {
      await this.checkNoOtherOpen(project, mr.sourceProjectId, mr.sourceBranch, (data.targetBranch as string | undefined) ?? mr.targetBranch, mr.id);
    }
    if (state !== mr.state) {
      data.state = state;
      data.closedAt = state === 'closed' ? new Date() : null;
      data.closedById = state === 'closed' ? viewer.id : null;
    }
    const assigneeIds = metadata && changes.assigneeIds != null ? await existingUsers(this.db, changes.assigneeIds) : null;
    const reviewerIds = metadata && changes.reviewerIds != null ? await existingUsers(this.db, changes.reviewerIds) : null;
    let labelIds: number[] | null = null;
    let labelChange = { added: [] as number[], removed: [] as number[] };
    if (metadata && (changes.labels != null || changes.labelIds != null || changes.addLabels != null || changes.removeLabels != null)) {
      const current = await this.labelIdsOf(mr);
      let next = current;
      if (changes.labels != null) next = await this.labelIdsFor(project, changes.labels);
      if (changes.labelIds != null) next = (await this.labels.availableByIds(project, changes.labelIds)).map((l) => l.id);
      const add = await this.labelIdsFor(project, changes.addLabels);
      const removed = changes.removeLabels?.length ? await this.labels.findOrCreateByTitles(project, changes.removeLabels, false) : [];
      const remove = new Set(removed.map((l) => l.id));
      next = [...new Set([...next, ...add])].filter((id) => !remove.has(id));
      const same = next.length === current.length && next.every((id) => current.includes(id));
      if (!same) {
        labelIds = next;
        labelChange = { added: next.filter((id) => !current.includes(id)), removed: current.filter((id) => !next.includes(id)) };
      }
    }
    const textChanged = data.title !== undefined || data.description !== undefined || data.targetBranch !== undefined;
    const references = textChanged
      ? await this.issueReferencesOf(project, { title, description: (data.description as string | undefined) ?? mr.description, targetBranch: (data.targetBranch as string | undefined) ?? mr.targetBranch })
      : null;
    const updated = await this.db.$transaction(async (tx) => {
      const heard = await hookHeard(tx, 'merge_request_hooks', project.id);
      const before = heard ? await this.hookBefore(tx, mr.id) : null;
      if (references) await this.keepIssueReferences(tx, mr.id, references);
      const changed = Object.keys(data).length > 0 || assigneeIds !== null || reviewerIds !== null || labelIds !== null;
      if (changed) data.updatedAt = new Date();
      if (labelIds !== null) {
        await tx.labelLink.deleteMany({ where: { mergeRequestId: mr.id, labelId: { notIn: labelIds } } });
        await tx.labelLink.createMany({ data: labelIds.map((labelId) => ({ labelId, mergeRequestId: mr.id })), skipDuplicates: true });
      }
      if (assigneeIds !== null) {
        await tx.mergeRequestAssignee.deleteMany({ where: { mergeRequestId: mr.id, userId: { notIn: assigneeIds } } });
        await tx.mergeRequestAssignee.createMany({ data: assigneeIds.map((userId) => ({ mergeRequestId: mr.id, userId })), skipDuplicates: true });
      }
      if (reviewerIds !== null) {
        await tx.mergeRequestReviewer.deleteMany({ where: { mergeRequestId: mr.id, userId: { notIn: reviewerIds } } });
        await tx.mergeRequestReviewer.createMany({ data: reviewerIds.map((userId) => ({ mergeRequestId: mr.id, userId })), skipDuplicates: true });
      }
      const updated = await tx.mergeRequest.update({ where: { id: mr.id }, data, include: withPeople });
      // GitLab's resource events of the change: milestone, labels, then state (MergeRequests::UpdateService, Close/ReopenService).
      const at = updated.updatedAt;
      await this.events.issuables.mergeRequestUpdated(tx, mr, updated, (t) => draftTitle(t, false), viewer.id);
      if (updated.milestoneId !== mr.milestoneId) {
        await this.events.recordMilestoneChange(tx, eventResource(updated), { milestoneId: updated.milestoneId, previousId: mr.milestoneId, state: updated.state }, viewer.id, at);
      }
      await this.events.recordLabelChanges(tx, eventResource(updated), labelChange, viewer.id, at);
      if (data.state) await this.events.recordStateChange(tx, eventResource(updated), state === 'closed' ? 'closed' : 'reopened', viewer.id, at);
      if (data.state) await this.event(project, updated, state === 'closed' ? 'closed' : 'reopened', tx);
      const parts: MergeRequestPart[] = [];
      if (data.state || data.draft !== undefined || data.targetBranch) parts.push('mergeStatus');
      if (reviewerIds !== null && (reviewerIds.length !== mr.reviewers.length || reviewerIds.some((id, i) => mr.reviewers[i]?.userId !== id))) parts.push('reviewers');
      await this.announce(tx, mr, parts);
      if (before) {
        const action: MergeRequestHookAction = data.state ? (state === 'closed' ? 'close' : 'reopen') : 'update';
        await this.executeHooks(tx, project, mr.id, action, { before, onlyIfChanged: action === 'update' });
      }
      return updated;
    });
    await this.todos.mergeRequestChanged(project, mr, updated);
    // MergeRequest#reload_diff: ReopenService's, and reload_diff_if_branch_changed's for a new target branch.
    if (updated.state === 'opened' && (data.state || data.targetBranch)) {
      this.git.forget(mr.id);
      await this.versions.reload(project, updated);
    }
    if (data.state === 'closed' && (await this.abortOnClose(project, mr))) return this.get(project, mr.iid);
    return updated;
  }

  /** Time tracking: the estimate in seconds (the Merge Requests API's `time_estimate`), 0 to reset (`admin_merge_request`). */
  async setTimeEstimate(project: ProjectRow, iid: number, seconds: number): Promise<MergeRequestRow> {
    const mr = await this.get(project, iid);
    await this.base.access.authorize('admin_merge_request', mergeRequestSubject(project, mr));
    if (seconds === mr.timeEstimate) return mr;
    const viewer = this.base.access.requireViewer();
    return this.db.$transaction(async (tx) => {
      const before = await this.hookBefore(tx, mr.id);
      const updated = await tx.mergeRequest.update({ where: { id: mr.id }, data: { timeEstimate: seconds, updatedAt: new Date() }, include: withPeople });
      await this.events.issuables.mergeRequestUpdated(tx, mr, updated, (t) => draftTitle(t, false), viewer.id);
      await this.executeHooks(tx, project, mr.id, 'update', { before, onlyIfChanged: true });
      return updated;
    });
  }

  /**
   * Logs spent time on the merge request as a timelog (TimeTrackable#spend_time: negative subtracts, null resets),
   * with an optional day it was spent on and summary; `admin_merge_request`, as the API's add_spent_time asks.
   */
  async addSpentTime(project: ProjectRow, iid: number, seconds: number | null, spend: Omit<Spend, 'seconds'> = {}): Promise<MergeRequestRow> {
    const mr = await this.get(project, iid);
    await this.base.access.authorize('admin_merge_request', mergeRequestSubject(project, mr));
    const viewer = this.base.access.requireViewer();
    return this.db.$transaction(async (tx) => {
      const before = await this.hookBefore(tx, mr.id);
      const totalTimeSpent = await logTime(tx, this.events, { type: 'MergeRequest', id: mr.id, projectId: project.id }, viewer.id, { ...spend, seconds });
      const updated = await tx.mergeRequest.update({ where: { id: mr.id }, data: { totalTimeSpent, updatedAt: new Date() }, include: withPeople });
      await this.executeHooks(tx, project, mr.id, 'update', { before, onlyIfChanged: true });
      return updated;
    });
  }

  /**
   * MergeRequests::CloseService#abort_auto_merge, whichever way it is closed (the API's `state_event`, GraphQL, the
   * `/close` quick action, a fork leaving its network): a merge train's car leaves the train at once and one waiting
   * to board stops waiting (merge trains' aborter), another auto-merge is aborted, each with GitLab's note
   * `… because merge request was closed`. `mr` is the merge request as it was before closing.
   */
  private async abortOnClose(project: ProjectRow, mr: MergeRequestRow): Promise<boolean> {
    if (!mr.autoMergeEnabled) return false;
    const reason = 'merge request was closed';
    const deps: MergeRequestsDeps = { base: this.base, mergeRequests: this, pipelines: this.pipelineService, repositories: this.repositories, notes: this.notes };
    for (const aborter of AUTO_MERGE_ABORTERS) if (await aborter(deps, project, mr, reason)) return true;
    return this.abortAutoMerge(mr, reason);
  }

  /**
   * The issues a merge request's title and description name, readable by the viewer (GitLab's extractors run as the
   * current user): each mentioned one, closing if a closing pattern names it and the target is the default branch
   * (MergeRequest#closes_issues; GitLab's merge_requests_closing_issues).
   */
  private async issueReferencesOf(project: ProjectRow, mr: { title: string; description: string | null; targetBranch: string }): Promise<{ issueId: number; closes: boolean }[]> {
    const { mentioned, closing } = issueReferences(`${mr.title}\n${mr.description ?? ''}`, this.base.app.config.externalUrl);
    if (mentioned.length === 0) return [];
    // At most GitLab's page of references: a description naming thousands of issues keeps the first hundred.
    const refs = mentioned.slice(0, 100);
    const rows = await this.db.issue.findMany({
      where: { OR: refs.map((r) => ({ iid: r.iid, project: r.path === null ? { id: project.id } : { fullPath: equalsIgnoringCase(r.path) } })) },
      select: { id: true, iid: true, projectId: true, project: { select: { fullPath: true } } },
    });
    const readable = await this.issues.readableIds(rows.map((r) => r.id));
    const intoDefault = mr.targetBranch === project.defaultBranch;
    const closes = (row: (typeof rows)[number]) =>
      intoDefault && closing.some((r) => r.iid === row.iid && (r.path === null ? row.projectId === project.id : r.path.toLowerCase() === row.project.fullPath.toLowerCase()));
    return rows.filter((r) => readable.has(r.id)).map((r) => ({ issueId: r.id, closes: closes(r) }));
  }

  private async keepIssueReferences(tx: Prisma.TransactionClient, mergeRequestId: number, references: { issueId: number; closes: boolean }[]): Promise<void> {
    await tx.mergeRequestIssueReference.deleteMany({ where: { mergeRequestId } });
    if (references.length) await tx.mergeRequestIssueReference.createMany({ data: references.map((r) => ({ mergeRequestId, ...r })) });
  }

  /** Merge requests naming an issue that the viewer may read (`closes`: only those closing it), newest first. */
  async referencingIssue(issueId: number, closes: boolean, page: PageArgs) {
    const where: Prisma.MergeRequestWhereInput = {
      AND: [await this.base.access.where('read_merge_request'), { project: { pendingDelete: false } }, { issueReferences: { some: { issueId, ...(closes ? { closes: true } : {}) } } }],
    };
    const list = connection(
      page,
      ({ skip, take }) => this.db.mergeRequest.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take, include: withPeople }),
      () => this.db.mergeRequest.count({ where }),
    );
    return Object.assign(list, { totalTimeToMerge: () => this.totalTimeToMerge(where) });
  }

  /**
   * Issue#to_reference(target project) of each closing issue of the merge request the viewer may read (its
   * visible_closing_issues_for), at most 100: `#1` in the project, `project#1` beside it in its namespace,
   * `group/project#1` elsewhere.
   */
  async closingIssueReferences(project: ProjectRow, mr: MergeRequestRow): Promise<string[]> {
    const issues = await (await this.issues.referencedBy(mr.id, { first: 100 })).nodes;
    return Promise.all(
      issues.map(async (issue) => {
        const of = issue.projectId === project.id ? null : await this.base.loaders.projects.byId.load(issue.projectId);
        if (!of) return `#${issue.iid}`;
        return `${of.namespaceId === project.namespaceId ? of.path : of.fullPath}#${issue.iid}`;
      }),
    );
  }

  private closingCounts?: DataLoader<number, number>;

  /** How many merge requests the viewer may read close an issue (GitLab's Issue#merge_requests_count): batched. */
  closingCount(issueId: number): Promise<number> {
    this.closingCounts ??= new DataLoader(async (ids) => {
      const readable = await this.base.access.where('read_merge_request');
      const rows = await this.db.mergeRequestIssueReference.groupBy({
        by: ['issueId'],
        where: { issueId: { in: [...ids] }, closes: true, mergeRequest: { is: { AND: [readable, { project: { pendingDelete: false } }] } } },
        _count: { _all: true },
      });
      const counts = new Map(rows.map((r) => [r.issueId, r._count._all]));
      return ids.map((id) => counts.get(id) ?? 0);
    });
    return this.closingCounts.load(issueId);
  }

  /**
   * Closes the issues a merge into the default branch closes (MergeRequests::PostMergeService#close_issues), as the
   * merger, each one the merger may update; one that cannot be closed is left as it is.
   */
  async closeIssuesOnMerge(project: ProjectRow, mr: MergeRequestRow): Promise<void> {
    const refs = await this.db.mergeRequestIssueReference.findMany({ where: { mergeRequestId: mr.id, closes: true }, select: { issue: { select: { iid: true, projectId: true, state: true } } } });
    for (const { issue } of refs) {
      if (issue.state !== 'opened') continue;
      const target = issue.projectId === project.id ? project : await this.base.loaders.projects.byId.load(issue.projectId);
      if (!target) continue;
      await this.issues.update(target, issue.iid, { stateEvent: 'close' }).catch(() => undefined);
    }
  }

  private async labelIdsOf(mr: MergeRequestRow): Promise<number[]> {
    return (await this.db.labelLink.findMany({ where: { mergeRequestId: mr.id }, select: { labelId: true } })).map((l) => l.labelId);
  }

  /** GraphQL's mergeRequestSetLabels: replace, add or remove labels by id. */
  async setLabels(project: ProjectRow, iid: number, ids: readonly number[], mode: 'REPLACE' | 'APPEND' | 'REMOVE'): Promise<MergeRequestRow> {
    const mr = await this.get(project, iid);
    await this.base.access.authorize('admin_merge_request', mergeRequestSubject(project, mr));
    const current = await this.labelIdsOf(mr);
    const next = mode === 'REPLACE' ? ids : mode === 'APPEND' ? [...current, ...ids] : current.filter((id) => !ids.includes(id));
    return this.update(project, iid, { labelIds: [...new Set(next)] }, false);
  }

  /** GraphQL's mergeRequestSetAssignees (and reviewers): by username, replacing, appending or removing. */
  async setPeople(project: ProjectRow, iid: number, role: 'assignees' | 'reviewers', usernames: readonly string[], mode: 'REPLACE' | 'APPEND' | 'REMOVE'): Promise<MergeRequestRow> {
    const mr = await this.get(project, iid);
    await this.base.access.authorize('admin_merge_request', mergeRequestSubject(project, mr));
    const named = usernames.length ? await this.userIds(usernames) : [];
    const current = mr[role].map((a) => a.userId);
    const next = mode === 'REPLACE' ? named : mode === 'APPEND' ? [...current, ...named] : current.filter((id) => !named.includes(id));
    return this.update(project, iid, role === 'assignees' ? { assigneeIds: next } : { reviewerIds: next }, false);
  }

  async destroy(project: ProjectRow, iid: number): Promise<MergeRequestRow> {
    const mr = await this.get(project, iid);
    await this.base.access.authorize('destroy_merge_request', mergeRequestSubject(project, mr));
    return this.db.$transaction(async (tx) => {
      await this.events.deleteFor(tx, eventResource(mr));
      await tx.note.deleteMany({ where: { noteableType: MERGE_REQUEST, noteableId: mr.id } });
      await SubscriptionsService.forget(tx, MERGE_REQUEST, mr.id);
      await tx.mergeRequest.delete({ where: { id: mr.id } });
      return mr;
    });
  }

  /**
   * Projects::UnlinkForkService's closing of the open merge requests between a project and the other projects of its
   * fork network (MergeRequest.from_and_to_forks), each by MergeRequests::CloseService as the viewer, whatever their
   * abilities in the other project. Called once the project left the network (unlinked, or marked for deletion).
   */
  async closeFromAndToForks(project: ProjectRow): Promise<void> {
    const open = await this.db.mergeRequest.findMany({
      where: { state: 'opened', OR: [{ sourceProjectId: project.id, projectId: { not: project.id } }, { projectId: project.id, sourceProjectId: { not: project.id } }] },
      select: { id: true, projectId: true },
      orderBy: { id: 'asc' },
    });
    for (const { id, projectId } of open) {
      const target = projectId === project.id ? project : await this.base.loaders.projects.byId.load(projectId);
      if (target) await this.closeUnchecked(target, id);
    }
  }

  /** MergeRequests::CloseService without an ability check: closed by the viewer, with its events, hook and message. */
  private async closeUnchecked(project: ProjectRow, id: number): Promise<void> {
    const viewer = this.base.access.requireViewer();
    const before = await this.db.mergeRequest.findUnique({ where: { id }, include: withPeople });
    const closed = await this.db.$transaction(async (tx) => {
      const hookBefore = (await hookHeard(tx, 'merge_request_hooks', project.id)) ? await this.hookBefore(tx, id) : null;
      const at = new Date();
      const { count } = await tx.mergeRequest.updateMany({ where: { id, state: 'opened' }, data: { state: 'closed', closedAt: at, closedById: viewer.id, updatedAt: at } });
      if (count === 0) return false;
      const mr = await tx.mergeRequest.findUniqueOrThrow({ where: { id }, include: withPeople });
      await this.events.recordStateChange(tx, eventResource(mr), 'closed', viewer.id, at);
      await this.event(project, mr, 'closed', tx);
      await this.announce(tx, mr, ['mergeStatus']);
      if (hookBefore) await this.executeHooks(tx, project, id, 'close', { before: hookBefore });
      return true;
    });
    if (closed && before) {
      const after = await this.db.mergeRequest.findUnique({ where: { id }, include: withPeople });
      if (after) await this.todos.mergeRequestChanged(project, before, after);
      await this.abortOnClose(project, before);
    }
  }

  /**
   * Marks an open merge request merged, once (a concurrent merge that lost the ref race finds it merged): the
   * merge commit, who merged and when, its diff refs as they were, and the `merged` event.
   */
  async recordMerged(project: ProjectRow, mr: MergeRequestRow, merged: { mergeCommitSha: string | null; squashCommitSha: string | null; headSha: string; baseSha: string | null; startSha: string }): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    let mergedNow = false;
    const result = await this.db.$transaction(async (tx) => {
      const at = new Date();
      await tx.mergeRequest.updateMany({
        where: { id: mr.id, state: 'opened' },
        data: { ...merged, state: 'merged', mergeUserId: viewer.id, mergedAt: at, updatedAt: at, autoMergeEnabled: false },
      });
      const updated = await tx.mergeRequest.findUniqueOrThrow({ where: { id: mr.id }, include: withPeople });
      if (updated.mergedAt?.getTime() === at.getTime()) {
        mergedNow = true;
        await this.events.recordStateChange(tx, eventResource(updated), 'merged', viewer.id, at);
        await this.executeHooks(tx, project, mr.id, 'merge', { before: await this.beforeOf(tx, mr) });
        await this.announce(tx, mr, ['mergeStatus']);
      }
      await this.event(project, updated, 'merged', tx);
      return updated;
    });
    // TodoService#merge_merge_request (MergeRequests::PostMergeService): the merger's pending items are done.
    if (mergedNow) await this.todos.mergeRequestChanged(project, mr, result);
    return result;
  }

  /**
   * MergeRequest#rebase_async: marks the open merge request's rebase as asked for, once (null when it is not open or
   * a rebase is already in progress), and queues the job that runs it as the user, in one transaction.
   */
  async queueRebase(mr: MergeRequestRow, userId: number, skipCi: boolean): Promise<MergeRequestRow | null> {
    const jid = randomUUID();
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.mergeRequest.updateMany({ where: { id: mr.id, state: 'opened', rebaseJid: null }, data: { rebaseJid: jid } });
      if (count === 0) return null;
      const payload: RebaseJobPayload = { mergeRequestId: mr.id, userId, skipCi, jid };
      await this.base.app.jobs.enqueue(REBASE_JOB, payload, { uniqueKey: `${REBASE_JOB}:${jid}`, maxAttempts: 1 }, tx);
      return tx.mergeRequest.findUniqueOrThrow({ where: { id: mr.id }, include: withPeople });
    });
  }

  /** A rebase that moved the source branch: the new head and diff refs, the rebase commit, no merge error. */
  async recordRebased(mr: MergeRequestRow, head: string, diffRefs: { baseSha: string | null; startSha: string | null }): Promise<void> {
    await this.db.mergeRequest.updateMany({
      where: { id: mr.id, state: 'opened' },
      data: { headSha: head, baseSha: diffRefs.baseSha, startSha: diffRefs.startSha, rebaseCommitSha: head, mergeError: null, updatedAt: new Date() },
    });
  }

  /** The end of a rebase (RebaseService's ensure): its job let go, and the error kept when it failed. */
  async finishRebase(mergeRequestId: number, jid: string, error: string | null): Promise<void> {
    await this.db.mergeRequest.updateMany({ where: { id: mergeRequestId, rebaseJid: jid }, data: { rebaseJid: null, ...(error ? { mergeError: error } : {}) } });
  }

  /** Sets the merge request to merge by itself (auto_merge.ts decides when), as the viewer, with the merge's options. */
  async recordAutoMerge(project: ProjectRow, mr: MergeRequestRow, strategy: string, options: Record<string, unknown>): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    await this.db.mergeRequest.updateMany({
      where: { id: mr.id, state: 'opened' },
      data: { autoMergeEnabled: true, autoMergeStrategy: strategy, mergeUserId: viewer.id, mergeParams: JSON.parse(JSON.stringify(options)), updatedAt: new Date() },
    });
    return this.get(project, mr.iid);
  }

  /** GitLab's reset_auto_merge: no auto-merge, no merge user, no kept options. */
  async cancelAutoMerge(project: ProjectRow, mr: MergeRequestRow): Promise<MergeRequestRow> {
    await this.db.mergeRequest.updateMany({
      where: { id: mr.id, state: 'opened' },
      data: { autoMergeEnabled: false, autoMergeStrategy: null, mergeUserId: null, mergeParams: Prisma.DbNull, updatedAt: new Date() },
    });
    return this.get(project, mr.iid);
  }

  /**
   * AutoMerge::BaseService#abort for merge when the pipeline succeeds or checks pass (the merge trains' strategies are
   * merge_trains' own): the auto-merge reset, as cancelling does, and GitLab's note naming why, as the viewer. Answers
   * whether there was one to abort.
   */
  async abortAutoMerge(mr: MergeRequestRow, reason: string): Promise<boolean> {
    const viewer = this.base.access.requireViewer();
    if (!mr.autoMergeEnabled) return false;
    return this.db.$transaction(async (tx) => {
      const at = new Date();
      const { count } = await tx.mergeRequest.updateMany({
        where: { id: mr.id, autoMergeEnabled: true, state: { not: 'merged' } },
        data: { autoMergeEnabled: false, autoMergeStrategy: null, mergeUserId: null, mergeParams: Prisma.DbNull, updatedAt: at },
      });
      if (count === 0) return false;
      await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, viewer.id, `aborted the automatic merge because ${reason}`, at);
      return true;
    });
  }

  /**
   * The Merge Request Hook of a change (MergeRequests::BaseService#execute_hooks), queued in the change's transaction
   * `tx` for the project's hooks and the system hooks that hear merge request events, as the viewer. `before` is
   * the merge request before the change (null: it was just opened; omitted: nothing of it changed, as a push's
   * `update` or an approval's); `oldrev` the source branch's previous head after a push. With `onlyIfChanged`,
   * nothing is queued when no attribute the hook compares changed. Approvals call this with `approved`,
   * `unapproved` and `approval`.
   */
  async executeHooks(
    tx: Prisma.TransactionClient,
    project: ProjectRow,
    id: number,
    action: MergeRequestHookAction,
    options: { before?: MergeRequestBefore | null; oldrev?: string | null; onlyIfChanged?: boolean } = {},
  ): Promise<void> {
    if (!(await hookHeard(tx, 'merge_request_hooks', project.id))) return;
    // Everything is read through `tx` (on PGlite, a read beside the open transaction would wait for it to end).
    this.base.loaders.projects.byId.prime(project.id, project);
    const after = await this.hookMergeRequest(tx, id);
    const before = options.before === undefined ? after : options.before;
    const user = await tx.user.findUniqueOrThrow({ where: { id: this.base.access.requireViewer().id }, select: { id: true, name: true, username: true, email: true } });
    const { externalUrl } = this.base.app.config;
    const source =
      after.sourceProjectId === project.id ? project : after.sourceProjectId === null ? null : ((await tx.project.findUnique({ where: { id: after.sourceProjectId }, include: { namespace: true } })) as unknown as ProjectRow | null);
    const data = mergeRequestData({ mergeRequest: after, before, action, project: hookProjectOf(project), sourceProject: source ? hookProjectOf(source) : null, user, oldrev: options.oldrev, externalUrl });
    if (options.onlyIfChanged && Object.keys(data.changes as object).length === 0) return;
    await enqueueHookEvent(this.base.app.jobs, { trigger: 'merge_request_hooks', projectId: project.id, branch: null, data }, tx);
  }

  /**
   * Tells the merge request's subscribers, once `tx` commits, that these parts of it changed (GitLab's
   * GraphqlTriggers: merge_request_merge_status_updated, merge_request_reviewers_updated, …). Approvals call it with
   * `approvalState` (GraphqlTriggers.merge_request_approval_state_updated).
   */
  async announce(tx: Prisma.TransactionClient, mr: { id: number; projectId: number }, parts: readonly MergeRequestPart[]): Promise<void> {
    if (!parts.length) return;
    await this.base.publish(MERGE_REQUEST_UPDATED, { mergeRequestId: mr.id, projectId: mr.projectId, parts: [...parts] } satisfies MergeRequestUpdatedMessage, tx);
  }

  /**
   * One of GitLab's merge request subscriptions: the merge request each time `part` of it changes. The viewer must
   * read it to subscribe (else null, answered as GitLab's `Unauthorized subscription`), and each message is checked
   * again against the subscriber's memberships as the App remembers them and the merge request as it is now: one who
   * may no longer read it hears nothing more, and the subscription ends.
   */
  async watch(id: number, part: MergeRequestPart, field: string): Promise<AsyncGenerator<Record<string, MergeRequestRow>> | null> {
    const mr = await this.byId(id);
    if (!mr) return null;
    const { app, db, viewer } = this.base;
    const actor = liveActor(app.memberships, viewer);
    const messages = app.bus.iterate<MergeRequestUpdatedMessage>(MERGE_REQUEST_UPDATED, (m) => m.mergeRequestId === mr.id && m.parts.includes(part));
    return (async function* () {
      try {
        for await (const message of messages) {
          const [project, row] = await Promise.all([app.projectSubjects.of(message.projectId), mergeRequestOfMessage(message, db).catch(() => null)]);
          if (!project || !row) return;
          const subject = { inProject: project, authorId: row.authorId, assigneeIds: row.assignees.map((a) => a.userId) };
          if (!can(await actor.get(), 'read_merge_request', subject)) return;
          await app.bus.turn();
          yield { [field]: row };
        }
      } finally {
        await messages.return?.();
      }
    })();
  }

  /**
   * A push to branches of the project (MergeRequests::RefreshService#execute_mr_web_hooks): each open merge request
   * whose source branch moved gets an `update` hook with the previous head as `oldrev`, as the pusher.
   */
  async refreshOnPush(project: ProjectRow, push: { ref: string; before: string; after: string }): Promise<void> {
    // A branch made or removed by the push moved no open merge request's source (GitLab's refresh of a new branch finds none open from it).
    if (!push.ref.startsWith('refs/heads/') || /^0+$/.test(push.after) || /^0+$/.test(push.before)) return;
    const branch = push.ref.slice('refs/heads/'.length);
    const open = await this.db.mergeRequest.findMany({
      where: { sourceProjectId: project.id, sourceBranch: branch, state: 'opened' },
      select: { id: true, iid: true, projectId: true, sourceProjectId: true, state: true, sourceBranch: true, targetBranch: true },
      orderBy: { id: 'asc' },
    });
    for (const mr of open) {
      this.git.forget(mr.id);
      const target = mr.projectId === project.id ? project : await this.base.loaders.projects.byId.load(mr.projectId);
      if (!target) continue;
      // RefreshService#reload_merge_requests: a new diff version of the moved source branch (a fork's fetched into
      // the target as refs/merge-requests/<iid>/head first).
      await this.versions.reload(target, mr);
      await this.db.$transaction(async (tx) => {
        await this.executeHooks(tx, target, mr.id, 'update', { oldrev: push.before });
        await this.announce(tx, mr, ['mergeStatus', 'diffGenerated']);
      });
    }
    await this.versions.reloadTargeting(project, branch, push);
  }

  /**
   * The sample of a project hook's test of merge request events (TestHooks::ProjectService#merge_requests_events_data):
   * the project's first merge request, as `to_hook_data` builds it (no action, no changes); null when there is none.
   */
  async hookSample(project: ProjectRow): Promise<unknown> {
    await this.base.access.authorize('read_project_merge_requests', project);
    const first = await this.db.mergeRequest.findFirst({ where: { projectId: project.id }, orderBy: { id: 'asc' }, select: { id: true } });
    if (!first) return null;
    const mr = await this.hookMergeRequest(this.db, first.id);
    const user = await this.db.user.findUniqueOrThrow({ where: { id: this.base.access.requireViewer().id }, select: { id: true, name: true, username: true, email: true } });
    const source = mr.sourceProjectId === project.id ? project : await this.git.sourceProjectOf(mr);
    const { externalUrl } = this.base.app.config;
    return mergeRequestData({ mergeRequest: mr, before: null, action: null, project: hookProjectOf(project), sourceProject: source ? hookProjectOf(source) : null, user, externalUrl });
  }

  /** The merge request as hooks embed it (MergeRequest#hook_attrs): a note hook's `merge_request`. */
  async hookAttrs(project: ProjectRow, mr: MergeRequestRow) {
    const source = mr.sourceProjectId === project.id ? project : await this.git.sourceProjectOf(mr);
    return mergeRequestHookAttrs(await this.hookMergeRequest(this.db, mr.id), hookProjectOf(project), source ? hookProjectOf(source) : null, this.base.app.config.externalUrl);
  }

  /** What the hook compares of a merge request before a change. */
  private async hookBefore(tx: Prisma.TransactionClient, id: number): Promise<MergeRequestBefore> {
    const row = await tx.mergeRequest.findUniqueOrThrow({ where: { id } });
    return this.beforeOf(tx, { ...row, id });
  }

  private async beforeOf(tx: Prisma.TransactionClient, row: { id: number } & Omit<MergeRequestBefore, 'labels' | 'assignees' | 'reviewers'>): Promise<MergeRequestBefore> {
    const people = await this.hookPeople(tx, row.id);
    return { ...row, ...people };
  }

  private async hookPeople(tx: Prisma.TransactionClient, id: number) {
    const [assignees, reviewers, links] = await Promise.all([
      tx.mergeRequestAssignee.findMany({ where: { mergeRequestId: id }, select: { userId: true }, orderBy: { createdAt: 'asc' } }),
      tx.mergeRequestReviewer.findMany({ where: { mergeRequestId: id }, select: { userId: true }, orderBy: { createdAt: 'asc' } }),
      tx.labelLink.findMany({ where: { mergeRequestId: id }, include: { label: true } }),
    ]);
    const ids = [...new Set([...assignees, ...reviewers].map((p) => p.userId))];
    const users = ids.length ? await tx.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, username: true, email: true } }) : [];
    const byId = new Map(users.map((u) => [u.id, u]));
    const people = (rows: { userId: number }[]) => rows.map((r) => byId.get(r.userId)).filter((u): u is (typeof users)[number] => !!u);
    const labels = links.map((l) => l.label).sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
    return { labels, assignees: people(assignees), reviewers: people(reviewers) };
  }

  /** A merge request as its hook data reads it: its row and people, and what its git, pipelines and author say now. */
  private async hookMergeRequest(tx: Prisma.TransactionClient, id: number): Promise<HookMergeRequest> {
    const row = await tx.mergeRequest.findUniqueOrThrow({ where: { id }, include: withPeople });
    const people = await this.hookPeople(tx, id);
    // A fork's project is read through `tx` too, for the git state below to find it.
    if (row.sourceProjectId !== null && row.sourceProjectId !== row.projectId) {
      const [source] = await fetchProjectRows(tx as PrismaClient, Prisma.sql`p."id" = ${row.sourceProjectId}`);
      if (source) this.base.loaders.projects.byId.prime(source.id, source);
    }
    this.git.forget(id);
    const [state, mergeStatus, detailedMergeStatus, headPipeline, firstContribution, blockingDiscussionsResolved] = await Promise.all([
      this.git.state(row),
      this.git.mergeStatus(row),
      this.git.detailedMergeStatus(row),
      this.headPipelineId(tx, row),
      this.firstContribution(row, tx),
      this.git.discussionsResolved(row),
    ]);
    // Gitlab::HookData::MergeRequestBuilder's `last_commit` is diff_head_commit: the newest version's head once it has one.
    const version = row.state === 'merged' ? null : await tx.mergeRequestDiff.findFirst({ where: { mergeRequestId: id }, orderBy: { id: 'desc' }, select: { headCommitSha: true } });
    const sha = version?.headCommitSha ?? state.headSha;
    const commit = sha ? await (await this.repositories.open(await this.projectOf(row))).commit(sha) : null;
    const lastCommit = commit && { id: commit.sha, message: commit.message, title: commit.message.split('\n', 1)[0], timestamp: new Date(commit.authoredDate), authorName: commit.authorName, authorEmail: commit.authorEmail };
    return { ...row, ...people, lastCommit, mergeStatus, detailedMergeStatus, headPipelineId: headPipeline, firstContribution, blockingDiscussionsResolved };
  }

  /** The head pipeline's id as the pipelines' loader finds it (the merge request's own latest, else its source head's), read through `db`. */
  private async headPipelineId(db: Prisma.TransactionClient, mr: MergeRequestRow): Promise<number | null> {
    const own = await db.pipeline.findFirst({ where: { mergeRequestId: mr.id }, orderBy: { id: 'desc' }, select: { id: true } });
    if (own || mr.headSha === null) return own?.id ?? null;
    const branch = await db.pipeline.findFirst({ where: { projectId: mr.projectId, ref: mr.sourceBranch, sha: mr.headSha, tag: false }, orderBy: { id: 'desc' }, select: { id: true } });
    return branch?.id ?? null;
  }

  /** GitLab's participants: the author, assignees, reviewers and commenters, each once. */
  async participants(mr: MergeRequestRow): Promise<number[]> {
    const commenters = await this.notes.commenterIds(MERGE_REQUEST, mr.id, true);
    const ids = [mr.authorId, ...mr.assignees.map((a) => a.userId), ...mr.reviewers.map((r) => r.userId), ...commenters].filter((id): id is number => id !== null);
    return [...new Set(ids)];
  }

  /**
   * MergeRequests::MarkReviewerReviewedService, for the viewer, in the caller's transaction: a reviewer who may update
   * the merge request and starts a thread on it, or approves it, has reviewed it.
   */
  async markReviewed(tx: Prisma.TransactionClient, mr: MergeRequestRow): Promise<void> {
    const viewer = this.base.access.viewer;
    if (!viewer || !mr.reviewers.some((r) => r.userId === viewer.id && r.state !== 'reviewed')) return;
    if (!(await this.base.access.can('update_merge_request', mergeRequestSubject(await this.projectOf(mr), mr)))) return;
    await tx.mergeRequestReviewer.updateMany({ where: { mergeRequestId: mr.id, userId: viewer.id }, data: { state: 'reviewed' } });
  }

  /**
   * MergeRequests::RequestReviewService (GraphQL's mergeRequestReviewerRereview), for who may update the merge
   * request: the reviewer's state goes back to `unreviewed`, with the system note `requested review from @user` and
   * the reviewers' subscription told; GitLab's `Reviewer not found` when the user is no reviewer of it. The caller
   * adds the reviewer's to-do item (the todos module's).
   */
  async requestReview(project: ProjectRow, iid: number, userId: number): Promise<{ mergeRequest: MergeRequestRow; errors: string[] }> {
    const viewer = this.base.access.requireViewer();
    const mr = await this.get(project, iid);
    await this.base.access.authorize('update_merge_request', mergeRequestSubject(project, mr));
    // The argument `loads:` the user: an id naming none is graphql-ruby's error.
    const user = await this.base.loaders.users.byId.load(userId);
    if (!user) throw new GraphQLError(`No object found for \`userId: gid://gitlab/User/${userId}\``, { extensions: { code: 'NOT_FOUND', ownWords: true } });
    if (!mr.reviewers.some((r) => r.userId === userId)) return { mergeRequest: mr, errors: ['Reviewer not found'] };
    await this.db.$transaction(async (tx) => {
      await tx.mergeRequestReviewer.updateMany({ where: { mergeRequestId: mr.id, userId }, data: { state: 'unreviewed' } });
      await this.notes.createSystemNote(tx, { type: MERGE_REQUEST, id: mr.id, projectId: mr.projectId, groupId: null }, viewer.id, `requested review from @${user.username}`, new Date());
      await this.announce(tx, mr, ['reviewers']);
    });
    return { mergeRequest: await this.get(project, iid), errors: [] };
  }

  /**
   * MergeService's error when a merge is refused after it was asked for (the `/merge` quick action's head moved):
   * kept as the merge request's merge_error, as GitLab's MergeWorker leaves it.
   */
  async recordMergeError(mr: MergeRequestRow, error: string): Promise<void> {
    await this.db.mergeRequest.updateMany({ where: { id: mr.id, state: 'opened' }, data: { mergeError: error } });
  }

  /**
   * MergeRequestConnection#total_time_to_merge: the seconds from creation to merge summed over every merged merge
   * request of the list (not only its page); null when none is merged. Read in batches, so no list is held whole.
   */
  async totalTimeToMerge(where: Prisma.MergeRequestWhereInput): Promise<number | null> {
    let total = 0;
    let merged = 0;
    let after = 0;
    for (;;) {
      const rows = await this.db.mergeRequest.findMany({
        where: { AND: [where, { mergedAt: { not: null } }, { id: { gt: after } }] },
        select: { id: true, createdAt: true, mergedAt: true },
        orderBy: { id: 'asc' },
        take: 5000,
      });
      for (const r of rows) total += (r.mergedAt!.getTime() - r.createdAt.getTime()) / 1000;
      merged += rows.length;
      if (rows.length < 5000) break;
      after = rows[rows.length - 1].id;
    }
    return merged ? total : null;
  }

  /**
   * MergeRequest#commit_to_revert (and commit_to_cherry_pick): for a merged one, its merge commit, else its squash
   * commit, else its diff head when it has a single commit; null otherwise.
   */
  async commitToRevert(mr: MergeRequestRow): Promise<string | null> {
    if (mr.state !== 'merged') return null;
    if (mr.mergeCommitSha) return mr.mergeCommitSha;
    if (mr.squashCommitSha) return mr.squashCommitSha;
    const commits = (await this.versions.latestOf(mr))?.commitsCount ?? (await this.git.commitList(mr)).length;
    return commits === 1 ? mr.headSha : null;
  }

  /**
   * GitLab's first_contribution?: the author is no member above Guest and has no merged merge request in the project
   * (for a merged one: none merged before it).
   */
  async firstContribution(mr: MergeRequestRow, db: Prisma.TransactionClient = this.db): Promise<boolean> {
    if (mr.authorId === null) return false;
    const project = await this.projectOf(mr);
    const groups = project.namespace.kind === 'group' ? project.namespace.traversalIds : [];
    const member = await db.member.findFirst({
      where: { userId: mr.authorId, accessLevel: { gt: 10 }, OR: [{ projectId: project.id }, { namespaceId: { in: groups } }] },
      select: { id: true },
    });
    if (member) return false;
    const earlier = await db.mergeRequest.findFirst({
      where: { projectId: mr.projectId, authorId: mr.authorId, state: 'merged', id: { not: mr.id }, ...(mr.mergedAt ? { mergedAt: { lt: mr.mergedAt } } : {}) },
      select: { id: true },
    });
    return !earlier;
  }

  /** GitLab's MergeRequestPermissions for the viewer. */
  async permissions(mr: MergeRequestRow) {
    const project = await this.projectOf(mr);
    const subject = mergeRequestSubject(project, mr);
    const { access } = this.base;
    const source = await this.git.sourceProjectOf(mr);
    const [read, update, admin, note, canMerge, pushSource, protection, pushCode] = await Promise.all([
      access.can('read_merge_request', subject),
      access.can('update_merge_request', subject),
      access.can('admin_merge_request', subject),
      access.can('create_note', project),
      this.repositories.canMergeToBranch(project, mr.targetBranch),
      source ? this.git.canPushToSource(project, source, mr) : false,
      source ? this.repositories.branchProtection(source, mr.sourceBranch) : { protected: true },
      source ? access.can('push_code', source) : false,
    ]);
    // MergeRequestPresenter#can_cherry_pick_on_current_merge_request? and #can_revert_on_current_merge_request?: who may
    // push to the project (can_collaborate_with_project?) and a commit to pick or revert; reverting once only.
    const collaborate = read && (await access.can('push_code', project));
    const commit = collaborate ? await this.commitToRevert(mr) : null;
    return {
      cherryPickOnCurrentMergeRequest: !!commit,
      revertOnCurrentMergeRequest: !!commit && !!mr.mergedAt && !(await this.git.reverted(project, mr, commit)),
      readMergeRequest: read,
      updateMergeRequest: update,
      adminMergeRequest: admin,
      createNote: read && note,
      canApprove: read && (await this.approvals.viewerCanApprove(mr)),
      canMerge: read && canMerge,
      pushToSourceBranch: read && pushSource,
      // can_remove_source_branch?: `push_code` on the source project (collaboration pushes, never removes).
      removeSourceBranch: read && pushSource && pushCode && !protection.protected && !!source && mr.sourceBranch !== source.defaultBranch,
    };
  }

  iidOf(id: number): Promise<number | undefined> {
    return this.base.loaders.merge_requests.iidById.load(id);
  }
}
