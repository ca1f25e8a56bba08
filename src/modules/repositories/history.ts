/**
 * A project's history through the API (GitLab's `lib/api/commits.rb`, `files.rb` blame and `repositories.rb`): blame,
 * a commit's diff, the refs containing it, its signature and merge requests, merge bases and contributors; and the
 * commits that apply or undo another one on a branch (cherry-pick and revert), made in memory by git's three-way
 * merge (`merge-tree`) and written to the branch as every API commit is (RepositoryWrites.moveRef: protected
 * branches, push events, hooks and pipelines).
 */
import { argumentRefused, badRequest, changeFailed, forbidden, invalidArgument, notFound, unauthenticated } from '../../errors.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { RepositoryHistory, type ChangeFailure, type ContainingRef, type FileDiff, type Repository } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from '../projects/service.js';
import { checkedPath } from './paths.js';
import type { CommitRow } from './reads.js';
import type { RepositoriesService } from './service.js';

/** One run of lines from one commit, as GitLab's BlameRange entity. */
export interface BlameRangeRow {
  commit: CommitRow;
  lines: string[];
}

export interface ContributorRow {
  name: string;
  email: string;
  commits: number;
  additions: number;
  deletions: number;
}

/** A commit's signature as GitLab's CommitSignature types show it (GpgSignature, SshSignature, X509Signature). */
export interface SignatureRow {
  kind: 'gpg' | 'ssh' | 'x509';
  project: ProjectRow;
  commitSha: string;
  signatureType: 'PGP' | 'SSH' | 'X509';
  verificationStatus: string;
  gpgKeyPrimaryKeyid: string | null;
  gpgKeyUserName: string | null;
  gpgKeyUserEmail: string | null;
  gpgKeySubkeyId: string | null;
  keyFingerprintSha256: string | null;
  /** The owner of the signing key, when the server has it (SSH signatures). */
  userId?: number | null;
}

const SIGNATURE_TYPES = { gpg: 'PGP', ssh: 'SSH', x509: 'X509' } as const;

/** GitLab's contributors read this many of the newest commits (Repository#contributors). */
const CONTRIBUTOR_COMMITS = 2000;

/** What a cherry-pick or revert is called in GitLab's messages. */
const ACTIONS = { cherryPick: { verb: 'cherry-pick', done: 'cherry-picked' }, revert: { verb: 'revert', done: 'reverted' } } as const;

/** `git log %G?` to GitLab's `verification_status`: only a good signature by a trusted key is verified. */
const VERIFICATION: Record<string, string> = { G: 'verified', U: 'unverified_key', X: 'unverified', Y: 'unverified', R: 'revoked_key', E: 'unknown_key', B: 'unverified', N: 'unverified' };

/** A user's name and address from gpg's `Name <address>`. */
function signer(text: string): { name: string | null; email: string | null } {
  const match = /^(.*?)\s*<([^>]*)>\s*$/.exec(text);
  return match ? { name: match[1] || null, email: match[2] || null } : { name: text || null, email: null };
}

/** GitLab's `unidiff`: the patch with its `---`/`+++` file headers (Gitlab::Git::Diff#unidiff). */
export function unidiff(d: FileDiff): FileDiff {
  if (!d.diff || d.diff.startsWith('Binary files')) return d;
  return { ...d, diff: `--- ${d.newFile ? '/dev/null' : `a/${d.oldPath}`}\n+++ ${d.deletedFile ? '/dev/null' : `b/${d.newPath}`}\n${d.diff}` };
}

export class RepositoryHistoryService {
  constructor(
    private readonly base: ServiceBase,
    private readonly repositories: RepositoriesService,
  ) {}

  private async open(project: ProjectRow): Promise<{ repository: Repository; history: RepositoryHistory }> {
    await this.repositories.authorizeRead(project);
    const repository = await this.repositories.open(project);
    return { repository, history: new RepositoryHistory(repository) };
  }

  /** The commit a revision names, or GitLab's `404 Commit Not Found`. */
  private async commitOf(repository: Repository, project: ProjectRow, revision: string): Promise<CommitRow> {
    const commit = await repository.commit(revision);
    if (!commit) throw notFound('Commit');
    return { ...commit, project };
  }

  /**
   * GitLab's file blame: ranges of consecutive lines last changed by one commit, for the whole file or
   * `rangeStart`..`rangeEnd` (an end past the file's last line stops there).
   */
  async blame(project: ProjectRow, filePath: string, ref: string, rangeStart: number | null | undefined, rangeEnd: number | null | undefined): Promise<BlameRangeRow[]> {
    const { repository, history } = await this.open(project);
    const path = checkedPath(filePath, 'filePath');
    // GraphQL and REST's coercion hold both ends present (`range[end] is missing`).
    const hasStart = rangeStart != null && rangeEnd != null;
    const commitId = await repository.resolve(`${ref}^{commit}`);
    if (!commitId) throw notFound('Commit');
    const lines = await history.lineCount(commitId, path);
    if (lines === null) throw notFound('File');
    let range: [number, number] | null = null;
    if (hasStart) {
      if (rangeStart! < 1) throw invalidArgument('range[start]');
      if (rangeEnd! < rangeStart!) throw invalidArgument('range[end]');
      if (rangeStart! > lines) return [];
      range = [rangeStart!, Math.min(rangeEnd!, lines)];
    }
    if (lines === 0) return [];
    const groups = await history.blame(commitId, path, range?.[0] ?? null, range?.[1] ?? null);
    const commits = new Map((await repository.commits([...new Set(groups.map((g) => g.sha))])).map((c) => [c.sha, { ...c, project }]));
    return groups.flatMap((g) => {
      const commit = commits.get(g.sha);
      return commit ? [{ commit, lines: g.lines }] : [];
    });
  }

