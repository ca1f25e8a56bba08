/**
 * Owns each project's Git repository: opening it (created on first use when a crash came between project and
 * repository), who may read it and who may move its refs, and what every ref update causes: GitLab's push
 * activity events, one `repository.pushed` message per ref on the bus (pipelines, hooks and subscriptions
 * listen), and the project's `empty_repo` and default branch. Git over HTTP and the repository API both write
 * through `refsUpdated`, so a push looks the same whichever way it came.
 */
import { enqueueHookEvent, pushTrigger } from '../hooks/events.js';
import { can, type Actor, type ProjectSubject } from '../../auth/policy.js';
import { isDevelopersLevel } from '../../auth/access-levels.js';
import { forbidden, notFound, unauthenticated } from '../../errors.js';
import { readmePath } from '../../git/readme.js';
import { Repository, ZERO_SHA, type RefUpdate } from '../../git/repository.js';
import type { PushOptions } from '../../git/push-options.js';
import type { ServiceBase } from '../module.js';
import type { ActivityService } from '../activity/service.js';
import type { PushData } from '../activity/actions.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { UsersService } from '../users/service.js';
import type { ProtectedBranchesService, ProtectedBranchRow } from '../protected_branches/service.js';
import { RepositoryReads } from './reads.js';
import { RepositoryWrites } from './writes.js';
import { RepositoryHistoryService } from './history.js';
import { RepositoryArchives } from './archive.js';

export { ZERO_SHA, type RefUpdate };

/** Bus topic: one message per updated ref, after the events recording it committed. */
export const REPOSITORY_PUSHED = 'repository.pushed';

/**
 * Background job kind: the work one pushed ref causes once, on one replica (GitLab's PostReceive worker), with a
 * PushedMessage as payload; queued in the transaction that records the push. The pipelines module handles it.
 */
export const PUSH_JOB = 'repository.push';

export interface PushedMessage {
  projectId: number;
  userId: number;
  /** Full ref name: refs/heads/… or refs/tags/…. */
  ref: string;
  before: string;
  after: string;
}

/** The push job's payload: the push, with the push options GitLab keeps (`git push -o`) when there were any. */
export interface PushJobPayload extends PushedMessage {
  pushOptions?: PushOptions;
}


/** Why a write to a repository is refused, in GitLab's words (Gitlab::GitAccess and Gitlab::Checks::BranchCheck). */
export const PUSH_ERRORS = {
  pushCode: 'You are not allowed to push code to this project.',
  archived: 'You are not allowed to push code to an archived project.',
  readOnly: 'The repository is temporarily read-only. Please try again later.',
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  forcePushProtectedBranch: 'You are not allowed to force push code to a protected branch on this project.',
  nonMaintainerDeleteProtectedBranch: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  nonWebDeleteProtectedBranch: 'You can only delete protected branches using the web interface.',
  pushProtectedBranch: 'You are not allowed to push code to protected branches on this project.',
  createProtectedBranch: 'You are not allowed to create protected branches on this project.',
  invalidCommitCreateProtectedBranch: 'You can only use an existing protected branch ref as the basis of a new protected branch.',
  nonWebCreateProtectedBranch: 'You can only create protected branches using the web interface and API.',
  prohibitedHexBranchName: 'You cannot create a branch with a 40-character hexadecimal branch name.',
  /** The commits and files APIs' own check (UserAccess#can_push_to_branch?), before any ref moves. */
  pushIntoBranch: 'You are not allowed to push into this branch',
} as const;

/** How a ref update arrives: `web` for the API (GitLab's web protocol), `git` for git over HTTP. */
export interface RefUpdateOptions {
  web?: boolean;
  /** The caller made `after` on top of `before` (an API commit): no force push, and no git run to find that out. */
  fastForward?: boolean;
}

/** Whether any of the rules lets the actor `action` (push or merge) to the branch they cover. */
function mayAccess(actor: Actor, project: ProjectRow, rules: readonly ProtectedBranchRow[], action: 'push' | 'merge'): boolean {
  return rules.some((rule) => rule.accessLevels.some((level) => level.action === action && can(actor, 'access_protected_ref', { project, accessLevel: level.accessLevel })));
}

/** Beyond this many refs of one kind and action in one push, GitLab records one bulk event with `ref_count`. */
const PUSH_EVENT_LIMIT = 3;

