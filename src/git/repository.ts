/**
 * One bare repository on disk and the git reads every module shares. Reads and writes go through `git` (src/git/run.ts);
 * modules add what they need here rather than spawning git themselves.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { git, gitText, GitError, spawnGit, type GitOptions, type GitResult } from './run.js';

/** The all-zero object name git uses for "no commit" in ref updates (a created ref's old value, a deleted one's new). */
export const ZERO_SHA = '0000000000000000000000000000000000000000';

const FULL_SHA = /^[0-9a-f]{40}$/;
/** Commits read by full object name, by repository path and name (immutable, so never stale); oldest dropped first. */
const KNOWN_COMMITS = new Map<string, CommitInfo>();
/** Reads of a commit under way, so that concurrent readers (a request and the push job it queued) share one git run. */
const READING_COMMITS = new Map<string, Promise<CommitInfo | null>>();
const KNOWN_COMMITS_LIMIT = 1000;

/** One ref moving from `before` to `after` (either may be ZERO_SHA), with the full ref name (refs/heads/…, refs/tags/…). */
export interface RefUpdate {
  ref: string;
  before: string;
  after: string;
}

/** A commit as git stores it; dates are ISO 8601 with the author's and committer's own offsets. */
/** GitLab's Commit#full_title: the message's first line (`No commit message` for an empty one). */
export function commitFullTitle(message: string): string {
  return message.trim() === '' ? 'No commit message' : message.split(/[\r\n]/, 1)[0];
}

/**
 * GitLab's Commit#title, as its API and webhooks show it: the full title, cut after 80 characters at a word's end
 * with `...` when it has 100 or more (Rails' `truncate(81, separator: ' ', omission: '...')`).
 */
export function commitTitle(message: string): string {
  const full = commitFullTitle(message);
  if ([...full].length < 100) return full;
  const chars = [...full];
  const room = 81 - 3;
  const space = chars.slice(0, room + 1).lastIndexOf(' ');
  return `${chars.slice(0, space >= 0 ? space : room).join('')}...`;
}

export interface CommitInfo {
  sha: string;
  parentIds: string[];
  authorName: string;
  authorEmail: string;
  authoredDate: string;
  committerName: string;
  committerEmail: string;
  committedDate: string;
  message: string;
  /** Git trailers of the message (`Signed-off-by: …`), last value per key, and every value per key. */
  trailers: Record<string, string>;
  extendedTrailers: Record<string, string[]>;
}

/** One entry of a tree: `path` is relative to the repository root. */
export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  path: string;
}

/** Line counts of a change (`git diff --numstat`); binary files count nothing, as GitLab counts them. */
export interface DiffStats {
  additions: number;
  deletions: number;
  total: number;
}

/** One file's change between two trees. */
export interface FileDiff {
  oldPath: string;
  newPath: string;
  aMode: string;
  bMode: string;
  newFile: boolean;
  renamedFile: boolean;
  deletedFile: boolean;
  diff: string;
  /** A change of type (file to symlink or submodule): git patches it as a deletion and a creation. */
  typeChanged?: boolean;
}

/** A change to apply to a tree: a blob (by object name) at a path with a mode, or the path removed. */
export type IndexChange = { path: string; mode: string; sha: string } | { path: string; remove: true };

export interface Signature {
  name: string;
  email: string;
}

export interface LogOptions {
  /** A revision (or range); ignored with `all`. */
  revision: string | null;
  all?: boolean;
  path?: string | null;
  since?: string | null;
  until?: string | null;
  firstParent?: boolean;
  topo?: boolean;
  skip: number;
  max: number;
}

/** Fields of `--format`, separated by NUL; the message (%B) and trailers come last. */
const COMMIT_FORMAT = '%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00%(trailers:only,unfold)%x00';
const COMMIT_FIELDS = 10;

/** Git's ISO dates lack the milliseconds Rails writes (`2024-01-02T03:04:05.000+00:00`). */
function railsTime(iso: string): string {
  return iso.replace(/(T\d\d:\d\d:\d\d)(Z|[+-])/, '$1.000$2').replace(/Z$/, '+00:00');
}

function parseCommits(out: string): CommitInfo[] {
  const fields = out.split('\0');
  const commits: CommitInfo[] = [];
  for (let i = 0; i + COMMIT_FIELDS <= fields.length; i += COMMIT_FIELDS) {
    const f = fields.slice(i, i + COMMIT_FIELDS);
    const trailers: Record<string, string> = {};
    const extendedTrailers: Record<string, string[]> = {};
    for (const line of f[9].split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      trailers[key] = value;
      (extendedTrailers[key] ??= []).push(value);
    }
    commits.push({
      sha: f[0].trim(),
      parentIds: f[1] ? f[1].split(' ') : [],
      authorName: f[2],
      authorEmail: f[3],
      authoredDate: railsTime(f[4]),
      committerName: f[5],
      committerEmail: f[6],
      committedDate: railsTime(f[7]),
      message: f[8],
      trailers,
      extendedTrailers,
    });
  }
  return commits;
}

