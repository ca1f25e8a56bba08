/**
 * Repository storages: the named folders where bare repositories live (GitLab's `repository_storage`), each
 * repository at GitLab's hashed path, `@hashed/ab/cd/<sha256 of the project id>.git`, so renaming or moving a
 * project never moves bytes. A repository is created with its project and created again on first use if a crash
 * came between the two; creation goes through a temporary folder renamed into place, so a killed server leaves
 * either no repository or a whole one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config, RepositoryStorageConfig } from '../config.js';
import { git, GitError } from './run.js';

/**
 * A branch name git surely accepts (`git check-ref-format`): plain characters, no `..`, `//`, `@{`, no part starting
 * with a dot or ending in `.lock`. Others go to `git init`, which decides.
 */
const PLAIN_BRANCH = /^(?!.*\.\.)(?!.*\/\/)(?!.*\/\.)(?!\.)(?!.*\.lock(?:\/|$))[A-Za-z0-9._/-]+(?<![./])$/;

/**
 * Makes `path` an empty bare repository, as `git init --bare` does less its sample hooks and description: HEAD,
 * config, the object and ref folders. For a plain branch name these few small files are written directly and
 * synchronously: spawning git cost a project creation 15 of its 20 ms unloaded, and each asynchronous file call a
 * turn of a busy event loop (38 ms at the median under the bench's mixed load), where all of them together take
 * well under a millisecond. Other names go to `git init`, which decides whether they are valid.
 */