  /** A commit's changes against its first parent (everything, for a root commit). */
  async diff(project: ProjectRow, sha: string, unified: boolean, page: PageArgs) {
    const { repository } = await this.open(project);
    const commit = await this.commitOf(repository, project, sha);
    const from = commit.parentIds[0] ?? (await repository.text(['hash-object', '-t', 'tree', '-w', '--stdin'], { input: '' }));
    const diffs: FileDiff[] = await repository.diff(from, commit.sha);
    return listConnection(page, unified ? diffs.map(unidiff) : diffs);
  }

  /** The branches and tags containing a commit. */
  async refs(project: ProjectRow, sha: string, type: 'branch' | 'tag' | 'all', page: PageArgs) {
    const { repository, history } = await this.open(project);
    const commit = await this.commitOf(repository, project, sha);
    const refs: ContainingRef[] = await history.refsContaining(commit.sha, type);
    return listConnection(page, refs);
  }

  /** A commit's GPG signature as GitLab shows it; `404 Signature Not Found` for an unsigned commit. */
  async signature(project: ProjectRow, sha: string): Promise<SignatureRow> {
    const { repository } = await this.open(project);
    const commit = await this.commitOf(repository, project, sha);
    const signature = await this.signatureOf(commit);
    if (!signature) throw notFound('Signature');
    return signature;
  }

  /**
   * A commit's signature, or null for an unsigned commit (GitLab's Commit#signature). An SSH signature is verified
   * against users' signing keys (sshVerification); no GPG keys or X.509 certificates are kept, so a GPG signature
   * verifies only against git's own trust (a key no one gave the server is `unknown_key`) and an X.509 one is
   * `unverified`.
   */
  async signatureOf(commit: CommitRow): Promise<SignatureRow | null> {
    const { history } = await this.open(commit.project);
    const signature = await history.signature(commit.sha);
    if (!signature) return null;
    const base = { kind: signature.kind, project: commit.project, commitSha: commit.sha, signatureType: SIGNATURE_TYPES[signature.kind] };
    const none = { gpgKeyPrimaryKeyid: null, gpgKeyUserName: null, gpgKeyUserEmail: null, gpgKeySubkeyId: null, keyFingerprintSha256: null };
    if (signature.kind === 'ssh') return { ...base, ...none, ...(await this.sshVerification(commit, signature.status === 'G', signature.fingerprint)) };
    if (signature.kind === 'x509') return { ...base, ...none, verificationStatus: 'unverified' };
    const who = signer(signature.signer);
    const primary = signature.primaryFingerprint || signature.fingerprint;
    return {
      ...base,
      ...none,
      verificationStatus: VERIFICATION[signature.status] ?? 'unverified',
      gpgKeyPrimaryKeyid: (primary ? primary.slice(-16) : signature.keyId).toUpperCase(),
      gpgKeyUserName: who.name,
      gpgKeyUserEmail: who.email,
      gpgKeySubkeyId: signature.primaryFingerprint && signature.fingerprint && signature.primaryFingerprint !== signature.fingerprint ? signature.fingerprint.slice(-16).toUpperCase() : null,
    };
  }

  /** Merge requests whose changes hold the commit: the product keeps no merge requests, so none, once the commit exists. */
  async mergeRequests(project: ProjectRow, sha: string, page: PageArgs) {
    const { repository } = await this.open(project);
    await this.commitOf(repository, project, sha);
    return listConnection(page, [] as never[]);
  }

  /**
   * Gitlab::Ssh::Signature#verification_status: `unverified` for a bad signature, `unknown_key` when no user's signing
   * key has its fingerprint, `other_user` unless the committer's confirmed address belongs to the key's owner, else
   * `verified`.
   */
  private async sshVerification(commit: CommitRow, good: boolean, fingerprint: string) {
    const keyFingerprintSha256 = fingerprint || null;
    if (!good || !fingerprint) return { verificationStatus: 'unverified', keyFingerprintSha256, userId: null };
    const key = await this.repositories.users.keys.signingKey(fingerprint);
    if (!key) return { verificationStatus: 'unknown_key', keyFingerprintSha256, userId: null };
    const committer = commit.committerEmail ? await this.base.loaders.users.byAnyEmail.load(commit.committerEmail) : null;
    return { verificationStatus: committer?.id === key.userId ? 'verified' : 'other_user', keyFingerprintSha256, userId: key.userId };
  }

