/**
 * Reading a project's code: commits, trees, files, blobs, branches, tags and comparisons, each after the viewer's
 * `download_code` check (RepositoriesService.authorizeRead). Values carry their project, so web URLs and
 * `project_id` resolve without another lookup.
 */
import { createHash } from 'node:crypto';
import DataLoader from 'dataloader';
import { notFound } from '../../errors.js';
import { connection, listConnection, type PageArgs } from '../../graphql/connection.js';
import type { CommitInfo, FileDiff, Repository, TreeEntry } from '../../git/repository.js';
import type { ProjectRow } from '../projects/service.js';
import { LFS_POINTER_MAX_SIZE, lfsPointer, MAX_DATA_DISPLAY_SIZE } from './blob-viewers.js';
import { repositoryLanguages } from './languages.js';
import { checkedPath, pathProblem } from './paths.js';
import type { RepositoriesService } from './service.js';

export interface CommitRow extends CommitInfo {
  project: ProjectRow;
}

export interface FileRow {
  project: ProjectRow;
  ref: string;
  filePath: string;
  blobId: string;
  commitId: string;
  lastCommitId: string;
  mode: string;
  content: Buffer;
}

export interface BlobRow {
  project: ProjectRow;
  sha: string;
  path: string;
  /** The ref it was read at, as asked (GitLab's blob.commit_id); null for a blob found by object name. */
  ref: string | null;
  /** Its bytes: at most MAX_DATA_DISPLAY_SIZE of them for a blob read by path, as GitLab's blobs_at loads them. */
  content: Buffer;
  /** Its whole size in bytes. */
  size: number;
  mode: string | null;
}

export interface RefRow {
  project: ProjectRow;
  name: string;
  /** What the ref points at: a commit, or an annotated tag's object. */
  target: string;
  commit: CommitRow;
  message: string | null;
  createdAt: string | null;
}

export interface CommitFilters {
  refName?: string | null;
  since?: string | null;
  until?: string | null;
  path?: string | null;
  all?: boolean | null;
  firstParent?: boolean | null;
  order?: 'default' | 'topo' | null;
}