async function initBare(path: string, defaultBranch: string): Promise<void> {
  if (!PLAIN_BRANCH.test(defaultBranch)) {
    await git(path, ['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`]);
    return;
  }
  for (const dir of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) mkdirSync(join(path, dir), { recursive: true });
  writeFileSync(join(path, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n');
  // HEAD last: git takes a folder for a repository once it has one.
  writeFileSync(join(path, 'HEAD'), `ref: refs/heads/${defaultBranch}\n`);
}

/** What finding a project's repository needs. */
export interface RepositorySubject {
  id: number;
  repositoryStorage: string;
  /** Its path relative to the storage when it is not a project's (`hashedPath`): a group wiki's `groupWikiPath`. */
  diskPath?: string;
}

/** GitLab's hashed repository path, relative to its storage: the same for a project wherever it is moved. */
export function hashedPath(projectId: number): string {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`;
}

/** GitLab's hashed path of a group's wiki repository: `@groups/ab/cd/<sha256 of the group id>.wiki.git`. */
export function groupWikiPath(groupId: number): string {
  const hash = createHash('sha256').update(String(groupId)).digest('hex');
  return `@groups/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.wiki.git`;
}

/** What a copy of a repository holds, for comparing two copies: refs with their objects, and every reachable object. */
export interface RepositoryInventory {
  head: string | null;
  refs: string;
  objects: string;
}

/** A project just made: a repository older than it at its place is not its own. */
export interface NewRepositorySubject extends RepositorySubject {
  createdAt: Date;
}

export class RepositoryStorages {
  private readonly byName: ReadonlyMap<string, RepositoryStorageConfig>;
  /** Repositories known to exist on disk (created or seen by this process): their path needs no stat. */
  private readonly present = new Set<string>();
  private readonly creating = new Map<string, Promise<void>>();

  private constructor(
    readonly storages: readonly RepositoryStorageConfig[],
    /** A temporary folder this process made for its only storage, removed on `close`. */
    private readonly temporary: string | undefined,
  ) {
    this.byName = new Map(storages.map((s) => [s.name, s]));
  }

  /** The configured storages, or `default` under the data folder (in a temporary folder for an in-memory database). */
  static async open(config: Pick<Config, 'repositoryStorages' | 'dataDir'>): Promise<RepositoryStorages> {
    if (config.repositoryStorages) return new RepositoryStorages(config.repositoryStorages, undefined);
    if (config.dataDir === 'memory') {
      const folder = await mkdtemp(join(tmpdir(), 'gitlab-repositories-'));
      return new RepositoryStorages([{ name: 'default', path: folder, weight: 100 }], folder);
    }
    return new RepositoryStorages([{ name: 'default', path: resolve(config.dataDir, 'repositories'), weight: 100 }], undefined);
  }

  get names(): string[] {
    return this.storages.map((s) => s.name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The storage for a new repository, at random by weight, as GitLab picks. */
  pick(random: () => number = Math.random): string {
    const total = this.storages.reduce((sum, s) => sum + s.weight, 0);
    let point = random() * total;
    for (const s of this.storages) {
      if (s.weight === 0) continue;
      point -= s.weight;
      if (point < 0) return s.name;
    }
    return this.storages.find((s) => s.weight > 0)!.name;
  }

  /** The repository's folder on disk. Throws for a storage that is not configured (a project moved to one since removed). */
  path(subject: RepositorySubject): string {
    const storage = this.byName.get(subject.repositoryStorage);
    if (!storage) throw new Error(`repository storage "${subject.repositoryStorage}" is not configured`);
    return join(storage.path, subject.diskPath ?? hashedPath(subject.id));
  }

  /** Whether the repository is on disk. */
  exists(subject: RepositorySubject): boolean {
    const path = this.path(subject);
    return this.present.has(path) || existsSync(join(path, 'HEAD'));
  }

  /** Creates the bare repository unless it exists; its HEAD names `defaultBranch`. Returns its folder. */
  async ensure(subject: RepositorySubject, defaultBranch = 'main'): Promise<string> {
    const path = this.path(subject);
    if (this.present.has(path)) return path;
    let pending = this.creating.get(path);
    if (!pending) {
      pending = this.create(path, defaultBranch).finally(() => this.creating.delete(path));
      this.creating.set(path, pending);
    }
    await pending;
    return path;
  }

  /**
   * Creates the repository of a project just made, empty. A repository already at its place belongs to no project
   * of this database (another database used the same folder, or a project's removal never ran): it is moved aside,
   * to `<path>.<random>+stale`, rather than shown as the new project's. Returns where it went, if anywhere.
   */
  async createNew(subject: NewRepositorySubject, defaultBranch: string): Promise<string | null> {
    const stale = await this.moveAside(this.path(subject), subject.createdAt);
    await this.ensure(subject, defaultBranch);
    return stale;
  }

  /**
   * Moves a repository older than its project out of the way. One made since (the project's first use, from a
   * request racing its creation, on any replica) is the project's own and stays.
   */
  private async moveAside(path: string, projectCreated: Date): Promise<string | null> {
    if (this.present.has(path) || this.creating.has(path)) return null;
    // Synchronous, as creating the repository is (see initBare): one stat, and a rename only in the rare stale case.
    const made = statSync(path, { throwIfNoEntry: false });
    if (!made || made.ctimeMs >= projectCreated.getTime()) return null;
    const aside = `${path}.${randomBytes(4).toString('hex')}+stale`;
    renameSync(path, aside);
    return aside;
  }

  /**
   * Creates the repository of `target`, a project just made, with the branches and tags of `source`'s (a fork;
   * `refspecs` picks which); one already at its place is moved aside, as `createNew` does. Built like any new
   * repository, beside its place, so a fork is on disk whole or not at all. Returns where a stale one went.
   */
  async copy(source: RepositorySubject, target: NewRepositorySubject, refspecs: readonly string[], defaultBranch: string): Promise<string | null> {
    const from = this.path(source);
    const path = this.path(target);
    const stale = await this.moveAside(path, target.createdAt);
    const pending = this.create(path, defaultBranch, async (building) => {
      if (existsSync(join(from, 'HEAD'))) await git(building, ['fetch', '--quiet', '--no-write-fetch-head', from, ...refspecs]);
    }).finally(() => this.creating.delete(path));
    // Whoever opens the fork meanwhile waits for the copy rather than creating an empty repository.
    this.creating.set(path, pending);
    await pending;
    return stale;
  }

  private async create(path: string, defaultBranch: string, fill?: (building: string) => Promise<void>): Promise<void> {
    if (existsSync(join(path, 'HEAD'))) {
      this.present.add(path);
      return;
    }
    // Built beside its final place, then renamed: a repository is on disk whole or not at all.
    const building = `${path}.${randomBytes(4).toString('hex')}+creating`;
    try {
      mkdirSync(building, { recursive: true });
      await initBare(building, defaultBranch);
      await fill?.(building);
      renameSync(building, path);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      // Another process created it meanwhile: that one counts.
      if (!existsSync(join(path, 'HEAD'))) throw error;
    }
    this.present.add(path);
  }

  /** Removes the repository (its project is gone): renamed out of the way first, so no reader sees half of it. */
  async remove(subject: RepositorySubject): Promise<void> {
    const path = this.path(subject);
    this.present.delete(path);
    if (existsSync(path)) await rename(path, `${path}.${randomBytes(4).toString('hex')}+deleted`);
    // Also what an earlier removal, interrupted, left renamed but not yet deleted.
    const folder = dirname(path);
    const leftovers = (await readdir(folder).catch(() => [])).filter((name) => name.startsWith(`${basename(path)}.`) && name.endsWith('+deleted'));
    for (const name of leftovers) await rm(join(folder, name), { recursive: true, force: true });
  }

  /**
   * Copies the repository to `destination` (another storage) with git's own transfer: into a new bare repository
   * built beside its place and renamed into it, or, when a copy is already there (a move resumed after a crash),
   * by fetching into it, so the copy ends with exactly the source's refs (`--prune`) and HEAD. Nothing at the
   * source changes. Two storage names on one folder need no copy: false then.
   */
  async replicate(subject: RepositorySubject, destination: string): Promise<boolean> {
    const from = this.path(subject);
    const to = this.path({ ...subject, repositoryStorage: destination });
    if (from === to) return false;
    const head = (await git(from, ['symbolic-ref', '--quiet', 'HEAD'], { okCodes: [1] })).stdout.toString('utf8').trim() || 'refs/heads/main';
    const fill = async (target: string) => {
      await git(target, ['fetch', '--quiet', '--no-write-fetch-head', '--prune', '--no-auto-gc', from, '+refs/*:refs/*']);
      await git(target, ['symbolic-ref', 'HEAD', head]);
    };
    if (existsSync(join(to, 'HEAD'))) await fill(to);
    else await this.create(to, head.replace(/^refs\/heads\//, ''), fill);
    this.present.add(to);
    return true;
  }

  /**
   * What the repository holds: HEAD, every ref with its object, and the names of every object reachable from them
   * (`git rev-list --objects --all`, which fails when one is missing), hashed; equal inventories mean equal copies.
   */
  async inventory(subject: RepositorySubject, options: { objects?: boolean } = {}): Promise<RepositoryInventory> {
    const path = this.path(subject);
    const digest = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
    const head = (await git(path, ['symbolic-ref', '--quiet', 'HEAD'], { okCodes: [1] })).stdout.toString('utf8').trim() || null;
    const refs = (await git(path, ['for-each-ref', '--format=%(objectname) %(refname)'])).stdout;
    // Refs alone (`objects: false`): whether a repository's refs moved, cheaply.
    if (options.objects === false) return { head, refs: digest(refs), objects: '' };
    const listed = (await git(path, ['rev-list', '--objects', '--all'], { maxOutput: 1024 * 1024 * 1024 })).stdout.toString('utf8');
    const names = listed.split('\n').filter(Boolean).map((line) => line.split(' ')[0]).sort();
    return { head, refs: digest(refs), objects: `${names.length}:${digest(names.join('\n'))}` };
  }

  /** `git fsck --full` of the repository: its complaints, or null when it is sound. */
  async fsck(subject: RepositorySubject): Promise<string | null> {
    try {
      await git(this.path(subject), ['fsck', '--full', '--no-dangling', '--no-progress']);
      return null;
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      return error.stderr.trim() || error.message;
    }
  }

  /** Removes the temporary storage of an in-memory server. */
  async close(): Promise<void> {
    if (this.temporary) await rm(this.temporary, { recursive: true, force: true });
  }
}