/** `git ls-tree -z` output: `<mode> <type> <sha>\t<path>` records. */
function parseTree(out: Buffer): TreeEntry[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((record) => {
      const tab = record.indexOf('\t');
      const [mode, type, sha] = record.slice(0, tab).split(' ');
      return { mode, type: type as TreeEntry['type'], sha, path: record.slice(tab + 1) };
    });
}

/** A well-formed full object name (not an abbreviation). */
export function isObjectName(text: string): boolean {
  return /^[0-9a-f]{40}$/.test(text);
}

/** A ref lock older than this was left by a killed git: git holds one for milliseconds while it moves a ref. */
export const STALE_LOCK_MS = 60_000;

export class Repository {
  constructor(readonly path: string) {}

  run(args: readonly string[], options?: GitOptions): Promise<GitResult> {
    return git(this.path, args, options);
  }

  text(args: readonly string[], options?: GitOptions): Promise<string> {
    return gitText(this.path, args, options);
  }

  /** The commit (or tag object) a revision names, or null when it names nothing. */
  async resolve(revision: string): Promise<string | null> {
    if (revision.startsWith('-')) return null;
    const { stdout, code } = await git(this.path, ['rev-parse', '--verify', '--quiet', '--end-of-options', revision], { okCodes: [1, 128] });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  /** Every ref with the object it points at. */
  async refs(prefix = 'refs/'): Promise<Map<string, string>> {
    const out = await gitText(this.path, ['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      if (!line) continue;
      const space = line.indexOf(' ');
      refs.set(line.slice(space + 1), line.slice(0, space));
    }
    return refs;
  }

  /** Whether the repository has no branch yet (GitLab's `empty_repo`). */
  async isEmpty(): Promise<boolean> {
    return (await gitText(this.path, ['for-each-ref', '--count=1', '--format=x', 'refs/heads/'])) === '';
  }

  /** The branch HEAD names (the default branch), whether or not it exists yet. */
  async headBranch(): Promise<string | null> {
    const { stdout, code } = await git(this.path, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okCodes: [1] });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  async setHeadBranch(branch: string): Promise<void> {
    await git(this.path, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }

  /** A commit's subject as git's `%s` shows it: the message's first paragraph, its lines joined by spaces. */
  async commitTitle(sha: string): Promise<string> {
    const message = (await this.commit(sha))?.message ?? '';
    const lines: string[] = [];
    for (const line of message.split('\n')) {
      if (line.trim() === '') {
        if (lines.length > 0) break;
        continue;
      }
      lines.push(line.trimEnd());
    }
    return lines.join(' ');
  }

  /** Commits reachable from `include` and from none of `exclude` (`git rev-list --count`). */
  async countCommits(include: string, exclude: readonly string[]): Promise<number> {
    const out = await gitText(this.path, ['rev-list', '--count', include, '--not', ...exclude, '--']);
    return Number(out);
  }

  /**
   * Whether `ancestor` is reachable from `descendant` (a fast-forward from one to the other). `options.env` lets
   * a push's checks see the objects it brought, still in quarantine (GIT_OBJECT_DIRECTORY and friends).
   */
  async isAncestor(ancestor: string, descendant: string, options: Pick<GitOptions, 'env'> = {}): Promise<boolean> {
    const { code } = await git(this.path, ['merge-base', '--is-ancestor', '--end-of-options', ancestor, descendant], { ...options, okCodes: [1] });
    return code === 0;
  }

  /** The branches (short names) whose tip contains the commit. */
  async branchesContaining(sha: string, options: Pick<GitOptions, 'env'> = {}): Promise<string[]> {
    const out = await gitText(this.path, ['for-each-ref', '--format=%(refname:short)', `--contains=${sha}`, 'refs/heads/'], options);
    return out ? out.split('\n') : [];
  }

  /** The commit a revision names (peeling tags), or null. */
  async commit(revision: string): Promise<CommitInfo | null> {
    // A commit named by its full object name never changes: every job a runner takes reads its pipeline's commit,
    // and each git run forks this (large) process, so those are remembered.
    const key = FULL_SHA.test(revision) ? `${this.path}\0${revision}` : undefined;
    const known = key === undefined ? undefined : KNOWN_COMMITS.get(key);
    if (known) return known;
    if (key === undefined) return this.readCommit(revision);
    let reading = READING_COMMITS.get(key);
    if (!reading) {
      reading = this.readCommit(revision).finally(() => READING_COMMITS.delete(key));
      READING_COMMITS.set(key, reading);
    }
    const info = await reading;
    if (info) {
      if (KNOWN_COMMITS.size >= KNOWN_COMMITS_LIMIT) KNOWN_COMMITS.delete(KNOWN_COMMITS.keys().next().value as string);
      KNOWN_COMMITS.set(key, info);
    }
    return info;
  }

  /** One git run: the commit `revision` names (peeling tags), or null when it names none. */
  private async readCommit(revision: string): Promise<CommitInfo | null> {
    if (revision.startsWith('-')) return null;
    const { stdout, code } = await git(this.path, ['show', '-s', `--format=${COMMIT_FORMAT}`, '--end-of-options', `${revision}^{commit}`], { okCodes: [128] });
    return code === 0 ? (parseCommits(stdout.toString('utf8'))[0] ?? null) : null;
  }

  /** Several commits by full object name, in one run. */
  async commits(shas: readonly string[]): Promise<CommitInfo[]> {
    if (shas.length === 0) return [];
    const out = await gitText(this.path, ['show', '-s', '--no-walk=unsorted', `--format=${COMMIT_FORMAT}`, '--stdin'], { input: `${shas.join('\n')}\n` });
    return parseCommits(out);
  }

  private logArgs(options: Omit<LogOptions, 'skip' | 'max'>): string[] {
    const args: string[] = [];
    if (options.since) args.push(`--since=${options.since}`);
    if (options.until) args.push(`--until=${options.until}`);
    if (options.firstParent) args.push('--first-parent');
    if (options.topo) args.push('--topo-order');
    if (options.all) args.push('--all');
    else if (options.revision) args.push('--end-of-options', options.revision);
    args.push('--');
    if (options.path) args.push(options.path);
    return args;
  }

  /** A page of `git log`, newest first; an unknown revision gives no commits. */
  async log(options: LogOptions): Promise<CommitInfo[]> {
    if (!options.all && options.revision && (await this.resolve(options.revision.split('..')[0] || 'HEAD')) === null) return [];
    const { stdout, code } = await git(
      this.path,
      ['log', `--format=${COMMIT_FORMAT}`, `--skip=${options.skip}`, `--max-count=${options.max}`, ...this.logArgs(options)],
      { okCodes: [128] },
    );
    return code === 0 ? parseCommits(stdout.toString('utf8')) : [];
  }

  /** How many commits `log` would list without paging. */
  async countLog(options: Omit<LogOptions, 'skip' | 'max'>): Promise<number> {
    const { stdout, code } = await git(this.path, ['rev-list', '--count', ...this.logArgs(options)], { okCodes: [128] });
    return code === 0 ? Number(stdout.toString('utf8').trim()) : 0;
  }

  /** Lines added and removed by a commit against its first parent (everything, for a root commit). */
  async stats(sha: string): Promise<DiffStats> {
    const out = await gitText(this.path, ['diff-tree', '--no-commit-id', '--numstat', '-r', '--root', '-z', sha]);
    let additions = 0;
    let deletions = 0;
    for (const record of out.split('\0')) {
      const match = /^(\d+|-)\t(\d+|-)\t/.exec(record);
      if (!match) continue;
      additions += match[1] === '-' ? 0 : Number(match[1]);
      deletions += match[2] === '-' ? 0 : Number(match[2]);
    }
    return { additions, deletions, total: additions + deletions };
  }

  /**
   * The entries of the tree at `path` in `revision` (recursively with `recursive`, directories included), or
   * null when the revision or the path names no tree.
   */
  async tree(revision: string, path: string, recursive: boolean): Promise<TreeEntry[] | null> {
    const treeish = path ? `${revision}:${path}` : `${revision}^{tree}`;
    const sha = await this.resolve(treeish);
    if (!sha || (await this.objectType(sha)) !== 'tree') return null;
    const { stdout } = await git(this.path, ['ls-tree', '-z', ...(recursive ? ['-r', '-t'] : []), sha]);
    const prefix = path ? `${path.replace(/\/+$/, '')}/` : '';
    return parseTree(stdout).map((e) => ({ ...e, path: prefix + e.path }));
  }

  /**
   * The file at `path` in `revision` in one `git cat-file --batch` run (one process, where resolving, typing, sizing
   * and reading it take four): its bytes, or null when there is no such blob or it is larger than `max` bytes.
   */
  async fileAt(revision: string, path: string, max: number): Promise<Buffer | null> {
    if (/[\n\r]/.test(revision + path)) return null;
    let stdout: Buffer;
    try {
      ({ stdout } = await git(this.path, ['cat-file', '--batch'], { input: `${revision}:${path}\n`, maxOutput: max + 128 }));
    } catch (error) {
      if (error instanceof GitError && error.stderr.startsWith('output exceeds')) return null;
      throw error;
    }
    const header = stdout.indexOf(0x0a);
    const [, type, size] = stdout.subarray(0, header).toString('utf8').split(' ');
    if (type !== 'blob' || Number(size) > max) return null;
    return stdout.subarray(header + 1, header + 1 + Number(size));
  }

  /**
   * Every file path (blobs, as Gitaly's ListFiles: no submodules) of the commit's tree, from one `git ls-tree -r` of
   * at most `max` bytes; null when the revision names no tree or the listing is longer.
   */
  async filePaths(revision: string, max: number): Promise<string[] | null> {
    try {
      const { stdout, code } = await git(this.path, ['ls-tree', '-r', '-z', '--full-tree', '--end-of-options', revision], { maxOutput: max, okCodes: [128] });
      if (code !== 0) return null;
      return parseTree(stdout)
        .filter((entry) => entry.type === 'blob')
        .map((entry) => entry.path);
    } catch (error) {
      if (error instanceof GitError && error.stderr.startsWith('output exceeds')) return null;
      throw error;
    }
  }

  /**
   * Every blob's path and size in a commit's tree, from one `git ls-tree -r -l` of at most `max` bytes; null when the
   * revision names no tree or the listing is longer.
   */
  async fileSizes(revision: string, max: number): Promise<{ path: string; size: number }[] | null> {
    try {
      const { stdout, code } = await git(this.path, ['ls-tree', '-r', '-l', '-z', '--full-tree', '--end-of-options', revision], { maxOutput: max, okCodes: [128] });
      if (code !== 0) return null;
      return stdout
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .flatMap((record) => {
          const tab = record.indexOf('\t');
          const [, type, , size] = record.slice(0, tab).split(/ +/);
          return type === 'blob' ? [{ path: record.slice(tab + 1), size: Number(size) }] : [];
        });
    } catch (error) {
      if (error instanceof GitError && error.stderr.startsWith('output exceeds')) return null;
      throw error;
    }
  }

  /** The entries at exactly these paths in a commit (a directory shows as its tree entry); missing paths are absent. */
  async entries(revision: string, paths: readonly string[]): Promise<Map<string, TreeEntry>> {
    const found = new Map<string, TreeEntry>();
    if (paths.length === 0) return found;
    const { stdout } = await git(this.path, ['ls-tree', '-z', '--full-tree', '--end-of-options', revision, '--', ...paths.map((p) => `:(literal)${p}`)]);
    for (const entry of parseTree(stdout)) found.set(entry.path, entry);
    return found;
  }

  async objectType(sha: string): Promise<string | null> {
    const { stdout, code } = await git(this.path, ['cat-file', '-t', sha], { okCodes: [128] });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  /** A blob's bytes (at most `max` of them, else null), or null when `sha` names no blob. */
  async blob(sha: string, max?: number): Promise<Buffer | null> {
    if ((await this.objectType(sha)) !== 'blob') return null;
    if (max !== undefined && (await this.blobSize(sha)) > max) return null;
    return (await git(this.path, ['cat-file', 'blob', sha], max !== undefined ? { maxOutput: max } : {})).stdout;
  }

  /**
   * The first `limit` bytes of a blob and its whole size (Gitaly's GetBlobs with a limit, which GitLab's blob reads
   * use): git is stopped once `limit` bytes came, so a large blob is never read whole. Null when `sha` names no blob.
   */
  async blobHead(sha: string, limit: number): Promise<{ data: Buffer; size: number } | null> {
    if ((await this.objectType(sha)) !== 'blob') return null;
    const size = await this.blobSize(sha);
    if (size <= limit) return { data: (await git(this.path, ['cat-file', 'blob', sha])).stdout, size };
    const child = spawnGit(this.path, ['cat-file', 'blob', sha]);
    const chunks: Buffer[] = [];
    let got = 0;
    await new Promise<void>((resolve) => {
      const done = () => {
        child.stdout.removeAllListeners('data');
        child.kill('SIGKILL');
        resolve();
      };
      child.stdout.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        got += chunk.length;
        if (got >= limit) done();
      });
      child.stdout.on('end', done);
      child.on('error', done);
    });
    return { data: Buffer.concat(chunks).subarray(0, limit), size };
  }

  /**
   * The contents of those of `shas` that are blobs of at most `max` bytes, from one `cat-file --batch-check` and one
   * `cat-file --batch` run (how Gitaly finds LFS pointers among many blobs).
   */
  async smallBlobs(shas: readonly string[], max: number): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    const wanted = [...new Set(shas)].filter(isObjectName);
    if (wanted.length === 0) return found;
    const check = await gitText(this.path, ['cat-file', '--batch-check'], { input: `${wanted.join('\n')}\n` });
    const small = check
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, type, size]) => type === 'blob' && Number(size) <= max)
      .map(([sha]) => sha);
    if (small.length === 0) return found;
    const { stdout } = await git(this.path, ['cat-file', '--batch'], { input: `${small.join('\n')}\n` });
    let at = 0;
    while (at < stdout.length) {
      const eol = stdout.indexOf(0x0a, at);
      if (eol < 0) break;
      const [sha, , size] = stdout.subarray(at, eol).toString('utf8').split(' ');
      const length = Number(size);
      found.set(sha, stdout.subarray(eol + 1, eol + 1 + length));
      at = eol + 1 + length + 1;
    }
    return found;
  }

  async blobSize(sha: string): Promise<number> {
    return Number(await gitText(this.path, ['cat-file', '-s', sha]));
  }

  /** The last commit reachable from `revision` that changed `path`. */
  async lastCommitFor(revision: string, path: string): Promise<string | null> {
    const out = await gitText(this.path, ['log', '-1', '--format=%H', '--end-of-options', revision, '--', `:(literal)${path}`]);
    return out || null;
  }

  /** The paths that differ between two commits (both sides of a rename), or null when either is unknown. */
  async changedPaths(from: string, to: string): Promise<string[] | null> {
    const { stdout, code } = await git(this.path, ['diff-tree', '-r', '--name-only', '--no-commit-id', '-z', '--end-of-options', from, to], { okCodes: [128] });
    if (code !== 0) return null;
    return stdout.toString('utf8').split('\0').filter(Boolean);
  }

  /** Per-file changes from one tree-ish to another, with their patches (renames detected). */
  async diff(from: string, to: string): Promise<FileDiff[]> {
    const files: FileDiff[] = (await this.diffEntries(from, to)).map(({ typeChanged: _typeChanged, ...file }) => file);
    await Promise.all(
      files.map(async (f) => {
        const patch = await gitText(this.path, ['diff', '-M', '--no-color', '--full-index', from, to, '--', `:(literal)${f.oldPath}`, `:(literal)${f.newPath}`]);
        // GitLab's `diff` holds the hunks only: from the first `@@` on.
        const hunk = patch.indexOf('\n@@');
        f.diff = hunk >= 0 ? `${patch.slice(hunk + 1)}\n` : '';
      }),
    );
    return files;
  }

  /** The per-file changes from one tree-ish to another (renames detected), without their patches (`--raw`). */
  async diffEntries(from: string, to: string): Promise<FileDiff[]> {
    const raw = await gitText(this.path, ['diff-tree', '-r', '-M', '-z', '--no-commit-id', '--end-of-options', from, to]);
    const records = raw.split('\0');
    const files: FileDiff[] = [];
    for (let i = 0; i < records.length; ) {
      const head = records[i++];
      if (!head.startsWith(':')) continue;
      const [aMode, bMode, , , status] = head.slice(1).split(' ');
      const oldPath = records[i++];
      const newPath = status.startsWith('R') || status.startsWith('C') ? records[i++] : oldPath;
      files.push({ oldPath, newPath, aMode, bMode, newFile: status === 'A', deletedFile: status === 'D', renamedFile: status.startsWith('R'), diff: '', typeChanged: status === 'T' });
    }
    return files;
  }

  /**
   * Streams the patches of `listed` (as `diffEntries` lists them) from one `git diff-tree -p`, in order: `visit` gets
   * each file with its hunks (from the first `@@` on) and their size in bytes; hunks of `keepBytes` or more are not
   * kept (`diff` is empty, `bytes` still counts them). `visit` returning false ends git there: only what was visited
   * was read, and at most one patch (up to `keepBytes`) is held at a time.
   */
  async streamPatches(from: string, to: string, listed: readonly FileDiff[] | Promise<readonly FileDiff[]>, keepBytes: number, visit: (file: FileDiff, bytes: number, index: number) => boolean): Promise<void> {
    // The list first, then git: a git started before it would hold a slot of the bounded git spawner (released when
    // its output is read) while the list's git waited for one, and with one slot free neither would ever run.
    const files = await listed;
    if (files.length === 0) return;
    const child = spawnGit(this.path, ['diff-tree', '-r', '-M', '-p', '--no-color', '--full-index', '--no-commit-id', '--end-of-options', from, to]);
    const decoder = new StringDecoder('utf8');
    let index = -1;
    let headers = 0;
    let inHunks = false;
    let kept: string[] = [];
    let keeping = true;
    let bytes = 0;
    let rest = '';
    let stopped = false;
    const finish = (): void => {
      if (index < 0 || stopped) return;
      const file = files[index];
      if (!file) return;
      const diff = keeping && bytes < keepBytes ? kept.join('') : '';
      kept = [];
      if (!visit({ ...file, diff }, bytes, index)) stopped = true;
    };
    const line = (text: string): void => {
      if (text.startsWith('diff --git ')) {
        // A change of type (file to symlink, to submodule) is two patches: a deletion and a creation.
        const expected = files[index]?.typeChanged ? 2 : 1;
        if (index >= 0 && headers < expected) {
          headers++;
          inHunks = false;
          return;
        }
        finish();
        if (stopped) return;
        index++;
        headers = 1;
        inHunks = false;
        kept = [];
        keeping = true;
        bytes = 0;
        return;
      }
      if (!inHunks) {
        if (!text.startsWith('@@')) return;
        inHunks = true;
      }
      const size = Buffer.byteLength(text) + 1;
      bytes += size;
      if (!keeping) return;
      if (bytes >= keepBytes) {
        keeping = false;
        kept = [];
        return;
      }
      kept.push(`${text}\n`);
    };
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', () => resolve());
      child.stderr.resume();
      child.stdout.on('data', (chunk: Buffer) => {
        if (stopped) return;
        const text = rest + decoder.write(chunk);
        let start = 0;
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
          line(text.slice(start, nl));
          start = nl + 1;
          if (stopped) break;
        }
        rest = stopped ? '' : text.slice(start);
        if (stopped) {
          child.kill('SIGKILL');
          child.stdout.resume();
        }
      });
      child.stdout.on('end', () => {
        if (stopped) return;
        if (rest) line(rest);
        finish();
      });
    });
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const { stdout, code } = await git(this.path, ['merge-base', a, b], { okCodes: [1] });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  /**
   * The tree of merging two commits from their merge base (`git merge-tree --write-tree`: in memory, no working tree
   * or index), or null when they conflict or share no history.
   */
  async mergeTree(ours: string, theirs: string): Promise<string | null> {
    const { stdout, code } = await git(this.path, ['merge-tree', '--write-tree', '--no-messages', ours, theirs], { okCodes: [1, 128] });
    return code === 0 ? stdout.toString('utf8').split('\n')[0].trim() : null;
  }

  /** Writes a blob and returns its object name. */
  async writeBlob(content: Buffer): Promise<string> {
    return gitText(this.path, ['hash-object', '-w', '--stdin'], { input: content });
  }

  /**
   * Writes the tree of `base` (a commit, or none for an empty tree) with `changes` applied, through a temporary
   * index outside the repository: no working tree, and nothing but unreferenced objects is left by a crash.
   */
  async writeTree(base: string | null, changes: readonly IndexChange[]): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'git-index-'));
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    try {
      await git(this.path, base ? ['read-tree', base] : ['read-tree', '--empty'], { env });
      const lines = changes.map((c) => ('remove' in c ? `0 ${ZERO_SHA}\t${c.path}` : `${c.mode} ${c.sha}\t${c.path}`));
      if (lines.length) await git(this.path, ['update-index', '-z', '--index-info'], { env, input: lines.join('\0') + '\0' });
      return await gitText(this.path, ['write-tree'], { env });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Writes a commit object (not yet on any ref). */
  async commitTree(tree: string, parents: readonly string[], message: string, author: Signature, committer: Signature): Promise<string> {
    const env = { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email };
    return gitText(this.path, ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], { env, input: message });
  }

  /** Writes an annotated tag object for `target` and returns its object name. */
  async writeTag(name: string, target: string, message: string, tagger: Signature): Promise<string> {
    const type = await this.objectType(target);
    const body = `object ${target}\ntype ${type}\ntag ${name}\ntagger ${tagger.name} <${tagger.email}> ${Math.floor(Date.now() / 1000)} +0000\n\n${message.endsWith('\n') ? message : `${message}\n`}`;
    return gitText(this.path, ['mktag'], { input: body });
  }

  /**
   * Moves `ref` to `after` only if it is still at `before` (ZERO_SHA: only if it does not exist; `after` ZERO_SHA
   * deletes it). Git locks the ref and compares under the lock, so of two writers that read the same `before`
   * one wins and the other gets false. The objects are written first: a crash leaves the ref where it was.
   */
  async updateRef(ref: string, after: string, before: string): Promise<boolean> {
    const args = after === ZERO_SHA ? ['update-ref', '-d', ref, before] : ['update-ref', ref, after, before];
    for (let attempt = 0; ; attempt++) {
      try {
        await git(this.path, args);
        return true;
      } catch (error) {
        if (!(error instanceof GitError) || error.code !== 128) throw error;
        // A lock a killed git left behind would refuse every later write of the ref: removed, then once more.
        if (attempt === 0 && error.stderr.includes('.lock') && (await this.clearStaleLocks([ref]))) continue;
        return false;
      }
    }
  }

  /**
   * Removes the locks of these refs (and of packed-refs, which deletions take) that a killed git left behind: older
   * than STALE_LOCK_MS, which no git this server runs holds a ref lock for. True when one was removed.
   */
  async clearStaleLocks(refs: readonly string[]): Promise<boolean> {
    let cleared = false;
    for (const name of [...refs, 'packed-refs']) {
      if (name !== 'packed-refs' && !(name.startsWith('refs/') && !name.split('/').includes('..'))) continue;
      const lock = join(this.path, `${name}.lock`);
      const info = await stat(lock).catch(() => null);
      if (!info || Date.now() - info.mtimeMs < STALE_LOCK_MS) continue;
      await unlink(lock).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      cleared = true;
    }
    return cleared;
  }

  /** Whether `ref` (a full ref name) is one git accepts (`git check-ref-format`). */
  async validRefName(ref: string): Promise<boolean> {
    if (!ref.startsWith('refs/')) return false;
    const { code } = await git(this.path, ['check-ref-format', ref], { okCodes: [1] });
    return code === 0;
  }

  /** Refs under `prefix` with what they point at; for tags, also the commit an annotated tag peels to and its message. */
  async refDetails(prefix: string): Promise<{ ref: string; name: string; sha: string; peeled: string; type: string; message: string; taggerDate: string }[]> {
    const format = '%(refname)%00%(refname:strip=2)%00%(objectname)%00%(*objectname)%00%(objecttype)%00%(contents)%00%(taggerdate:iso-strict)%00';
    const out = await gitText(this.path, ['for-each-ref', `--format=${format}`, prefix]);
    const fields = out.split('\0');
    const refs = [];
    for (let i = 0; i + 7 <= fields.length; i += 7) {
      const [ref, name, sha, peeled, type, message, taggerDate] = fields.slice(i, i + 7);
      refs.push({ ref: ref.replace(/^\n/, ''), name, sha, peeled: peeled || sha, type, message, taggerDate });
    }
    return refs;
  }
}