/** Rails' `truncate(70)`: at most 70 characters, the last three "..." when cut. */
function truncateTitle(title: string): string {
  return title.length > 70 ? `${title.slice(0, 67)}...` : title;
}

function refKind(ref: string): { type: 'branch' | 'tag'; name: string } | null {
  if (ref.startsWith('refs/heads/')) return { type: 'branch', name: ref.slice('refs/heads/'.length) };
  if (ref.startsWith('refs/tags/')) return { type: 'tag', name: ref.slice('refs/tags/'.length) };
  return null;
}

function pushAction(update: RefUpdate): PushData['action'] {
  if (update.before === ZERO_SHA) return 'created';
  if (update.after === ZERO_SHA) return 'removed';
  return 'pushed';
}

export class RepositoriesService {
  /** Reading commits, trees, files and refs, each after `authorizeRead`. */
  readonly reads: RepositoryReads;
  /** Commits, file writes, branches and tags through the API, each ending in `refsUpdated`. */
  readonly writes: RepositoryWrites;
  /** Blame, a commit's diff, refs and signature, merge bases, contributors, cherry-picks and reverts. */
  readonly history: RepositoryHistoryService;
  /** Archives of a revision and snapshots of the whole repository, streamed from git. */
  readonly archives: RepositoryArchives;
  /** Protected branch rules by project, read once per request (a branch list asks for each branch). */

  constructor(
    private readonly base: ServiceBase,
    private readonly projects: ProjectsService,
    private readonly activity: ActivityService,
    private readonly protectedBranches: ProtectedBranchesService,
    /** Users' SSH signing keys, which SSH-signed commits are verified against. */
    readonly users: UsersService,
  ) {
    this.reads = new RepositoryReads(this);
    this.writes = new RepositoryWrites(base, this);
    this.history = new RepositoryHistoryService(base, this);
    this.archives = new RepositoryArchives(base, this);
  }

  /** The project's repository, created if missing. No ability is checked: callers authorize first. */
  async open(project: ProjectRow): Promise<Repository> {
    return new Repository(await this.base.app.repositories.ensure(project, project.defaultBranch));
  }

  /** Whether the project's repository is on its storage (it is created on first use otherwise). */
  exists(project: ProjectRow): boolean {
    return this.base.app.repositories.exists(project);
  }

  /**
   * The viewer may read the project's code (GitLab's `download_code`): 404 when they may not even see the
   * project, 403 when they see it but not its code (a Guest on a private project).
   */
  async authorizeRead(project: ProjectRow): Promise<void> {
    const { access } = this.base;
    if (!(await access.can('read_project', project))) throw notFound('Project');
    await access.authorize('download_code', project);
  }


  /**
   * Whether the repository refuses writes for now (GitLab's `repository_read_only`, set from the scheduling of a
   * storage move until its copy is in place: src/modules/repository_storage_moves). Every write asks
   * (`authorizeWrite`, hence git pushes and `authorizeRefUpdate`).
   */
  isReadOnly(project: ProjectRow): boolean {
    return project.repositoryReadOnly;
  }

  /**
   * The viewer may write to the repository at all, with GitLab's reasons when not: `push_code` (Developer and
   * above), the project not archived, the repository not read-only. Without `push_code`, a merge request allowing
   * collaboration lets its target's mergers write to its source branch in this fork (Gitlab::UserAccess#can_collaborate?):
   * `branch` names the branch written (null: any branch, as a git push asks before it names its refs; false: no
   * branch, a tag).
   */
  async authorizeWrite(project: ProjectRow, branch: string | null | false = null): Promise<void> {
    await this.authorizeRead(project);
    // GitAccess#check_push_access!: an archived project is refused first, in its own words (`push_code`, which the
    // archived rule prevents, would only say "not allowed").
    if (project.archived && this.base.viewer) throw forbidden(PUSH_ERRORS.archived);
    if (!(await this.base.access.can('push_code', project)) && (branch === false || !(await this.branchAllowsCollaboration(project, branch)))) {
      throw this.base.viewer ? forbidden(PUSH_ERRORS.pushCode) : unauthenticated();
    }
    if (this.isReadOnly(project)) throw forbidden(PUSH_ERRORS.readOnly);
  }

