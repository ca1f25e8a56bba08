/**
 * Reading a project's code: commits, trees, files, blobs, branches, tags and comparisons, each after the viewer's
 * `download_code` check (RepositoriesService.authorizeRead). Values carry their project, so web URLs and
 * `project_id` resolve without another lookup.
 */
import { createHash } from 'node:crypto';
import { notFound } from '../../errors.js';
import { connection, listConnection, type PageArgs } from '../../graphql/connection.js';
import type { CommitInfo, FileDiff, Repository, TreeEntry } from '../../git/repository.js';
import type { ProjectRow } from '../projects/service.js';
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
  sha: string;
  path: string;
  content: Buffer;
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
    return content ? { sha: resolved, path: '', content, mode: null } : null;
  }

  /** GitLab's `Repository.blobs(paths:, ref:)`: the blobs that exist at those paths. */
  async blobs(project: ProjectRow, paths: readonly string[], ref: string | null | undefined): Promise<BlobRow[]> {
    const repository = await this.open(project);
    const commitId = await repository.resolve(`${ref || project.defaultBranch}^{commit}`);
    if (!commitId) return [];
    const checked = paths.map((p) => checkedPath(p, 'paths'));
    const entries = await repository.entries(commitId, checked);
    const rows: BlobRow[] = [];
    for (const path of checked) {
      const entry = entries.get(path);
      const content = entry?.type === 'blob' ? await repository.blob(entry.sha) : null;
      if (entry && content) rows.push({ sha: entry.sha, path, content, mode: entry.mode });
    }
    return rows;
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