/** A Redis glob (`*`, `?`, `[…]`, `\\` escaping) as a regular expression matching whole names. */
function globPattern(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '\\' && i + 1 < glob.length) source += escapeRegExp(glob[++i]);
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) source += '\\[';
      else {
        const body = glob.slice(i + 1, end);
        source += `[${body.startsWith('^') ? '^' : ''}${escapeClass(body.replace(/^\^/, ''))}]`;
        i = end;
      }
    } else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`, 's');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const escapeClass = (text: string) => text.replace(/[\]\\^]/g, '\\$&');

/** `search` as GitLab reads it for branches and tags: `^prefix`, `suffix$`, or a fragment anywhere. */
function matchesSearch(name: string, search: string | null | undefined): boolean {
  if (!search) return true;
  const term = search.toLowerCase();
  const n = name.toLowerCase();
  if (term.startsWith('^') && term.endsWith('$') && term.length > 1) return n === term.slice(1, -1);
  if (term.startsWith('^')) return n.startsWith(term.slice(1));
  if (term.endsWith('$')) return n.endsWith(term.slice(0, -1));
  return n.includes(term);
}

export { listConnection };

export class RepositoryReads {
  constructor(private readonly repositories: RepositoriesService) {}

  /** The repository after the viewer's read check. */
  private async open(project: ProjectRow): Promise<Repository> {
    await this.repositories.authorizeRead(project);
    return this.repositories.open(project);
  }

  private withProject(project: ProjectRow, commits: CommitInfo[]): CommitRow[] {
    return commits.map((c) => ({ ...c, project }));
  }

  async commit(project: ProjectRow, revision: string): Promise<CommitRow | null> {
    const repository = await this.open(project);
    const commit = await repository.commit(revision);
    return commit && { ...commit, project };
  }

  /** GitLab's commit list: the default branch unless `refName` or `all`; newest first. */
  async commits(project: ProjectRow, filters: CommitFilters, page: PageArgs) {
    const repository = await this.open(project);
    const options = {
      revision: filters.all ? null : filters.refName || project.defaultBranch,
      all: filters.all ?? false,
      path: filters.path,
      since: filters.since,
      until: filters.until,
      firstParent: filters.firstParent ?? false,
      topo: filters.order === 'topo',
    };
    return connection(
      page,
      async ({ skip, take }) => this.withProject(project, await repository.log({ ...options, skip, max: take })),
      () => repository.countLog(options),
    );
  }

  async stats(commit: CommitRow) {
    return (await this.open(commit.project)).stats(commit.sha);
  }

  /** A commit's parents as commits (the REST compare and GraphQL need them as objects). */
  async commitsBySha(project: ProjectRow, shas: readonly string[]): Promise<CommitRow[]> {
    return this.withProject(project, await (await this.open(project)).commits(shas));
  }

  /** The entries of a directory at a revision (trees first, then blobs, then submodules, as GitLab sorts them); null when there is none. */
  async tree(project: ProjectRow, ref: string | null | undefined, path: string | null | undefined, recursive: boolean): Promise<TreeEntry[] | null> {
    const repository = await this.open(project);
    const dir = path ? checkedPath(path.replace(/\/+$/, ''), 'path') : '';
    const entries = await repository.tree(ref || project.defaultBranch, dir, recursive);
    if (!entries) return null;
    const rank = { tree: 0, blob: 1, commit: 2 };
    return entries.map((e, i) => ({ e, i })).sort((a, b) => rank[a.e.type] - rank[b.e.type] || a.i - b.i).map((x) => x.e);
  }

  async treeConnection(project: ProjectRow, ref: string | null | undefined, path: string | null | undefined, recursive: boolean, page: PageArgs) {
    const entries = await this.tree(project, ref, path, recursive);
    if (!entries) throw notFound('Tree');
    return listConnection(page, entries);
  }

  /** A file at a ref: `404 Commit Not Found` for an unknown ref, `404 File Not Found` for a missing path. */
  async file(project: ProjectRow, filePath: string, ref: string | null | undefined): Promise<FileRow> {
    const repository = await this.open(project);
    const path = checkedPath(filePath, 'filePath');
    const revision = ref || project.defaultBranch;
    const commitId = await repository.resolve(`${revision}^{commit}`);
    if (!commitId) throw notFound('Commit');
    const entry = (await repository.entries(commitId, [path])).get(path);
    if (!entry || entry.type !== 'blob') throw notFound('File');
    const [content, lastCommitId] = await Promise.all([repository.blob(entry.sha), repository.lastCommitFor(commitId, path)]);
    if (!content || !lastCommitId) throw notFound('File');
    return { project, ref: revision, filePath: path, blobId: entry.sha, commitId, lastCommitId, mode: entry.mode, content };
  }

  /**
   * A file's bytes at a revision, or null when the revision, the path or the file is not there, when the path is not
   * one git could hold, or when the file is larger than `max` bytes.
   */
  async fileAt(project: ProjectRow, revision: string, path: string, max: number): Promise<Buffer | null> {
    if (pathProblem(path)) return null;
    const repository = await this.open(project);
    // One `cat-file --batch` run (CI includes read many small files this way).
    return repository.fileAt(revision, path, max);
  }

  /** A blob by object name, or null. */
  async blob(project: ProjectRow, sha: string): Promise<BlobRow | null> {
    const repository = await this.open(project);
    const resolved = await repository.resolve(sha);
    const content = resolved && (await repository.blob(resolved));
    return content ? { project, sha: resolved, path: '', ref: null, content, size: content.length, mode: null } : null;
  }

  /** GitLab's `Repository.blobs(paths:, ref:)`: the blobs that exist at those paths. */
  async blobs(project: ProjectRow, paths: readonly string[], ref: string | null | undefined, refType?: 'HEADS' | 'TAGS' | null): Promise<BlobRow[]> {
    const repository = await this.open(project);
    const name = ref || project.defaultBranch;
    const revision = refType ? `${refType === 'HEADS' ? 'refs/heads/' : 'refs/tags/'}${name}` : name;
    const commitId = await repository.resolve(`${revision}^{commit}`);
    if (!commitId) return [];
    const checked = paths.map((p) => checkedPath(p, 'paths'));
    const entries = await repository.entries(commitId, checked);
    const rows: BlobRow[] = [];
    for (const path of checked) {
      const entry = entries.get(path);
      const read = entry?.type === 'blob' ? await repository.blobHead(entry.sha, MAX_DATA_DISPLAY_SIZE) : null;
      if (entry && read) rows.push({ project, sha: entry.sha, path, ref: name, content: read.data, size: read.size, mode: entry.mode });
    }
    return rows;
  }

  private readonly lfsLoaders = new Map<number, DataLoader<string, { oid: string; size: number } | null>>();

  /** The LFS object a blob points at, or null; the blobs of one request are read together (GitLab's BatchLfsOidLoader). */
  lfsPointer(project: ProjectRow, sha: string): Promise<{ oid: string; size: number } | null> {
    let loader = this.lfsLoaders.get(project.id);
    if (!loader) {
      loader = new DataLoader(async (shas: readonly string[]) => {
        const found = await this.lfsPointers(project, shas);
        return shas.map((sha) => found.get(sha) ?? null);
      });
      this.lfsLoaders.set(project.id, loader);
    }
    return loader.load(sha);
  }

  private readonly branchSets = new Map<number, Promise<Set<string>>>();

  /** Whether a branch of this name exists (the project's branch names read once per request). */
  async branchExists(project: ProjectRow, name: string): Promise<boolean> {
    let names = this.branchSets.get(project.id);
    if (!names) {
      names = this.open(project).then(async (repository) => new Set([...(await repository.refs('refs/heads/')).keys()].map((r) => r.slice('refs/heads/'.length))));
      this.branchSets.set(project.id, names);
    }
    return (await names).has(name);
  }

  private readonly refCommits = new Map<string, Promise<CommitRow | null>>();

  /** The commit a ref names, read once per project, ref and request (blobs of one ref share it). */
  refCommit(project: ProjectRow, ref: string): Promise<CommitRow | null> {
    const key = `${project.id}\0${ref}`;
    let commit = this.refCommits.get(key);
    if (!commit) {
      commit = this.commit(project, ref);
      this.refCommits.set(key, commit);
    }
    return commit;
  }

  private readonly gitmodules = new Map<string, Promise<Map<string, string>>>();

  /** The URLs of `.gitmodules` at a ref, by submodule path (read once per project, ref and request). */
  submoduleUrls(project: ProjectRow, ref: string): Promise<Map<string, string>> {
    const key = `${project.id}\0${ref}`;
    let urls = this.gitmodules.get(key);
    if (!urls) {
      urls = (async () => {
        const content = await this.fileAt(project, ref, '.gitmodules', 1024 * 1024);
        const found = new Map<string, string>();
        let path: string | null = null;
        let url: string | null = null;
        const flush = () => {
          if (path !== null && url !== null) found.set(path, url);
          path = url = null;
        };
        for (const line of content ? content.toString('utf8').split('\n') : []) {
          const trimmed = line.trim();
          if (trimmed.startsWith('[')) flush();
          const pair = /^(path|url)\s*=\s*(.*)$/.exec(trimmed);
          if (pair?.[1] === 'path') path = pair[2];
          else if (pair?.[1] === 'url') url = pair[2];
        }
        flush();
        return found;
      })();
      this.gitmodules.set(key, urls);
    }
    return urls;
  }

  /** The project's languages at its default branch (GitLab's Project.languages); none for an empty repository or a tree listing over 64 MB. */
  async languages(project: ProjectRow) {
    if (project.emptyRepo) return [];
    const repository = await this.open(project);
    return repositoryLanguages((await repository.fileSizes(project.defaultBranch, 64 * 1024 * 1024)) ?? []);
  }

  /** The LFS pointers among blobs, by object name (one pair of git runs for all of them). */
  async lfsPointers(project: ProjectRow, shas: readonly string[]): Promise<Map<string, { oid: string; size: number }>> {
    const repository = await this.open(project);
    const found = new Map<string, { oid: string; size: number }>();
    for (const [sha, content] of await repository.smallBlobs(shas, LFS_POINTER_MAX_SIZE)) {
      const pointer = lfsPointer(content);
      if (pointer) found.set(sha, pointer);
    }
    return found;
  }

  /** The last commit at `ref` that changed `path` (the root: the ref's commit); null when there is none. */
  async lastCommitFor(project: ProjectRow, ref: string, path: string): Promise<CommitRow | null> {
    const repository = await this.open(project);
    const sha = path ? await repository.lastCommitFor(ref, path) : await repository.resolve(`${ref}^{commit}`);
    return sha ? this.commit(project, sha) : null;
  }

  /** Branch names matching a glob (`*`, `?`, `[…]`, as Redis matches GitLab's cached branch names), by name, from `offset`, at most `limit`. */
  async branchNames(project: ProjectRow, pattern: string, offset: number, limit: number): Promise<string[]> {
    const repository = await this.open(project);
    const glob = globPattern(pattern);
    const names = [...(await repository.refs('refs/heads/')).keys()].map((r) => r.slice('refs/heads/'.length)).filter((n) => glob.test(n));
    return names.sort().slice(Math.max(0, offset), Math.max(0, offset) + Math.max(0, limit));
  }

  /** Branches or tags matching `search`, each with its commit (one git run for all of them). */
  private async refRows(project: ProjectRow, prefix: 'refs/heads/' | 'refs/tags/', search: string | null | undefined) {
    const repository = await this.open(project);
    const refs = (await repository.refDetails(prefix)).filter((r) => matchesSearch(r.name, search));
    const commits = new Map((await repository.commits([...new Set(refs.map((r) => r.peeled))])).map((c) => [c.sha, { ...c, project }]));
    return refs.flatMap((r) => {
      const commit = commits.get(r.peeled);
      return commit ? [{ ref: r, commit }] : [];
    });
  }

  /** Branches by name. */
  async branches(project: ProjectRow, search: string | null | undefined): Promise<RefRow[]> {
    const rows = await this.refRows(project, 'refs/heads/', search);
    return rows.map(({ ref, commit }) => ({ project, name: ref.name, target: ref.sha, commit, message: null, createdAt: null }));
  }

  async branch(project: ProjectRow, name: string): Promise<RefRow | null> {
    return (await this.branches(project, null)).find((b) => b.name === name) ?? null;
  }

  private merged = new Map<number, Promise<Set<string>>>();

  /**
   * Whether a branch is merged into the default branch: its head is an ancestor of the default branch's, and not the
   * same commit (GitLab's merged_branch_names and merged_to_root_ref?, so never the default branch itself, nor a branch
   * just made from it). One git run per project and request.
   */
  async isMerged(branch: RefRow): Promise<boolean> {
    const { project } = branch;
    let names = this.merged.get(project.id);
    if (!names) {
      names = (async () => {
        const repository = await this.open(project);
        const head = `refs/heads/${project.defaultBranch}`;
        const headSha = await repository.resolve(head);
        if (!headSha) return new Set<string>();
        const out = await repository.text(['for-each-ref', `--merged=${head}`, '--format=%(objectname) %(refname:strip=2)', 'refs/heads/']);
        const merged = out.split('\n').map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]);
        return new Set(merged.filter(([sha, name]) => name && sha !== headSha).map(([, name]) => name));
      })();
      this.merged.set(project.id, names);
    }
    return (await names).has(branch.name);
  }

  /** Tags, newest commit first by default (GitLab's `updated` order), or by name. */
  async tags(project: ProjectRow, search: string | null | undefined, orderBy: 'name' | 'updated' | null | undefined, sort: 'ASC' | 'DESC' | null | undefined): Promise<RefRow[]> {
    const rows: RefRow[] = (await this.refRows(project, 'refs/tags/', search)).map(({ ref, commit }) => ({
      project,
      name: ref.name,
      target: ref.sha,
      commit,
      message: ref.type === 'tag' ? ref.message.replace(/\n$/, '') : '',
      createdAt: ref.type === 'tag' && ref.taggerDate ? `${new Date(ref.taggerDate).toISOString().slice(0, -1)}+00:00` : null,
    }));
    const direction = sort === 'ASC' ? 1 : -1;
    const byDate = (a: RefRow, b: RefRow) => new Date(a.commit.committedDate).getTime() - new Date(b.commit.committedDate).getTime();
    rows.sort((a, b) => (orderBy === 'name' ? a.name.localeCompare(b.name) : byDate(a, b) || a.name.localeCompare(b.name)) * direction);
    return rows;
  }

  async tag(project: ProjectRow, name: string): Promise<RefRow | null> {
    return (await this.tags(project, null, 'name', 'ASC')).find((t) => t.name === name) ?? null;
  }

  /** GitLab's compare: commits of `to` not in `from` (oldest first) and the diff from their merge base, or from `from` itself when `straight`. */
  async compare(project: ProjectRow, from: string, to: string, straight: boolean) {
    const repository = await this.open(project);
    const [fromSha, toSha] = await Promise.all([repository.resolve(`${from}^{commit}`), repository.resolve(`${to}^{commit}`)]);
    if (!fromSha || !toSha) throw notFound('Ref');
    const base = straight ? fromSha : ((await repository.mergeBase(fromSha, toSha)) ?? fromSha);
    const log = await repository.log({ revision: `${fromSha}..${toSha}`, skip: 0, max: 10000 });
    const commits = this.withProject(project, log.reverse());
    const diffs: FileDiff[] = await repository.diff(base, toSha);
    return {
      project,
      from,
      to,
      commit: commits.length ? commits[commits.length - 1] : null,
      commits,
      diffs,
      compareTimeout: false,
      compareSameRef: from === to,
    };
  }
}

/** SHA-256 of a file's bytes, as GitLab's `content_sha256`. */
export function contentSha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}