  /**
   * GitLab's UserAccess#can_push_to_branch?, which its commits and files APIs ask before writing: `push_code` (which an
   * archived project refuses everyone), and on a protected branch a rule that lets the viewer push.
   */
  async canPushToBranch(project: ProjectRow, branch: string): Promise<boolean> {
    if (project.archived) return false;
    if (!(await this.base.access.can('push_code', project))) return this.branchAllowsCollaboration(project, branch);
    const rules = await this.protectedBranches.matching(project.id, branch);
    return rules.length === 0 || mayAccess(await this.base.access.actor(), project, rules, 'push');
  }

  /**
   * Project#branch_allows_collaboration? (any branch when null): an open merge request from this project's branch
   * into another project allows collaboration (MergeRequest#allow_collaboration: asked for, neither project private,
   * the branch unprotected) and the viewer may merge it into its target branch.
   */
  async branchAllowsCollaboration(project: ProjectRow, branch: string | null): Promise<boolean> {
    if (!this.base.viewer || project.visibility === 'private') return false;
    const key = `${project.id}\0${branch ?? ''}\0${branch === null}`;
    let answer = this.collaboration.get(key);
    if (!answer) {
      answer = this.findCollaboration(project, branch);
      this.collaboration.set(key, answer);
    }
    return answer;
  }

  /** Answers of branchAllowsCollaboration in this request, by project and branch. */
  private readonly collaboration = new Map<string, Promise<boolean>>();

  private async findCollaboration(project: ProjectRow, branch: string | null): Promise<boolean> {
    const open = await this.base.db.mergeRequest.findMany({
      where: { sourceProjectId: project.id, projectId: { not: project.id }, state: 'opened', allowMaintainerToPush: true, ...(branch !== null ? { sourceBranch: branch } : {}) },
      select: { projectId: true, sourceBranch: true, targetBranch: true },
      orderBy: { id: 'asc' },
      take: 100,
    });
    for (const mr of open) {
      const target = await this.base.loaders.projects.byId.load(mr.projectId);
      if (!target || target.pendingDelete || target.visibility === 'private') continue;
      if ((await this.protectedBranches.matching(project.id, mr.sourceBranch)).length > 0) continue;
      if (await this.canMergeToBranch(target, mr.targetBranch)) return true;
    }
    return false;
  }

  /**
   * GitLab's UserAccess#can_merge_to_branch?, which merging a merge request asks of its target: `push_code`, and on a
   * protected branch a rule that lets the viewer merge.
   */
  async canMergeToBranch(project: ProjectRow, branch: string): Promise<boolean> {
    const { access } = this.base;
    return this.branchAllows(await access.can('push_code', project), () => access.actor(), project, branch, ['merge']);
  }

  /**
   * GitLab's UserAccess#can_update_branch? (push or merge to it) for another user than the viewer, as an actor:
   * what MergeRequest#can_be_merged_by? asks for a merge request's users (UserMergeRequestInteraction#can_merge).
   */
  canUpdateBranchAs(actor: Actor, project: ProjectRow, branch: string): Promise<boolean> {
    return this.branchAllows(can(actor, 'push_code', project), async () => actor, project, branch, ['push', 'merge']);
  }

  /** `push_code` on an unarchived project, and on a protected branch a rule that lets the actor do one of `actions`. */
  private async branchAllows(pushCode: boolean, actor: () => Promise<Actor>, project: ProjectRow, branch: string, actions: readonly ('push' | 'merge')[]): Promise<boolean> {
    if (project.archived || !pushCode) return false;
    const rules = await this.protectedBranches.matching(project.id, branch);
    if (rules.length === 0) return true;
    const who = await actor();
    return actions.some((action) => mayAccess(who, project, rules, action));
  }

  /**
   * GitLab's force-push test (Gitlab::Checks::ForcePush): a branch that existed, still exists, and whose new
   * commit does not descend from its old one. `env` shows git a push's quarantined objects.
   */
  private async isForcePush(project: ProjectRow, update: RefUpdate, env?: Record<string, string>): Promise<boolean> {
    if (project.emptyRepo || update.before === ZERO_SHA || update.after === ZERO_SHA) return false;
    return !(await (await this.open(project)).isAncestor(update.before, update.after, { env }));
  }

