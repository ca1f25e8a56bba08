/**
 * A merge request's git side, read and written through the repository's git (src/git/repository.ts): its branches'
 * heads and diff refs, whether it merges cleanly (GitLab's merge_status and detailed_merge_status), its commits and
 * diffs, and merging it (a merge commit, optionally over a squashed commit, written with `git merge-tree` and
 * `commit-tree`, and the target branch moved only if it has not moved meanwhile), recorded as a push.
 */
import { badRequest, conflict, forbidden, methodNotAllowed, notFound, unauthenticated, unprocessable } from '../../errors.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { RepositoryHistory, ZERO_SHA, type CommitInfo, type RefUpdate, type Repository, type Signature } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import { mergeRequestHeadKey } from '../pipelines/loaders.js';
import { mergeRequestMergeRef, mergeRequestRef } from '../pipelines/predefined.js';
import type { MergedResultRef } from '../pipelines/service.js';
import { ACTIVE_STATUSES } from '../pipelines/status.js';
import type { RepositoriesService } from '../repositories/service.js';
import { toSentence } from '../resource_events/issuables.js';
import { ffMergeMustBePossible, squashOnMerge } from '../projects/merge-settings.js';
import { commitEmailOrDefault, type UserRow } from '../users/service.js';
import { diffCollection, type DiffCollectionOptions, type DiffCollectionResult, type DiffWindow } from './diffs.js';
import { fillTemplate, type MessageSources } from './merge-messages.js';
import type { MergeRequestRow, MergeRequestsService } from './service.js';

/** GitLab's MergeRequests::RebaseService::REBASE_ERROR, kept as the merge request's merge_error. */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

/** Why a rebase could not be done (its message is logged; the merge request shows REBASE_ERROR). */
export class RebaseFailure extends Error {}

/** MergeService's refusal of a merge without squash where the project's squash_option is `always`. */
export const SQUASH_REQUIRED = 'This project requires squashing commits when merge requests are accepted.';

export interface DiffRefs {
  baseSha: string | null;
  headSha: string | null;
  startSha: string | null;
}

/** What a merge request's git state is, as its entity shows it. */
export interface MergeRequestGitState extends DiffRefs {
  sourceExists: boolean;
  /** The source has commits the target lacks. */
  hasCommits: boolean;
  conflicts: boolean;
}

/** A source branch a merge removed: its project (the target's, or a fork) and the ref's removal. */
export interface RemovedSource {
  project: ProjectRow;
  update: RefUpdate;
}

/** What a merge tells its caller around the target branch's move (a merge skipping the merge train records it first). */
export interface MergeHooks {
  /** The merge commit is made (or, fast-forwarding, the commit chosen); the target branch moves to it next. */
  beforeTargetMoves?(mr: MergeRequestRow, mergeCommitSha: string): Promise<void>;
  /** The target branch moved meanwhile: the merge did not happen. */
  targetNotMoved?(mr: MergeRequestRow): Promise<void>;
}

export interface MergeOptions {
  sha?: string | null;
  squash?: boolean | null;
  shouldRemoveSourceBranch?: boolean | null;
  mergeCommitMessage?: string | null;
  squashCommitMessage?: string | null;
}

/** Whether two commits merge cleanly depends on nothing but the two: remembered by repository and object names. */
const CLEAN_MERGES = new Map<string, boolean>();
const CLEAN_MERGES_LIMIT = 2000;

export class MergeRequestGit {
  /** Branch heads by project, read once per request (a list asks for every merge request's branches). */
  private heads = new Map<number, Promise<Map<string, string>>>();
  private states = new Map<number, Promise<MergeRequestGitState>>();
  /** Capped diff collections read in this request, by merge request, options and window. */
  private collections = new Map<string, Promise<DiffCollectionResult>>();
  private commitLists = new Map<number, Promise<(CommitInfo & { project: ProjectRow })[]>>();

  constructor(
    private readonly base: ServiceBase,
    private readonly mergeRequests: MergeRequestsService,
    private readonly repositories: RepositoriesService,
  ) {}

  private open(project: ProjectRow): Promise<Repository> {
    return this.repositories.open(project);
  }

  /** The heads of these branches (null for a branch that does not exist). */
  async branchHeads(project: ProjectRow, names: readonly string[]): Promise<Map<string, string | null>> {
    let heads = this.heads.get(project.id);
    if (!heads) {
      heads = this.open(project).then((r) => r.refs('refs/heads/'));
      this.heads.set(project.id, heads);
    }
    const all = await heads;
    return new Map(names.map((n) => [n, all.get(`refs/heads/${n}`) ?? null]));
  }

  /**
   * The project of the merge request's source branch: the target itself, or the fork it comes from (null once that
   * fork is gone or being deleted).
   */
  async sourceProjectOf(mr: Pick<MergeRequestRow, 'projectId' | 'sourceProjectId'>): Promise<ProjectRow | null> {
    if (mr.sourceProjectId === null) return null;
    const project = await this.base.loaders.projects.byId.load(mr.sourceProjectId);
    return project && !project.pendingDelete ? project : null;
  }