/** A run of consecutive lines that one commit last changed (GitLab's blame group). */
export interface BlameGroup {
  sha: string;
  lines: string[];
}

/** One ref containing a commit. */
export interface ContainingRef {
  type: 'branch' | 'tag';
  name: string;
}

/** Why a cherry-pick or revert could not make a commit: its changes conflict, or leave the tree as it was. */
export type ChangeFailure = 'conflict' | 'empty';

/** Commits of the history operations (blame, refs, merge bases, cherry-picks and reverts), on top of Repository. */
export class RepositoryHistory {
  constructor(readonly repository: Repository) {}

  private get path(): string {
    return this.repository.path;
  }

  /** `git blame --porcelain` of a file at a commit, lines `start`..`end` (1-based, inclusive; null: all), grouped by commit. */
  async blame(commit: string, path: string, start: number | null, end: number | null): Promise<BlameGroup[]> {
    const range = start !== null && end !== null ? ['-L', `${start},${end}`] : [];
    // blame takes a path, not a pathspec: no magic to escape.
    const out = await git(this.path, ['blame', '--porcelain', ...range, commit, '--', path]);
    const groups: BlameGroup[] = [];
    let current: string | null = null;
    for (const line of out.stdout.toString('utf8').split('\n')) {
      if (line.startsWith('\t')) {
        const text = line.slice(1);
        const last = groups.at(-1);
        if (last && last.sha === current) last.lines.push(text);
        else groups.push({ sha: current!, lines: [text] });
        continue;
      }
      const header = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
      if (header) current = header[1];
    }
    return groups;
  }