  /**
   * One ref update, checked as GitLab's BranchCheck does for git pushes and API writes alike: `authorizeWrite`,
   * then the default branch cannot be deleted, no 40-hex branch names, and the project's protected branch rules
   * (push level, force pushes, creation and deletion of protected branches). FORBIDDEN with GitLab's reason.
   * `env` is passed to git for a push's quarantined objects. Whether the update is a force push is asked of git
   * only when a rule covers the branch: an unprotected branch costs no git run.
   */
  async authorizeRefUpdate(project: ProjectRow, update: RefUpdate, options: RefUpdateOptions = {}, env?: Record<string, string>): Promise<void> {
    const kind = refKind(update.ref);
    // A collaborator (authorizeWrite) may move the branch, not create or delete it.
    const moves = update.before !== ZERO_SHA && update.after !== ZERO_SHA;
    await this.authorizeWrite(project, kind?.type === 'branch' && moves ? kind.name : false);
    if (kind?.type !== 'branch') return;
    const branch = kind.name;
    const deletion = update.after === ZERO_SHA;
    const creation = update.before === ZERO_SHA;
    if (deletion && branch === project.defaultBranch) throw forbidden(PUSH_ERRORS.deleteDefaultBranch);
    if (!deletion && /^[0-9a-f]{40}$/i.test(branch)) throw forbidden(PUSH_ERRORS.prohibitedHexBranchName);
    const rules = await this.protectedBranches.matching(project.id, branch);
    if (rules.length === 0) return;
    if (!options.fastForward && !rules.some((rule) => rule.allowForcePush) && (await this.isForcePush(project, update, env))) throw forbidden(PUSH_ERRORS.forcePushProtectedBranch);
    const actor = await this.base.access.actor();
    const may = (action: 'push' | 'merge') => mayAccess(actor, project, rules, action);
    if (project.emptyRepo || (!creation && !deletion)) {
      if (!may('push')) throw forbidden(PUSH_ERRORS.pushProtectedBranch);
    } else if (creation) {
      if (may('push')) return;
      if (!may('merge')) throw forbidden(PUSH_ERRORS.createProtectedBranch);
      const containing = await (await this.open(project)).branchesContaining(update.after, { env });
      if (!(await this.protectedBranches.anyProtected(project.id, containing))) throw forbidden(PUSH_ERRORS.invalidCommitCreateProtectedBranch);
      if (!options.web) throw forbidden(PUSH_ERRORS.nonWebCreateProtectedBranch);
    } else {
      if (!(await this.base.access.can('push_to_delete_protected_branch', project))) throw forbidden(PUSH_ERRORS.nonMaintainerDeleteProtectedBranch);
      if (!options.web) throw forbidden(PUSH_ERRORS.nonWebDeleteProtectedBranch);
    }
  }

  /**
   * How a branch is protected, as GitLab's Branch entity shows it: whether a rule covers it, whether Developers
   * may push or merge to it (a rule grants exactly the Developer level), and whether the viewer may push to it.
   */
  async branchProtection(project: ProjectRow, branch: string): Promise<{ protected: boolean; developersCanPush: boolean; developersCanMerge: boolean; canPush: boolean }> {
    const rules = await this.protectedBranches.matching(project.id, branch);
    const canPushCode = await this.base.access.can('push_code', project);
    if (rules.length === 0) return { protected: false, developersCanPush: true, developersCanMerge: true, canPush: canPushCode };
    const developers = (action: 'push' | 'merge') => rules.some((rule) => rule.accessLevels.some((level) => level.action === action && isDevelopersLevel(level.accessLevel)));
    const actor = await this.base.access.actor();
    return { protected: true, developersCanPush: developers('push'), developersCanMerge: developers('merge'), canPush: canPushCode && mayAccess(actor, project, rules, 'push') };
  }