  /** Whether the merge request's source branch is in a fork (GitLab's for_fork?). */
  static forFork(mr: Pick<MergeRequestRow, 'projectId' | 'sourceProjectId'>): boolean {
    return mr.sourceProjectId !== mr.projectId;
  }

  /** The head of the merge request's source branch where it lives (the fork's, for a fork's), or null. */
  async sourceHead(mr: MergeRequestRow): Promise<string | null> {
    const source = await this.sourceProjectOf(mr);
    if (!source) return null;
    return (await this.branchHeads(source, [mr.sourceBranch])).get(mr.sourceBranch) ?? null;
  }

  /** Copies a commit and what it reaches from `from`'s repository into `into`'s (a local `git fetch` of its id). */
  async fetchObjects(into: ProjectRow, from: ProjectRow, sha: string): Promise<void> {
    const [target, source] = await Promise.all([this.open(into), this.open(from)]);
    if (await target.resolve(`${sha}^{commit}`)) return;
    await target.run(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', source.path, sha]);
  }

  /**
   * GitLab's MergeRequest#fetch_ref!: refs/merge-requests/<iid>/head of the target repository moved to the source
   * branch's head, its commits fetched first from the fork for a merge request from one. Answers that head (null when
   * the source project or its branch is gone). Read fresh, not from this request's branch heads: a rebase or push may
   * have just moved it.
   */
  async fetchRef(target: ProjectRow, mr: Pick<MergeRequestRow, 'iid' | 'projectId' | 'sourceProjectId' | 'sourceBranch'>): Promise<string | null> {
    const source = await this.sourceProjectOf(mr);
    if (!source) return null;
    const head = await (await this.open(source)).resolve(`refs/heads/${mr.sourceBranch}^{commit}`);
    if (!head) return null;
    const repository = await this.open(target);
    const ref = mergeRequestRef(mr.iid);
    const current = await repository.resolve(ref);
    if (current === head) return head;
    if (source.id !== target.id) await this.fetchObjects(target, source, head);
    // A concurrent refresh that moved it first leaves the same head.
    if (!(await repository.updateRef(ref, head, current ?? ZERO_SHA)) && (await repository.resolve(ref)) !== head) throw unprocessable('Source branch could not be fetched');
    return head;
  }

  /** GitLab's diff refs of a source head against a target head: their merge base, the source head, the target head. */
  async diffRefsOf(project: ProjectRow, headSha: string, startSha: string): Promise<DiffRefs> {
    const repository = await this.open(project);
    return { baseSha: await repository.mergeBase(startSha, headSha), headSha, startSha };
  }

  private async conflicts(repository: Repository, target: string, source: string): Promise<boolean> {
    const key = `${repository.path}\0${target}\0${source}`;
    const known = CLEAN_MERGES.get(key);
    if (known !== undefined) return !known;
    const clean = (await repository.mergeTree(target, source)) !== null;
    if (CLEAN_MERGES.size >= CLEAN_MERGES_LIMIT) CLEAN_MERGES.delete(CLEAN_MERGES.keys().next().value as string);
    CLEAN_MERGES.set(key, clean);
    return !clean;
  }

  /** Forgets what was read of the merge request's git state in this request (its branches or row changed since). */
  forget(id: number): void {
    this.states.delete(id);
    this.commitLists.delete(id);
  }

  /**
   * The merge request's git state: read from its branches while it is open (or closed with both branches still
   * there), from what was kept when it was merged otherwise. Once per merge request and request.
   */
  state(mr: MergeRequestRow): Promise<MergeRequestGitState> {
    let state = this.states.get(mr.id);
    if (!state) {
      state = this.readState(mr);
      this.states.set(mr.id, state);
    }
    return state;
  }

  private async readState(mr: MergeRequestRow): Promise<MergeRequestGitState> {
    const kept: MergeRequestGitState = { baseSha: mr.baseSha, headSha: mr.headSha, startSha: mr.startSha, sourceExists: false, hasCommits: true, conflicts: false };
    if (mr.state === 'merged') return kept;
    const project = await this.mergeRequests.projectOf(mr);
    const heads = await this.branchHeads(project, [mr.sourceBranch, mr.targetBranch]);
    const source = MergeRequestGit.forFork(mr) ? await this.fetchRef(project, mr) : heads.get(mr.sourceBranch);
    const target = heads.get(mr.targetBranch);
    if (!source || !target) return { ...kept, headSha: source ?? mr.headSha, sourceExists: !!source, hasCommits: false };
    const repository = await this.open(project);
    const [baseSha, ahead, conflicts] = await Promise.all([
      repository.mergeBase(target, source),
      repository.countCommits(source, [target]),
      mr.state === 'opened' ? this.conflicts(repository, target, source) : Promise.resolve(false),
    ]);
    return { baseSha, headSha: source, startSha: target, sourceExists: true, hasCommits: ahead > 0, conflicts };
  }

  /**
   * The merge request's diff refs as GitLab's MergeRequest#diff_refs reads them: its newest version's
   * (latest_merge_request_diff, ./versions.ts) once it has one, as kept when merged; read from its branches only
   * when it has no version (opened before versions were recorded). Its diffs, commits and changes read between these.
   */
  async diffRefs(mr: MergeRequestRow): Promise<DiffRefs> {
    if (mr.state !== 'merged') {
      const version = await this.mergeRequests.versions.latestOf(mr);
      if (version) return { baseSha: version.baseCommitSha, headSha: version.headCommitSha, startSha: version.startCommitSha };
    }
    const { baseSha, headSha, startSha } = await this.state(mr);
    return { baseSha, headSha, startSha };
  }

  /**
   * GitLab's detailed_merge_status, from its mergeability checks in their order (MergeRequest.mergeable_state_checks,
   * then the git checks): open, draft, commits, discussions (only_allow_merge_if_all_discussions_are_resolved), CI,
   * conflicts. `not_approved` never applies: GitLab Free requires no approvals.
   */
  async detailedMergeStatus(mr: MergeRequestRow): Promise<string> {
    if (mr.state !== 'opened') return 'not_open';
    if (mr.draft) return 'draft_status';
    const state = await this.state(mr);
    if (!state.sourceExists || !state.hasCommits) return 'commits_status';
    if (!(await this.discussionsResolved(mr))) return 'discussions_not_resolved';
    const ci = await this.ciCheck(mr);
    if (ci) return ci;
    if (state.conflicts) return 'conflict';
    if (await this.shouldBeRebased(mr)) return 'need_rebase';
    return 'mergeable';
  }

  /**
   * MergeRequest#should_be_rebased? (Mergeability::CheckRebaseStatusService, `need_rebase`): the project merges only
   * fast-forward (`ff`) or rebased (`rebase_merge`) sources, and the target branch's head is not in the diff head's
   * history (ff_merge_possible?).
   */
  async shouldBeRebased(mr: MergeRequestRow): Promise<boolean> {
    const project = await this.mergeRequests.projectOf(mr);
    if (!ffMergeMustBePossible(project)) return false;
    const [{ startSha: target }, { headSha: head }] = await Promise.all([this.state(mr), this.diffRefs(mr)]);
    if (!target || !head) return false;
    return !(await (await this.open(project)).isAncestor(target, head));
  }

  /**
   * MergeRequest#mergeable_discussions_state?: with only_allow_merge_if_all_discussions_are_resolved, no resolvable
   * note may be unresolved (REST's `blocking_discussions_resolved`, GraphQL's `mergeableDiscussionsState`).
   */
  async discussionsResolved(mr: MergeRequestRow): Promise<boolean> {
    const project = await this.mergeRequests.projectOf(mr);
    if (!project.onlyAllowMergeIfAllDiscussionsAreResolved) return true;
    return (await this.base.loaders.notes.unresolvedOfMergeRequest.load(mr.id)) === 0;
  }

  /**
   * Mergeability::CheckCiStatusService: with only_allow_merge_if_pipeline_succeeds, the head pipeline must have
   * succeeded (or been skipped, with allow_merge_on_skipped_pipeline): `ci_still_running` while it is active,
   * `ci_must_pass` otherwise (none, failed, canceled, manual…). Whoever asks, the head pipeline decides, and only
   * while it ran for the source's current head (MergeRequest#diff_head_pipeline: its sha, or for a merged results
   * pipeline the source sha it merged).
   */
  private async ciCheck(mr: MergeRequestRow): Promise<'ci_must_pass' | 'ci_still_running' | null> {
    const project = await this.mergeRequests.projectOf(mr);
    if (!project.onlyAllowMergeIfPipelineSucceeds) return null;
    const { headSha } = await this.state(mr);
    const head = await this.base.loaders.pipelines.headByMergeRequest.load(mergeRequestHeadKey(mr));
    const pipeline = head && (head.sha === headSha || head.sourceSha === headSha) ? head : null;
    if (pipeline?.status === 'success' || (pipeline?.status === 'skipped' && project.allowMergeOnSkippedPipeline)) return null;
    return pipeline && (ACTIVE_STATUSES as readonly string[]).includes(pipeline.status) ? 'ci_still_running' : 'ci_must_pass';
  }

  /**
   * MergeRequest#broken?: it has no commits, its source or target branch is missing, or it cannot be merged (conflicts).
   * No strategy of auto-merge is available for a broken merge request (AutoMerge::BaseService#available_for?). Its
   * detailed merge status names which (COMMITS_STATUS, CONFLICT: GitLab's CheckCommitsStatusService and
   * CheckConflictStatusService, which took the place of 16.3's CheckBrokenStatusService and its BROKEN_STATUS).
   */
  async broken(mr: MergeRequestRow): Promise<boolean> {
    const state = await this.state(mr);
    return !state.sourceExists || !state.hasCommits || state.conflicts;
  }

  /** GitLab's (deprecated) merge_status: `cannot_be_merged` when an open merge request conflicts or lost its source. */
  async mergeStatus(mr: MergeRequestRow): Promise<string> {
    if (mr.state !== 'opened') return 'can_be_merged';
    const state = await this.state(mr);
    return state.conflicts || !state.sourceExists ? 'cannot_be_merged' : 'can_be_merged';
  }

  async hasConflicts(mr: MergeRequestRow): Promise<boolean> {
    return (await this.mergeStatus(mr)) === 'cannot_be_merged';
  }

  /** The commits of the merge request (in its source, not in its target), newest first. */
  async commits(mr: MergeRequestRow, page: PageArgs) {
    return listConnection(page, await this.commitList(mr));
  }

  /** The merge request's commits (at most 10,000, as GitLab's MergeRequestDiff keeps them), newest first, once per request. */
  commitList(mr: MergeRequestRow) {
    let list = this.commitLists.get(mr.id);
    if (!list) {
      list = (async () => {
        const project = await this.mergeRequests.projectOf(mr);
        const { headSha, startSha } = await this.diffRefs(mr);
        if (!headSha) return [];
        const log = await (await this.open(project)).log({ revision: startSha ? `${startSha}..${headSha}` : headSha, skip: 0, max: 10_000 });
        return log.map((c) => ({ ...c, project }));
      })();
      this.commitLists.set(mr.id, list);
    }
    return list;
  }

  /** MergeRequest#diverged_from_target_branch?: diverged_commits_count > 0. */
  async divergedFromTarget(mr: MergeRequestRow): Promise<boolean> {
    return (await this.divergedCommitsCount(mr)) > 0;
  }

  /**
   * MergeRequest#diverged_commits_count: how many commits the target branch has that the source branch lacks, their
   * heads read now; 0 once either branch is gone.
   */
  async divergedCommitsCount(mr: MergeRequestRow): Promise<number> {
    const project = await this.mergeRequests.projectOf(mr);
    let source: string | null | undefined;
    let target: string | null | undefined;
    if (mr.state === 'opened') {
      const state = await this.state(mr);
      source = state.sourceExists ? state.headSha : null;
      target = state.startSha;
    } else {
      // A fork's closed or merged merge request: its source head is read where it lives, then found in the target's repository.
      source = MergeRequestGit.forFork(mr) ? await this.sourceHead(mr) : (await this.branchHeads(project, [mr.sourceBranch])).get(mr.sourceBranch);
      target = (await this.branchHeads(project, [mr.targetBranch])).get(mr.targetBranch);
    }
    if (!source || !target) return 0;
    const repository = await this.open(project);
    if (!(await repository.resolve(`${source}^{commit}`))) return 0;
    return repository.countCommits(target, [source]);
  }

  /**
   * Commit#has_been_reverted? of a merged merge request's commit: the target branch holds a commit reverting it
   * (its description names `This reverts commit <sha>`, or `This reverts merge request !<iid>` for the merge commit of
   * a merge request, Commit#revert_description).
   */
  async reverted(project: ProjectRow, mr: MergeRequestRow, sha: string): Promise<boolean> {
    const target = (await this.branchHeads(project, [mr.targetBranch])).get(mr.targetBranch);
    if (!target) return false;
    const descriptions = [`This reverts commit ${sha}`, ...(sha === mr.mergeCommitSha ? [`This reverts merge request !${mr.iid}`] : [])];
    const found = await (await this.open(project)).text(['rev-list', '-n', '1', '--fixed-strings', ...descriptions.map((d) => `--grep=${d}`), target, `^${sha}`, '--']);
    return found.length > 0;
  }

  /**
   * The merge request's diffs capped as GitLab caps them (./diffs.ts), only the window's patches kept; once per
   * merge request, options and window in a request.
   */
  cappedDiffs(mr: MergeRequestRow, options: DiffCollectionOptions, window: DiffWindow | null = null): Promise<DiffCollectionResult> {
    const key = `${mr.id}:${options.limits}:${options.expanded}:${options.collapseShown ?? false}:${window ? `${window.skip}+${window.take}` : '*'}`;
    let result = this.collections.get(key);
    if (!result) {
      result = (async () => {
        const project = await this.mergeRequests.projectOf(mr);
        const { headSha, baseSha, startSha } = await this.diffRefs(mr);
        const from = baseSha ?? startSha;
        if (!headSha || !from) return { diffs: [], size: 0, overflow: false };
        return diffCollection(await this.open(project), from, headSha, options, window);
      })();
      this.collections.set(key, result);
    }
    return result;
  }

  /**
   * GitLab's `/changes` (Entities::MergeRequestChanges): the diffs unexpanded within Commit.max_diff_options and
   * whether they overflowed; with `access_raw_diffs` every file, uncollapsed, never overflowing.
   */
  changeDiffs(mr: MergeRequestRow, raw: boolean): Promise<DiffCollectionResult> {
    return this.cappedDiffs(mr, raw ? { limits: false, expanded: true } : { limits: true, expanded: false });
  }

  /**
   * GitLab's `/diffs` (MergeRequestDiff#paginated_diffs): a page of the merge request diff as it is stored (expanded,
   * within Commit.max_diff_options, too large patches emptied), shown with big files collapsed.
   */
  diffPage(mr: MergeRequestRow, window: DiffWindow): Promise<DiffCollectionResult> {
    return this.cappedDiffs(mr, { limits: true, expanded: true, collapseShown: true }, window);
  }

  /**
   * GitLab's `changes_count` (`merge_request_diff.real_size`): the newest version's, null when it is empty; counted
   * from git (`1000+` beyond GitLab's cap) for a merge request without versions.
   */
  async changesCount(mr: MergeRequestRow): Promise<string | null> {
    const version = await this.mergeRequests.versions.latestOf(mr);
    if (version) return version.realSize;
    const project = await this.mergeRequests.projectOf(mr);
    const { headSha, baseSha, startSha } = await this.diffRefs(mr);
    const from = baseSha ?? startSha;
    if (!headSha || !from) return '0';
    const paths = await (await this.open(project)).changedPaths(from, headSha);
    const count = paths?.length ?? 0;
    return count > 1000 ? '1000+' : String(count);
  }

  /** Whether the viewer may merge it now or later (401 as GitLab's merge API), and `sha` is its diff head (409). */
  async authorizeMerge(project: ProjectRow, mr: MergeRequestRow, sha: string | null | undefined): Promise<void> {
    this.base.access.requireViewer();
    if (!(await this.repositories.canMergeToBranch(project, mr.targetBranch))) throw unauthenticated();
    if (mr.state !== 'opened') throw methodNotAllowed('405 Method Not Allowed');
    await this.checkSha(mr, sha);
  }

  /**
   * GitLab's check_sha_param!: a `sha` given must be the merge request's diff_head_sha (its newest version's head,
   * what was last reviewed), `409 SHA does not match HEAD of source branch: <diff_head_sha>` otherwise. Answers it.
   */
  private async checkSha(mr: MergeRequestRow, sha: string | null | undefined): Promise<string | null> {
    const { headSha } = await this.diffRefs(mr);
    if (sha && sha !== headSha) throw conflict(`SHA does not match HEAD of source branch: ${headSha}`);
    return headSha;
  }

  /**
   * GitLab's `PUT …/merge` (MergeRequests::MergeService), answered as its API answers: 401 to whoever may not merge
   * into the target branch (`unauthorized!` unless can_be_merged_by?, a quirk of GitLab's), 405 when the merge request
   * is not mergeable now (`need_rebase` included), 409 when `sha` is not its diff head, 422 `Branch cannot be merged`
   * when the project requires squashing and it is not asked for (the merge error says so). The diff head (the newest
   * version's head, squashed into one commit on the target when squash_on_merge?) is merged as the project's
   * merge_method says (MergeStrategies::FromSourceBranch): `merge` and `rebase_merge` write a merge commit, `ff` moves
   * the target to it without one. The target moves only if it is still where it was read; the source branch is
   * removed when asked and allowed. Both moves are recorded as one push.
   */
  async merge(project: ProjectRow, iid: number, options: MergeOptions, hooks: MergeHooks = {}): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    const mr = await this.mergeRequests.get(project, iid);
    if (!(await this.repositories.canMergeToBranch(project, mr.targetBranch))) throw unauthenticated();
    if ((await this.detailedMergeStatus(mr)) !== 'mergeable') throw methodNotAllowed('405 Method Not Allowed');
    const state = await this.state(mr);
    // MergeService merges the diff head (the newest version's, what was reviewed), not whatever the branch holds now.
    const source = (await this.checkSha(mr, options.sha)) ?? state.headSha!;
    const target = state.startSha!;
    const repository = await this.open(project);
    const tree = await repository.mergeTree(target, source);
    if (!tree) throw methodNotAllowed('405 Method Not Allowed');
    const user = await this.base.loaders.users.byId.load(viewer.id);
    if (!user) throw notFound('User');
    const merger = { name: user.name, email: user.email };
    const squashAsked = options.squash ?? mr.squash;
    // MergeService#error_check!: missing_required_squash?.
    if (!squashAsked && project.squashOption === 'always') {
      await this.mergeRequests.recordMergeError(mr, SQUASH_REQUIRED);
      throw unprocessable('Branch cannot be merged');
    }
    const fastForward = project.mergeMethod === 'ff';
    // Checked with the merge status, and again on the heads read here: the target may have moved since.
    if (ffMergeMustBePossible(project) && !(await repository.isAncestor(target, source))) throw methodNotAllowed('405 Method Not Allowed');
    let squashCommitSha: string | null = null;
    if (squashOnMerge(project, squashAsked)) {
      const author = (mr.authorId !== null && (await this.base.loaders.users.byId.load(mr.authorId))) || user;
      const squashMessage = options.squashCommitMessage || (await this.defaultSquashMessage(project, mr));
      squashCommitSha = await repository.commitTree(tree, [target], withNewline(squashMessage), { name: author.name, email: author.email }, merger);
    }
    let mergeCommitSha: string | null = null;
    if (!fastForward) {
      const message = options.mergeCommitMessage || (await this.defaultMessage(project, mr));
      mergeCommitSha = await repository.commitTree(tree, [target, squashCommitSha ?? source], withNewline(message), merger, merger);
    }
    const newHead = mergeCommitSha ?? squashCommitSha ?? source;
    const targetRef = `refs/heads/${mr.targetBranch}`;
    await hooks.beforeTargetMoves?.(mr, newHead);
    if (!(await repository.updateRef(targetRef, newHead, target))) {
      await hooks.targetNotMoved?.(mr);
      throw unprocessable('Branch cannot be merged');
    }
    const removed = await this.removeSourceBranch(project, mr, options, repository);
    const baseSha = source === state.headSha ? state.baseSha : await repository.mergeBase(target, source);
    const merged = await this.mergeRequests.recordMerged(project, mr, { mergeCommitSha, squashCommitSha, headSha: source, baseSha, startSha: target });
    // What was read of it open (the live branch heads) is no longer its state: the merged heads are.
    this.forget(mr.id);
    await this.recordMergePush(project, viewer.id, { ref: targetRef, before: target, after: newHead }, removed);
    if (mr.targetBranch === project.defaultBranch) await this.mergeRequests.closeIssuesOnMerge(project, merged);
    return merged;
  }