  /** How many lines a blob has (as `git blame` counts them: a last line without newline counts). */
  async lineCount(commit: string, path: string): Promise<number | null> {
    const entry = (await this.repository.entries(commit, [path])).get(path);
    if (entry?.type !== 'blob') return null;
    const content = await this.repository.blob(entry.sha);
    if (!content || content.length === 0) return 0;
    let count = 0;
    for (const byte of content) if (byte === 10) count++;
    return content[content.length - 1] === 10 ? count : count + 1;
  }

  /** The branches and tags whose tip contains the commit, branches first, each by name. */
  async refsContaining(sha: string, type: 'branch' | 'tag' | 'all'): Promise<ContainingRef[]> {
    const prefixes = type === 'branch' ? ['refs/heads/'] : type === 'tag' ? ['refs/tags/'] : ['refs/heads/', 'refs/tags/'];
    const out = await gitText(this.path, ['for-each-ref', '--format=%(refname)', `--contains=${sha}`, ...prefixes]);
    const refs: ContainingRef[] = [];
    for (const ref of out ? out.split('\n') : []) {
      if (ref.startsWith('refs/heads/')) refs.push({ type: 'branch', name: ref.slice('refs/heads/'.length) });
      else if (ref.startsWith('refs/tags/')) refs.push({ type: 'tag', name: ref.slice('refs/tags/'.length) });
    }
    return refs.sort((a, b) => (a.type === b.type ? 0 : a.type === 'branch' ? -1 : 1));
  }