  /**
   * Records what a set of ref updates (one push, or one API write) did: GitLab's push events, one bus message
   * per ref, and the project's repository state (not empty once a branch exists; the first branch pushed to an
   * empty repository becomes the default branch when the configured one was not pushed). Creating the default
   * branch protects it (GitLab's default branch protection, ProtectedBranchesService.protectDefaultBranch), in the
   * same transaction as the events, so API commits and git pushes alike get it. A git push's options go with each
   * ref to its pipeline.
   */
  async refsUpdated(project: ProjectRow, authorId: number, updates: readonly RefUpdate[], pushOptions: PushOptions | null = null): Promise<void> {
    const relevant = updates.filter((u) => refKind(u.ref) !== null && u.before !== u.after);
    if (relevant.length === 0) return;
    const repository = await this.open(project);
    // Moving branches of a repository that has some creates or removes none: its branches and HEAD stay as they were.
    const moves = !project.emptyRepo && relevant.every((u) => u.before !== ZERO_SHA && u.after !== ZERO_SHA);
    const branches = moves ? null : await repository.refs('refs/heads/');
    let head = moves ? project.defaultBranch : await repository.headBranch();
    if (branches && branches.size > 0 && (head === null || !branches.has(`refs/heads/${head}`))) {
      const created = relevant.find((u) => refKind(u.ref)?.type === 'branch' && u.after !== ZERO_SHA);
      if (created) {
        head = refKind(created.ref)!.name;
        await repository.setHeadBranch(head);
      }
    }
    const createsDefault = head !== null && relevant.some((u) => u.ref === `refs/heads/${head}` && u.before === ZERO_SHA && u.after !== ZERO_SHA);
    // The README behind readme_url follows the default branch: looked for only when that branch moved or changed.
    const headMoved = head !== project.defaultBranch || relevant.some((u) => u.ref === `refs/heads/${head}`);
    const readme = headMoved ? (head === null ? null : readmePath(await repository.tree(`refs/heads/${head}`, '', false))) : undefined;
    const payloads = await Promise.all(relevant.map((u) => this.pushData(repository, u, head)));
    const events = this.grouped(payloads);
    await this.base.db.$transaction(async (tx) => {
      for (const pushData of events) {
        await this.activity.record({ action: 'pushed', authorId, project, targetType: null, pushData }, tx);
      }
      for (const u of relevant) {
        const message: PushedMessage = { projectId: project.id, userId: authorId, ref: u.ref, before: u.before, after: u.after };
        await this.base.publish(REPOSITORY_PUSHED, message, tx);
        const job: PushJobPayload = pushOptions ? { ...message, pushOptions } : message;
        await this.base.app.jobs.enqueue(PUSH_JOB, job, {}, tx);
        await enqueueHookEvent(this.base.app.jobs, { ...pushTrigger(u.ref), projectId: project.id, data: null, push: message }, tx);
      }
      if (createsDefault && head !== null) await this.protectedBranches.protectDefaultBranch(tx, project.id, head);
      await this.projects.repositoryChanged(tx, project.id, { emptyRepo: branches ? branches.size === 0 : false, defaultBranch: head ?? project.defaultBranch, readmePath: readme, pushedAt: true });
    });
    // The push's jobs exist now that the transaction committed: run them without waiting for the next poll.
    this.base.app.jobs.wake();
  }

  private async pushData(repository: Repository, update: RefUpdate, defaultBranch: string | null): Promise<PushData> {
    const kind = refKind(update.ref)!;
    const action = pushAction(update);
    let commitCount = 0;
    if (action !== 'removed') {
      if (kind.type === 'tag') commitCount = 1;
      else if (action === 'pushed') {
        // One commit on top of the old tip (every API commit) needs no count.
        const parents = (await repository.commit(update.after))?.parentIds;
        commitCount = parents?.length === 1 && parents[0] === update.before ? 1 : await repository.countCommits(update.after, [update.before]);
      }
      else {
        // A new branch: its commits the default branch lacks (all of them when it is the default branch).
        const base = defaultBranch !== null && defaultBranch !== kind.name ? await repository.resolve(`refs/heads/${defaultBranch}`) : null;
        commitCount = await repository.countCommits(update.after, base ? [base] : []);
      }
    }
    const title = commitCount > 0 ? truncateTitle((await repository.commitTitle(update.after)).trim()) : null;
    return {
      commitCount,
      action,
      refType: kind.type,
      commitFrom: action === 'created' ? null : update.before,
      commitTo: action === 'removed' ? null : update.after,
      ref: kind.name,
      commitTitle: title,
      refCount: null,
    };
  }

  /** One event per ref, except where more than PUSH_EVENT_LIMIT refs of one kind share an action: one bulk event. */
  private grouped(payloads: PushData[]): PushData[] {
    const groups = new Map<string, PushData[]>();
    for (const p of payloads) {
      const key = `${p.refType}:${p.action}`;
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    return [...groups.values()].flatMap((group) =>
      group.length > PUSH_EVENT_LIMIT
        ? [{ commitCount: 0, action: group[0].action, refType: group[0].refType, commitFrom: null, commitTo: null, ref: null, commitTitle: null, refCount: group.length }]
        : group,
    );
  }
}

/** Re-exported for the subscription filters of listeners that hold only the project subject. */
export type { ProjectSubject };