  /**
   * GitLab's `GET …/merge_ref` (MergeabilityCheckService with MergeRequests::MergeToRefService): the merge commit
   * the merge would make, written to refs/merge-requests/<iid>/merge; 400 `Merge request is not mergeable` when it
   * is not open, lost its source or target, or conflicts.
   */
  async mergeRef(project: ProjectRow, mr: MergeRequestRow): Promise<string> {
    // A derived ref, recomputed from the source and target heads as GitLab's mergeability check does on reads: the
    // same answer whichever surface asks, REST's `GET …/merge_ref` or this field.
    const head = await this.writeMergeRef(project, mr);
    if (!head) throw badRequest('Merge request is not mergeable');
    return head.commit;
  }

  /**
   * Brings refs/merge-requests/<iid>/merge up to date (MergeToRefService): the merge of the source head into the
   * target head, as the merge would write it; kept as it is while it already merges these two heads, so a refresh
   * without a move leaves the commit (and the merged results pipeline made on it) alone. Null, the ref untouched,
   * when the merge request is not open, lost a branch, or conflicts.
   */
  async writeMergeRef(project: ProjectRow, mr: MergeRequestRow): Promise<MergedResultRef | null> {
    if (mr.state !== 'opened') return null;
    const state = await this.state(mr);
    const { startSha: targetSha, headSha: sourceSha } = state;
    if (!state.sourceExists || !targetSha || !sourceSha || state.conflicts) return null;
    const repository = await this.open(project);
    const ref = mergeRequestMergeRef(mr.iid);
    const current = await repository.resolve(ref);
    const kept = current ? await repository.commit(current) : null;
    if (kept && kept.parentIds.length === 2 && kept.parentIds[0] === targetSha && kept.parentIds[1] === sourceSha) return { commit: kept.sha, sourceSha, targetSha };
    const tree = await repository.mergeTree(targetSha, sourceSha);
    if (!tree) return null;
    const viewer = this.base.access.viewer;
    const user = (viewer && (await this.base.loaders.users.byId.load(viewer.id))) || (mr.authorId !== null ? await this.base.loaders.users.byId.load(mr.authorId) : null);
    if (!user) return null;
    const person = { name: user.name, email: user.email };
    const commit = await repository.commitTree(tree, [targetSha, sourceSha], withNewline(await this.defaultMessage(project, mr)), person, person);
    if (!(await repository.updateRef(ref, commit, current ?? ZERO_SHA))) return null;
    return { commit, sourceSha, targetSha };
  }