  /** The best common ancestor of several commits (`git merge-base --octopus`), or null when they share none. */
  async mergeBase(shas: readonly string[]): Promise<string | null> {
    const { stdout, code } = await git(this.path, ['merge-base', ...(shas.length > 2 ? ['--octopus'] : []), '--end-of-options', ...shas], { okCodes: [1] });
    return code === 0 ? stdout.toString('utf8').trim().split('\n')[0] || null : null;
  }

  /** Author name and e-mail of the newest `max` commits of a revision that are not merges, newest first. */
  async authors(revision: string, max: number): Promise<{ name: string; email: string }[]> {
    const { stdout, code } = await git(this.path, ['log', '--no-merges', `--max-count=${max}`, '--format=%an%x00%ae%x00', '--end-of-options', revision, '--'], { okCodes: [128] });
    if (code !== 0) return [];
    const fields = stdout.toString('utf8').split('\0');
    const authors = [];
    for (let i = 0; i + 2 <= fields.length; i += 2) authors.push({ name: fields[i].replace(/^\n/, ''), email: fields[i + 1] });
    return authors;
  }

  /**
   * The tree of applying `commit`'s change (cherry-pick) or its inverse (revert) onto `onto`, by a three-way merge
   * in memory (`git merge-tree --write-tree`): no working tree, no index. `mainline` picks the parent of a merge.
   */
  async changeTree(commit: string, parents: readonly string[], onto: string, revert: boolean): Promise<{ tree: string } | { failure: ChangeFailure }> {
    // A merge commit is taken against its first parent, as GitLab (Gitaly) does; a root commit against the empty tree.
    const parent = parents[0] ?? (await this.emptyTree());
    const [base, theirs] = revert ? [commit, parent] : [parent, commit];
    // git 2.39's merge-tree finds the merge base itself: two unreferenced commits on one of `base`'s tree make it
    // that base (git 2.40's --merge-base does the same).
    const synthetic = { GIT_AUTHOR_NAME: 'merge', GIT_AUTHOR_EMAIL: 'merge@localhost', GIT_COMMITTER_NAME: 'merge', GIT_COMMITTER_EMAIL: 'merge@localhost', GIT_AUTHOR_DATE: '@0 +0000', GIT_COMMITTER_DATE: '@0 +0000' };
    const tree = (rev: string) => `${rev}^{tree}`;
    const root = await gitText(this.path, ['commit-tree', tree(base)], { env: synthetic, input: 'base' });
    const [ours, other] = await Promise.all([
      gitText(this.path, ['commit-tree', tree(onto), '-p', root], { env: synthetic, input: 'ours' }),
      gitText(this.path, ['commit-tree', tree(theirs), '-p', root], { env: synthetic, input: 'theirs' }),
    ]);
    const { stdout, code } = await git(this.path, ['merge-tree', '--write-tree', '--no-messages', ours, other], { okCodes: [1] });
    if (code === 1) return { failure: 'conflict' };
    const merged = stdout.toString('utf8').split('\n')[0].trim();
    const current = await gitText(this.path, ['rev-parse', tree(onto)]);
    return merged === current ? { failure: 'empty' } : { tree: merged };
  }

