/**
 * A merge request's diff versions (GitLab's MergeRequestDiff, `merge_request_diffs`): one is recorded when the merge
 * request is opened and each time GitLab's ReloadDiffsService would run (its source branch moved by a push, a force
 * push or a rebase; reopened; its target branch changed), with the source head, the target head and their merge base
 * as they were, and what collecting its diff within Commit.max_diff_options measured (`state`, `real_size`), and the
 * diff's patch id. Nothing else is stored: a version's commits (`start..head`, newest first, as
 * merge_request_diff_commits list them) and diffs (`base...head`, the stored collection shown uncollapsed, as
 * `raw_diffs(limits: false)`) are read from git between its refs, which keep-around refs (`refs/keep-around/<sha>`,
 * GitLab's Repository#keep_around) keep alive after a force push and through `git gc`; the merge request's
 * `refs/merge-requests/<iid>/head` follows its newest version (MergeRequest#fetch_ref!).
 */
import { pipeline } from 'node:stream/promises';
import type { Prisma } from '../../db/database.js';
import { GitError, spawnGit } from '../../git/run.js';
import type { GitProcess } from '../../git/spawner.js';
import { recordNotFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { Repository } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import { diffCollection, type CappedDiff } from './diffs.js';
import type { MergeRequestGit } from './git.js';
import type { MergeRequestRow } from './service.js';

export type MergeRequestDiffRow = Prisma.MergeRequestDiffGetPayload<object>;

/** A version with the project its commits and diffs are read in. */
export type VersionView = MergeRequestDiffRow & { project: ProjectRow };

/** What ReloadDiffsService needs of a merge request. */
type Reloaded = Pick<MergeRequestRow, 'id' | 'iid' | 'projectId' | 'sourceProjectId' | 'state' | 'sourceBranch' | 'targetBranch'>;

/** What making a merge request's first version needs: its branches, and the heads it kept. */
type Versioned = Reloaded & Pick<MergeRequestRow, 'headSha' | 'startSha'>;

/** Commits a version lists at most (GitLab keeps them all; the merge request's own commit list reads as many). */
const MAX_COMMITS = 10_000;

export class MergeRequestVersions {
  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
    private readonly git: MergeRequestGit,
  ) {}

  /**
   * The merge request's newest version (latest_merge_request_diff). A merge request opened before versions were
   * recorded gets its first one here, on first read, as GitLab always has one: from its branches while it is open
   * and they exist, else from the heads it kept. Null only when neither can be read (its commits are gone).
   */
  async latestOf(mr: Versioned): Promise<MergeRequestDiffRow | null> {
    return (await this.base.loaders.merge_requests.latestVersion.load(mr.id)) ?? this.first(mr);
  }

  /** The first version made in this request, by merge request (a page of old merge requests asks once each). */
  private readonly firsts = new Map<number, Promise<MergeRequestDiffRow | null>>();

  private first(mr: Versioned): Promise<MergeRequestDiffRow | null> {
    let made = this.firsts.get(mr.id);
    if (!made) {
      made = this.makeFirst(mr);
      this.firsts.set(mr.id, made);
    }
    return made;
  }

  private async makeFirst(mr: Versioned): Promise<MergeRequestDiffRow | null> {
    const project = await this.base.loaders.projects.byId.load(mr.projectId);
    if (!project) return null;
    const repository = await this.repositories.open(project);
    let head: string | null = null;
    let start: string | null = null;
    if (mr.state === 'opened') [head, start] = await this.branchHeads(project, repository, mr);
    if (!head || !start) {
      // The heads it kept (when merged, or when a branch is gone), while the repository still has them.
      [head, start] = await Promise.all([mr.headSha, mr.startSha].map((sha) => (sha ? repository.resolve(`${sha}^{commit}`) : Promise.resolve(null))));
    }
    if (!head || !start) return null;
    return this.record(project, repository, mr.id, head, start, true);
  }

  /** fetch_ref! (the head ref, from the fork for a fork's) and the target branch's head. */
  private branchHeads(project: ProjectRow, repository: Repository, mr: Reloaded): Promise<[string | null, string | null]> {
    return Promise.all([this.git.fetchRef(project, mr), repository.resolve(`refs/heads/${mr.targetBranch}^{commit}`)]);
  }

  /**
   * MergeRequest#create_merge_request_diff for an open merge request whose branches both exist: fetch_ref! (its
   * head ref), then a new version from the branches' heads.
   */
  async reload(project: ProjectRow, mr: Reloaded): Promise<MergeRequestDiffRow | null> {
    if (mr.state !== 'opened') return null;
    const repository = await this.repositories.open(project);
    const [head, start] = await this.branchHeads(project, repository, mr);
    if (!head || !start) return null;
    return this.record(project, repository, mr.id, head, start, false);
  }

  /**
   * A version of these heads: its commits counted and its diff collected with GitLab's limits (`empty` without
   * commits, `overflow` past the limits, else `collected`), the refs kept around. `onlyFirst`: none is written when
   * the merge request has one already (two first reads at once), that one answered.
   */
  private async record(project: ProjectRow, repository: Repository, mergeRequestId: number, head: string, start: string, onlyFirst: boolean): Promise<MergeRequestDiffRow> {
    const baseSha = await repository.mergeBase(start, head);
    const commitsCount = await repository.countCommits(head, [start]);
    let state = 'empty';
    let realSize: string | null = null;
    let filesCount = 0;
    if (commitsCount > 0) {
      const collection = await diffCollection(repository, baseSha ?? start, head, { limits: true, expanded: true }, { skip: 0, take: 0 });
      filesCount = collection.size;
      realSize = collection.overflow ? `${collection.size}+` : String(collection.size);
      if (collection.size > 0) state = 'collected';
      if (collection.overflow) state = 'overflow';
    }
    const patchIdSha = baseSha ? await patchId(repository, baseSha, head) : null;
    await keepAround(repository, [head, start, baseSha]);
    const data = { mergeRequestId, state, headCommitSha: head, baseCommitSha: baseSha, startCommitSha: start, realSize, patchIdSha, commitsCount, filesCount };
    const row = onlyFirst
      ? await this.base.db.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT "id" FROM "merge_requests" WHERE "id" = ${mergeRequestId} FOR UPDATE`;
          const existing = await tx.mergeRequestDiff.findFirst({ where: { mergeRequestId }, orderBy: { id: 'desc' } });
          return existing ?? tx.mergeRequestDiff.create({ data });
        })
      : await this.base.db.mergeRequestDiff.create({ data });
    this.base.loaders.merge_requests.latestVersion.clear(mergeRequestId);
    return row;
  }

  /**
   * The rest of RefreshService#reload_merge_requests for a push to `branch` (from `before` to `after`): each open
   * merge request of the project that targets it gets a new version when the push was a force push or brought
   * commits of its newest version into the branch (`includes_any_commits?`). Merge requests from the branch are
   * reloaded by the caller.
   */
  async reloadTargeting(project: ProjectRow, branch: string, push: { before: string; after: string }): Promise<void> {
    const open = await this.base.db.mergeRequest.findMany({
      where: { projectId: project.id, targetBranch: branch, state: 'opened', NOT: { sourceProjectId: project.id, sourceBranch: branch } },
      select: { id: true, iid: true, projectId: true, sourceProjectId: true, state: true, sourceBranch: true, targetBranch: true },
      orderBy: { id: 'asc' },
    });
    if (open.length === 0) return;
    const repository = await this.repositories.open(project);
    const forced = !(await repository.isAncestor(push.before, push.after));
    for (const mr of open) {
      if (!forced) {
        // One without versions gets its first from the branches as they are now, on first read.
        const version = await this.base.loaders.merge_requests.latestVersion.load(mr.id);
        if (!version?.headCommitSha || !version.startCommitSha || version.commitsCount === 0) continue;
        // Its commits the push brought: those of start..head not reachable from `before` less those not reachable from `after` either.
        const range = [version.headCommitSha, `^${version.startCommitSha}`, `^${push.before}`];
        const [outside, stillOutside] = await Promise.all([
          repository.text(['rev-list', '--count', ...range]),
          repository.text(['rev-list', '--count', ...range, `^${push.after}`]),
        ]);
        if (Number(outside) === Number(stillOutside)) continue;
      }
      await this.reload(project, mr);
    }
  }

  /**
   * GitLab's `merge_request.merge_request_diffs.order_id_desc`, paginated (`asc`: `merge_request_diffs` as GraphQL's
   * mergeRequestDiffs pages them, by id).
   */
  async list(project: ProjectRow, mr: MergeRequestRow, page: PageArgs, order: 'asc' | 'desc' = 'desc') {
    await this.latestOf(mr);
    const where = { mergeRequestId: mr.id };
    return connection<VersionView>(
      page,
      async ({ skip, take }) => (await this.base.db.mergeRequestDiff.findMany({ where, orderBy: { id: order }, skip, take })).map((v) => ({ ...v, project })),
      () => this.base.db.mergeRequestDiff.count({ where }),
    );
  }

  /** `merge_request_diffs.find(id)`: another merge request's version is GitLab's RecordNotFound, `404 Not found`. */
  async find(mr: MergeRequestRow, id: number): Promise<MergeRequestDiffRow> {
    const row = Number.isSafeInteger(id) ? await this.base.db.mergeRequestDiff.findFirst({ where: { id, mergeRequestId: mr.id } }) : null;
    if (!row) throw recordNotFound();
    return row;
  }

  /** The version's commits (`start..head`), newest first, with the project they are shown in. */
  async commits(project: ProjectRow, version: MergeRequestDiffRow) {
    if (!version.headCommitSha || version.commitsCount === 0) return [];
    const repository = await this.repositories.open(project);
    const revision = version.startCommitSha ? `${version.startCommitSha}..${version.headCommitSha}` : version.headCommitSha;
    const log = await repository.log({ revision, skip: 0, max: MAX_COMMITS });
    return log.map((c) => ({ ...c, project }));
  }

  /**
   * The version's diffs as MergeRequestDiffFull shows them (`raw_diffs(limits: false)` of what was stored): the
   * collection within the limits, expanded, too large patches emptied, none collapsed.
   */
  async diffs(project: ProjectRow, version: MergeRequestDiffRow): Promise<CappedDiff[]> {
    const from = version.baseCommitSha ?? version.startCommitSha;
    if (version.state === 'empty' || !version.headCommitSha || !from) return [];
    const repository = await this.repositories.open(project);
    return (await diffCollection(repository, from, version.headCommitSha, { limits: true, expanded: true })).diffs;
  }

  /**
   * MergeRequest#diff_stats: each changed file's line counts between the diff refs' base and head (none without),
   * read once per range in a request (`diffStats` and `diffStatsSummary` of one merge request ask alike).
   */
  diffStats(project: ProjectRow, refs: { baseSha: string | null; headSha: string | null }): Promise<FileDiffStats[]> {
    const { baseSha, headSha } = refs;
    if (!baseSha || !headSha) return Promise.resolve([]);
    const key = `${project.id}:${baseSha}..${headSha}`;
    let stats = this.stats.get(key);
    if (!stats) {
      stats = this.repositories.open(project).then((repository) => diffStats(repository, baseSha, headSha));
      this.stats.set(key, stats);
    }
    return stats;
  }

  /** The request's diff stats by project and range (`diffStats`). */
  private readonly stats = new Map<string, Promise<FileDiffStats[]>>();

  /**
   * GitLab's `GET …/raw_diffs` (send_git_diff of the merge request's diff_refs, Gitaly's RawDiff): the `git diff
   * --full-index` from the merge base to the head that src/http/merge-request-raw-diffs.ts streams; null (an empty
   * diff) without diff refs.
   */
  async rawDiff(project: ProjectRow, refs: { baseSha: string | null; headSha: string | null }): Promise<{ gitDir: string; args: string[] } | null> {
    if (!refs.baseSha || !refs.headSha) return null;
    const repository = await this.repositories.open(project);
    return { gitDir: repository.path, args: rawDiffArgs(refs.baseSha, refs.headSha) };
  }
}

/** The full diff between two commits as Gitaly's RawDiff writes it. */
function rawDiffArgs(from: string, to: string): string[] {
  return ['diff', '--full-index', '--no-color', '--no-ext-diff', from, to, '--'];
}

/** One file's line counts in a diff (GitLab's Gitlab::Git::DiffStats entry). */
export interface FileDiffStats {
  path: string;
  additions: number;
  deletions: number;
}

/**
 * Gitaly's DiffStats: `git diff --numstat -z` between two commits, a renamed file under its new path, a binary one
 * counting nothing.
 */
export async function diffStats(repository: Repository, from: string, to: string): Promise<FileDiffStats[]> {
  const fields = (await repository.run(['diff', '--numstat', '-z', '--no-ext-diff', from, to, '--'])).stdout.toString('utf8').split('\0');
  const stats: FileDiffStats[] = [];
  for (let i = 0; i < fields.length; i++) {
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(fields[i]);
    if (!match) continue;
    // A rename is `added\tdeleted\t` then its old and new paths as fields of their own.
    let path = match[3];
    if (path === '') {
      path = fields[i + 2] ?? '';
      i += 2;
    }
    stats.push({ path, additions: match[1] === '-' ? 0 : Number(match[1]), deletions: match[2] === '-' ? 0 : Number(match[2]) });
  }
  return stats;
}

/**
 * Gitaly's GetPatchID: `git patch-id --stable` of the diff between two commits (null for an empty diff), the diff
 * piped from one git into the other, never held whole (a diff may be larger than any output git runs may buffer).
 */
async function patchId(repository: Repository, from: string, to: string): Promise<string | null> {
  const diff = spawnGit(repository.path, rawDiffArgs(from, to));
  const ids = spawnGit(repository.path, ['patch-id', '--stable']);
  const out: Buffer[] = [];
  ids.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  diff.stderr.resume();
  ids.stderr.resume();
  const ended = (run: GitProcess) =>
    new Promise<number | null>((resolve) => {
      run.on('close', (code: number | null) => resolve(code));
      run.on('error', () => resolve(null));
    });
  const [diffCode, idsCode] = await Promise.all([ended(diff), ended(ids), pipeline(diff.stdout, ids.stdin).catch(() => undefined)]);
  if (diffCode !== 0 || idsCode !== 0) throw new GitError(['patch-id', '--stable'], diffCode !== 0 ? diffCode : idsCode, 'the patch id could not be computed');
  return Buffer.concat(out).toString('utf8').split(' ')[0] || null;
}

/** Repository#keep_around: a `refs/keep-around/<sha>` for each commit, so no force push or gc loses it. */
async function keepAround(repository: Repository, shas: readonly (string | null)[]): Promise<void> {
  const wanted = [...new Set(shas.filter((s): s is string => !!s))];
  const input = wanted.map((sha) => `update refs/keep-around/${sha} ${sha}\n`).join('');
  if (input) await repository.run(['update-ref', '--stdin'], { input });
}