  /** GitLab's merge_ref_head: the commit refs/merge-requests/<iid>/merge names (null before a refresh); a pure read. */
  async mergeRefHead(project: ProjectRow, mr: MergeRequestRow): Promise<string | null> {
    return (await this.open(project)).resolve(mergeRequestMergeRef(mr.iid));
  }

  /**
   * GitLab's `PUT …/rebase` (authorize_push_to_merge_request!, MergeRequest#rebase_async): 403 `Source branch does not
   * exist` or `Cannot push to source branch`, 409 `Resource lock` while a rebase is already asked for or the merge
   * request is not open; otherwise the rebase is queued (rebase.ts runs it) and the merge request shows it in progress.
   */
  async requestRebase(project: ProjectRow, iid: number, skipCi: boolean): Promise<MergeRequestRow> {
    const viewer = this.base.access.requireViewer();
    const mr = await this.mergeRequests.get(project, iid);
    const source = await this.sourceProjectOf(mr);
    if (!source || !(await this.sourceHead(mr))) throw forbidden('Source branch does not exist');
    if (!(await this.canPushToSource(project, source, mr))) throw forbidden('Cannot push to source branch');
    const queued = await this.mergeRequests.queueRebase(mr, viewer.id, skipCi);
    if (!queued) throw conflict('409 Conflict: Resource lock');
    return queued;
  }