  private async emptyTree(): Promise<string> {
    return gitText(this.path, ['hash-object', '-t', 'tree', '-w', '--stdin'], { input: '' });
  }

  /**
   * A commit object with the author of the original (`author` with its date) or of the committer, for cherry-picks
   * (which keep the picked commit's author and date) and reverts (the reverting user's).
   */
  async commitTreeAs(tree: string, parent: string, message: string, author: Signature & { date?: string }, committer: Signature): Promise<string> {
    const env: Record<string, string> = { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email };
    if (author.date) env.GIT_AUTHOR_DATE = author.date;
    return gitText(this.path, ['commit-tree', tree, '-p', parent], { env, input: message });
  }

  /**
   * A commit's signature as git reads it (`%G?` and friends), or null when the commit carries none. Its kind comes
   * from the signature's armor: GPG, SSH (whose key is named by the SHA-256 fingerprint of the public key the
   * signature carries) or X.509; only GPG signatures are checked by git here.
   */
  async signature(sha: string): Promise<CommitSignatureInfo | null> {
    const raw = await gitText(this.path, ['cat-file', 'commit', sha]);
    const headers = raw.slice(0, raw.indexOf('\n\n') === -1 ? raw.length : raw.indexOf('\n\n'));
    const header = /^gpgsig(?:-sha256)? ([^\n]*(?:\n [^\n]*)*)/m.exec(headers);
    if (!header) return null;
    const armored = header[1].replace(/\n /g, '\n');
    const none = { status: 'E', keyId: '', fingerprint: '', primaryFingerprint: '', signer: '' };
    if (armored.startsWith('-----BEGIN SSH SIGNATURE-----')) return this.sshSignature(sha, armored, none);
    if (armored.startsWith('-----BEGIN SIGNED MESSAGE-----')) return { kind: 'x509', ...none };
    // gpg verifies with a keyring of its own for this run, outside the repository (it would make one in HOME): a
    // signature by a key nobody gave the server is `E` (unknown key), as GitLab answers for a key no user added.
    const keyring = await mkdtemp(join(tmpdir(), 'git-gpg-'));
    try {
      const out = await gitText(this.path, ['show', '-s', '--format=%G?%x00%GK%x00%GF%x00%GP%x00%GS', sha], { env: { GNUPGHOME: keyring } });
      const [status, keyId, fingerprint, primaryFingerprint, signer] = out.split('\0');
      return { kind: 'gpg', status, keyId, fingerprint, primaryFingerprint, signer };
    } finally {
      await rm(keyring, { recursive: true, force: true });
    }
  }