  /** GitLab's merge base of two or more refs: 400 for fewer, 400 naming unknown refs, null when they share no ancestor. */
  async mergeBase(project: ProjectRow, refs: readonly string[]): Promise<CommitRow | null> {
    const { repository, history } = await this.open(project);
    // GitLab's CommaSeparatedToArray: `refs=a,b` and `refs[]=a&refs[]=b` alike.
    const names = refs.flatMap((r) => r.split(',').map((s) => s.trim()));
    if (names.length < 2) throw badRequest('Provide at least 2 refs');
    const shas = await Promise.all(names.map((r) => repository.resolve(`${r}^{commit}`)));
    const unknown = names.filter((_, i) => !shas[i]);
    if (unknown.length) throw badRequest(`Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
    const base = await history.mergeBase(shas as string[]);
    return base ? this.commitOf(repository, project, base) : null;
  }

  /**
   * GitLab's contributors: the authors of the newest 2000 commits of a ref that are not merges, one per e-mail
   * address (named as in their newest commit), ordered by `commits` (default), `name` or `email`. GitLab counts no
   * lines: additions and deletions are 0, as its API answers them.
   */
  async contributors(project: ProjectRow, ref: string | null | undefined, orderBy: 'name' | 'email' | 'commits', sort: 'asc' | 'desc', page: PageArgs) {
    const { history } = await this.open(project);
    const byEmail = new Map<string, ContributorRow>();
    for (const author of await history.authors(ref || project.defaultBranch, CONTRIBUTOR_COMMITS)) {
      const row = byEmail.get(author.email) ?? { name: '', email: author.email, commits: 0, additions: 0, deletions: 0 };
      if (!row.name) row.name = author.name;
      row.commits += 1;
      byEmail.set(author.email, row);
    }
    const rows = [...byEmail.values()];
    const key = (row: ContributorRow) => row[orderBy];
    // A stable sort, as Ruby's sort_by is not: ties keep the order of first appearance.
    rows.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    if (sort === 'desc') rows.reverse();
    return listConnection(page, rows);
  }

  /**
   * GitLab's cherry-pick (`message` replaces the default one) and revert of a commit onto a branch: 403 when the
   * viewer may not push to the branch, 404 for an unknown commit or branch, 400 with `error_code` when the change
   * conflicts or changes nothing. A dry run checks all of it and writes nothing.
   */
  async change(project: ProjectRow, action: 'cherryPick' | 'revert', sha: string, branch: string, options: { dryRun?: boolean | null; message?: string | null }): Promise<{ commit: CommitRow | null; dryRun: 'success' | null }> {
    const { repository, history } = await this.open(project);
    const dryRun = options.dryRun ?? false;
    if (!branch) throw argumentRefused('branch', 'is empty');
    // GitLab's authorize_push_to_branch!: push access to the branch (its protection included), before anything else.
    const protection = await this.repositories.branchProtection(project, branch);
    if (!protection.canPush || project.archived || this.repositories.isReadOnly(project)) {
      throw this.base.viewer ? forbidden('You are not allowed to push into this branch') : unauthenticated();
    }
    const commit = await this.commitOf(repository, project, sha);
    const ref = `refs/heads/${branch}`;
    const tip = await repository.resolve(ref);
    if (!tip) throw notFound('Branch');
    const result = await history.changeTree(commit.sha, commit.parentIds, tip, action === 'revert');
    if ('failure' in result) throw this.failure(action, result.failure, dryRun);
    if (dryRun) return { commit: null, dryRun: 'success' };
    const viewer = this.base.viewer;
    const user = viewer && (await this.base.loaders.users.byId.load(viewer.id));
    if (!user) throw notFound('Project');
    const committer = { name: user.name, email: user.email };
    const sha2 =
      action === 'cherryPick'
        ? await history.commitTreeAs(result.tree, tip, options.message || `${commit.message.trimEnd()}\n\n(cherry picked from commit ${commit.sha})`, { name: commit.authorName, email: commit.authorEmail, date: commit.authoredDate }, committer)
        : await history.commitTreeAs(result.tree, tip, `Revert "${(await repository.commitTitle(commit.sha)).trim()}"\n\nThis reverts commit ${commit.sha}`, committer, committer);
    const made = await repository.commit(sha2);
    if (!made) throw notFound('Commit');
    await this.repositories.writes.moveRef(project, repository, user.id, ref, sha2, tip, `Could not update ${ref}. Please refresh and try again.`, true);
    return { commit: { ...made, project }, dryRun: null };
  }

  private failure(action: 'cherryPick' | 'revert', failure: ChangeFailure, dryRun: boolean) {
    const { verb, done } = ACTIONS[action];
    return changeFailed(
      `Sorry, we cannot ${verb} this commit automatically. This commit may already have been ${done}, or a more recent commit may have updated some of its content.`,
      failure,
      dryRun,
    );
  }
}