  /**
   * GitLab's MergeRequests::RebaseService#rebase as the viewer (Gitaly's UserRebaseConfirmable): the source branch's
   * commits that the target lacks (merges left out, as `git rebase` leaves them) replayed one by one onto the target
   * head with `git merge-tree` (no working tree), each keeping its author, message and authored date with the viewer
   * as committer; commits whose change the target already has are dropped. The source branch moves only if it is
   * still where it was read and the move passes the push checks (protected branches and their force-push rule), and
   * is recorded as a push (pipelines unless `skipCi`, events, hooks). Throws RebaseFailure on a conflict or refusal.
   */
  async rebase(project: ProjectRow, mr: MergeRequestRow, skipCi: boolean): Promise<string> {
    const viewer = this.base.access.requireViewer();
    if (mr.state !== 'opened') throw new RebaseFailure('the merge request is not open');
    // GitLab rebases in the source project: a fork's branch is replayed there, onto the target head fetched into it.
    const sourceProject = await this.sourceProjectOf(mr);
    if (!sourceProject) throw new RebaseFailure('the source project is gone');
    const repository = await this.open(sourceProject);
    const sourceRef = `refs/heads/${mr.sourceBranch}`;
    const [source, target] = await Promise.all([repository.resolve(`${sourceRef}^{commit}`), (await this.open(project)).resolve(`refs/heads/${mr.targetBranch}^{commit}`)]);
    if (!source || !target) throw new RebaseFailure('a branch does not exist');
    if (!(await this.canPushToSource(project, sourceProject, mr))) throw new RebaseFailure('Cannot push to source branch');
    if (sourceProject.id !== project.id) await this.fetchObjects(sourceProject, project, target);
    const user = await this.base.loaders.users.byId.load(viewer.id);
    if (!user) throw new RebaseFailure('no user');
    let head = source;
    if (!(await repository.isAncestor(target, source))) {
      head = await replay(repository, source, target, { name: user.name, email: user.email });
      const update = { ref: sourceRef, before: source, after: head };
      await this.repositories.authorizeRefUpdate(sourceProject, update).catch((err: Error) => {
        throw new RebaseFailure(err.message);
      });
      if (!(await repository.updateRef(sourceRef, head, source))) throw new RebaseFailure('the source branch moved meanwhile');
      await this.repositories.refsUpdated(sourceProject, viewer.id, [update], skipCi ? { ci: { skip: true } } : null);
    }
    if (sourceProject.id !== project.id) await this.fetchRef(project, mr);
    const diffRefs = await this.diffRefsOf(project, head, target);
    await this.mergeRequests.recordRebased(mr, head, diffRefs);
    return head;
  }