  /**
   * An SSH signature: the SHA-256 fingerprint of the key it carries, and whether it is a good signature of the commit
   * by that key (`G`) or not (`B`), as git checks it with ssh-keygen against that key alone.
   */
  private async sshSignature(sha: string, armored: string, none: Omit<CommitSignatureInfo, 'kind'>): Promise<CommitSignatureInfo> {
    const key = sshSignatureKey(armored);
    if (!key) return { kind: 'ssh', ...none, status: 'B' };
    const fingerprint = `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
    const type = key.subarray(4, 4 + key.readUInt32BE(0)).toString('latin1');
    const dir = await mkdtemp(join(tmpdir(), 'git-ssh-'));
    try {
      const signers = join(dir, 'allowed_signers');
      await writeFile(signers, `* ${type} ${key.toString('base64')}\n`);
      const status = await gitText(this.path, ['-c', 'gpg.format=ssh', '-c', `gpg.ssh.allowedSignersFile=${signers}`, 'show', '-s', '--format=%G?', sha]);
      return { kind: 'ssh', ...none, status: status.trim() === 'G' ? 'G' : 'B', fingerprint };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** The public key inside an armored SSH signature (OpenSSH's SSHSIG blob: `SSHSIG`, a version, then the key as an SSH string). */
function sshSignatureKey(armored: string): Buffer | null {
  const body = armored.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const blob = Buffer.from(body, 'base64');
  if (blob.length < 14 || blob.subarray(0, 6).toString('latin1') !== 'SSHSIG') return null;
  const length = blob.readUInt32BE(10);
  const key = blob.subarray(14, 14 + length);
  return key.length === length && key.length >= 4 ? key : null;
}

/** What git tells of a commit's signature: its kind, git's `%G?` status and the signing key and identity. */
export interface CommitSignatureInfo {
  kind: 'gpg' | 'ssh' | 'x509';
  status: string;
  keyId: string;
  fingerprint: string;
  primaryFingerprint: string;
  signer: string;
}