  /**
   * Gitlab::UserAccess#can_push_to_branch? on the source branch where it lives: the viewer may push to it in the
   * source project.
   */
  async canPushToSource(_target: ProjectRow, source: ProjectRow, mr: MergeRequestRow): Promise<boolean> {
    return this.repositories.canPushToBranch(source, mr.sourceBranch);
  }

  /**
   * MergeRequest#allow_collaboration: asked for (allow_maintainer_to_push) and possible (collaborative_push_possible?:
   * from a fork still there, neither project private, the source branch unprotected).
   */
  async allowCollaboration(mr: MergeRequestRow): Promise<boolean> {
    if (!mr.allowMaintainerToPush || !MergeRequestGit.forFork(mr)) return false;
    const [source, target] = await Promise.all([this.sourceProjectOf(mr), this.mergeRequests.projectOf(mr)]);
    if (!source || source.visibility === 'private' || target.visibility === 'private') return false;
    return !(await this.repositories.branchProtection(source, mr.sourceBranch)).protected;
  }

  /** GitLab's can_remove_source_branch?: not the default branch, not protected, and the viewer may push to it. */
  /**
   * A merge's removal of its source branch (MergeRequests::PostMergeService, with `should_remove_source_branch` asked
   * or the merge request's `force_remove_source_branch`): the branch removed where it lives (in the fork, for a merge
   * request from one) and where it is now (a push after the merged head included, as Branches::DeleteService), when the
   * merging user may remove it. Ordinary merges and merge trains' merges alike; null when nothing was removed.
   */
  async removeSourceBranch(project: ProjectRow, mr: MergeRequestRow, options: Pick<MergeOptions, 'shouldRemoveSourceBranch'>, repository: Repository): Promise<RemovedSource | null> {
    if (!(options.shouldRemoveSourceBranch ?? mr.forceRemoveSourceBranch)) return null;
    const sourceProject = await this.sourceProjectOf(mr);
    if (!sourceProject || !(await this.mayRemoveSourceBranch(sourceProject, mr.sourceBranch))) return null;
    const ref = `refs/heads/${mr.sourceBranch}`;
    const sourceRepository = sourceProject.id === project.id ? repository : await this.open(sourceProject);
    const live = await sourceRepository.resolve(ref);
    if (!live || !(await sourceRepository.updateRef(ref, ZERO_SHA, live))) return null;
    return { project: sourceProject, update: { ref, before: live, after: ZERO_SHA } };
  }

  /** A merge recorded as its user's push: the target's move, with the source branch's removal in the same project, or the fork's own. */
  async recordMergePush(project: ProjectRow, userId: number, target: RefUpdate, removed: RemovedSource | null): Promise<void> {
    const here = removed?.project.id === project.id;
    await this.repositories.refsUpdated(project, userId, here ? [target, removed.update] : [target]);
    if (removed && !here) await this.repositories.refsUpdated(removed.project, userId, [removed.update]);
  }

  private async mayRemoveSourceBranch(project: ProjectRow, branch: string): Promise<boolean> {
    if (branch === project.defaultBranch) return false;
    const protection = await this.repositories.branchProtection(project, branch);
    // `push_code` on the source project: a collaborator may push to a fork's branch, not remove it.
    return !protection.protected && (await this.base.access.can('push_code', project)) && (await this.repositories.canPushToBranch(project, branch));
  }

  /**
   * MergeRequest#default_merge_commit_message: the project's merge_commit_template filled in (./merge-messages.ts),
   * or without one the branches, the title, `Closes` and the closing issues the viewer may read, and the merge
   * request's full reference. Merges, merge refs, merge trains' refs and GraphQL's defaultMergeCommitMessage use it.
   */
  async defaultMessage(project: ProjectRow, mr: MergeRequestRow): Promise<string> {
    if (project.mergeCommitTemplate) return fillTemplate(project.mergeCommitTemplate, await this.messageSources(project, mr), false);
    const closing = await this.mergeRequests.closingIssueReferences(project, mr);
    const parts = [`Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'`, mr.title];
    if (closing.length) parts.push(`Closes ${toSentence(closing)}`);
    parts.push(`See merge request ${project.fullPath}!${mr.iid}`);
    return parts.join('\n\n');
  }

  /** MergeRequest#default_squash_commit_message: the project's squash_commit_template filled in when it gives one, else the title. */
  async defaultSquashMessage(project: ProjectRow, mr: MergeRequestRow): Promise<string> {
    if (!project.squashCommitTemplate) return mr.title;
    const message = await fillTemplate(project.squashCommitTemplate, await this.messageSources(project, mr), true);
    return message.trim() ? message : mr.title;
  }

  /** What MessageGenerator's placeholders read of the merge request (its commits and approvers only when used). */
  private async messageSources(project: ProjectRow, mr: MergeRequestRow): Promise<MessageSources> {
    const users = this.base.loaders.users.byId;
    const externalUrl = this.base.app.config.externalUrl;
    const as = (user: UserRow | null | undefined) => (user ? { name: user.name, email: commitEmailOrDefault(user, externalUrl) } : null);
    // merged_by: who merged it, else who set it to merge, else whoever asks now.
    const mergerId = mr.mergeUserId ?? this.base.access.viewer?.id ?? null;
    const [closingIssues, merger, author] = await Promise.all([
      this.mergeRequests.closingIssueReferences(project, mr),
      mergerId !== null ? users.load(mergerId) : null,
      mr.authorId !== null ? users.load(mr.authorId) : null,
    ]);
    return {
      sourceBranch: mr.sourceBranch,
      targetBranch: mr.targetBranch,
      title: mr.title,
      description: mr.description,
      reference: `${project.fullPath}!${mr.iid}`,
      url: `${externalUrl}/${project.fullPath}/-/merge_requests/${mr.iid}`,
      closingIssues,
      commits: () => this.commitList(mr),
      approvers: async () => {
        const ids = await this.mergeRequests.approvals.approvedBy(mr);
        const approvers = await users.loadMany(ids);
        return approvers.flatMap((u) => (u instanceof Error || !u ? [] : [as(u)!]));
      },
      mergedBy: as(merger),
      author: as(author),
    };
  }
}

/**
 * The commits of `target..source` (no merges, oldest first) replayed onto `target`: the new head. A commit whose
 * change conflicts fails the whole rebase; one whose change `target` already has is left out.
 */
async function replay(repository: Repository, source: string, target: string, committer: Signature): Promise<string> {
  const list = await repository.text(['rev-list', '--reverse', '--no-merges', '--topo-order', `${target}..${source}`]);
  const shas = list ? list.split('\n') : [];
  if (shas.length === 0) return target;
  const commits = await repository.commits(shas);
  const history = new RepositoryHistory(repository);
  let onto = target;
  for (const commit of commits) {
    const result = await history.changeTree(commit.sha, commit.parentIds, onto, false);
    if ('failure' in result) {
      if (result.failure === 'empty') continue;
      throw new RebaseFailure(`${commit.sha} conflicts`);
    }
    const message = commit.message.replace(/\n*$/, '\n');
    onto = await history.commitTreeAs(result.tree, onto, message, { name: commit.authorName, email: commit.authorEmail, date: commit.authoredDate }, committer);
  }
  return onto;
}

export function withNewline(message: string): string {
  return message.endsWith('\n') ? message : `${message}\n`;
}
