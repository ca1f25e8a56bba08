/**
 * Snippets (GitLab's PersonalSnippet and ProjectSnippet): a row for title, description, visibility and author, and a
 * bare repository of its own whose commits version its files (GitLab's snippet repositories). Every create or update
 * is one commit on the default branch, by the acting user: the blobs and tree are written, then the branch moves with
 * its expected old value, so two writers racing serialize and a killed server leaves only unreferenced objects.
 * Every check comes before any write: a refused request leaves neither a row nor a commit.
 */
import { createHash } from 'node:crypto';
import type { Prisma } from '../../db/database.js';
import { argumentRefused, atLeastOneOf, exactlyOneOf, forbidden, missing, mutuallyExclusive, unauthenticated, notFound, recordNotFound, serviceError } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { Repository, ZERO_SHA, type IndexChange, type TreeEntry } from '../../git/repository.js';
import type { RepositorySubject } from '../../git/storages.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { UploadedFile } from '../../uploads/storage.js';
import type { UploadRow, UploadsService } from '../uploads/service.js';
import type { SnippetSubject } from './policy.js';

export type SnippetRow = Awaited<ReturnType<ServiceBase['db']['snippet']['findUniqueOrThrow']>>;

export type SnippetActionKind = 'create' | 'update' | 'delete' | 'move';

export interface SnippetAction {
  action: SnippetActionKind;
  filePath?: string | null;
  previousPath?: string | null;
  content?: string | null;
}

export interface SnippetInput {
  title?: string | null;
  description?: string | null;
  visibilityLevel?: string | null;
  blobActions?: SnippetAction[] | null;
  /** Deprecated single-file form (`file_name` and `content`). */
  fileName?: string | null;
  content?: string | null;
  /** URLs of the viewer's temporary uploads the description links to (GraphQL's `uploadedFiles`; personal snippets). */
  uploadedFiles?: readonly string[] | null;
}

export interface SnippetFilters {
  /** `authored`: the viewer's own (`GET /snippets`); `explore`: public personal snippets (`/snippets/public`); else all the viewer may read. */
  scope?: 'authored' | 'explore' | null;
  ids?: number[] | null;
  authorId?: number | null;
  projectId?: number | null;
  type?: 'personal' | 'project' | null;
  visibility?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  repositoryStorage?: string | null;
}

export interface SnippetFile {
  path: string;
  sha: string;
  mode: string;
  size: number;
}

/** The branch every snippet repository writes (GitLab's default branch name for new repositories). */
export const SNIPPET_BRANCH = 'main';
/** Snippet.max_file_limit. */
export const MAX_FILES = 10;
const VISIBILITIES = ['private', 'internal', 'public'];
/** SnippetRepository's name for a file created without a path: `snippetfile<n>.txt`. */
const DEFAULT_FILE_NAME = 'snippetfile';

/** GitLab's hashed path of a snippet's repository: `@snippets/ab/cd/<sha256 of the snippet id>.git`. */
export function snippetDiskPath(id: number): string {
  const hash = createHash('sha256').update(String(id)).digest('hex');
  return `@snippets/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`;
}

/** Where a snippet's repository is, for the storages (and a storage move). */
export function snippetRepositorySubject(row: Pick<SnippetRow, 'id' | 'repositoryStorage'>): RepositorySubject {
  return { id: row.id, repositoryStorage: row.repositoryStorage, diskPath: snippetDiskPath(row.id) };
}

/** Rails' number_to_human_size, as GitLab's BytesizeValidator words sizes. */
function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value >= 100 ? Math.round(value).toString() : Number(value.toPrecision(3)).toString();
  return `${shown} ${units[unit]}`;
}

/** Gitlab::PathTraversal's check and the FilePath validator's refusal of absolute paths. */
export function safeFilePath(path: string): boolean {
  if (path.includes('\0') || path.includes('\\')) return false;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  for (const p of [path, decoded]) {
    if (p.startsWith('/') || p === '..' || p.startsWith('../') || p.endsWith('/..') || p.includes('/../')) return false;
  }
  return true;
}

export class SnippetsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly projects: ProjectsService,
    private readonly uploads: UploadsService,
  ) {}

  /** GitLab's `authenticated_as_admin!` checks (user agent details, the `repository_storage` filter). */
  private get isAdmin(): boolean {
    return this.base.access.allowed('admin_all_resources');
  }

  private get db() {
    return this.base.db;
  }

  /** The snippet's project, loaded as the policy needs it. */
  async projectOf(row: Pick<SnippetRow, 'projectId'>): Promise<ProjectRow | null> {
    if (row.projectId === null) return null;
    return ((await this.base.loaders.projects.byId.load(row.projectId)) as ProjectRow | null) ?? null;
  }

  async subject(row: SnippetRow): Promise<SnippetSubject> {
    return { authorId: row.authorId, visibility: row.visibility, inProject: await this.projectOf(row) };
  }

  async can(ability: 'read_snippet' | 'update_snippet' | 'admin_snippet', row: SnippetRow): Promise<boolean> {
    return this.base.access.can(ability, await this.subject(row));
  }

  /** A snippet the viewer may read, or null. */
  async find(id: number): Promise<SnippetRow | null> {
    const row = await this.db.snippet.findUnique({ where: { id } });
    if (!row || row.pendingDelete) return null;
    if (row.projectId !== null && !(await this.projectOf(row))) return null;
    return (await this.can('read_snippet', row)) ? row : null;
  }

  /** A snippet the viewer may read, or GitLab's `404 Snippet Not Found`; with a project, one of its snippets. */
  async get(id: number, project?: ProjectRow | null, authoredOnly = false): Promise<SnippetRow> {
    const row = await this.find(id);
    if (!row || (project !== undefined && row.projectId !== (project?.id ?? null))) throw notFound('Snippet');
    // REST's `/snippets/:id` changes only the caller's own personal snippets (GitLab finds them among
    // `current_user.snippets`): another's, administrators included, is not found there.
    if (authoredOnly && (row.projectId !== null || row.authorId !== this.base.viewer?.id)) throw notFound('Snippet');
    return row;
  }

  /** The snippets the viewer may read, newest first (GitLab's SnippetsFinder orders by `created_at desc`, then id). */
  async list(filters: SnippetFilters, page: PageArgs) {
    const where = await this.listWhere(filters);
    return connection(
      page,
      ({ skip, take }) => this.db.snippet.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take }),
      () => this.db.snippet.count({ where }),
    );
  }

  /** A project's snippets the viewer may read (`GET /projects/:id/snippets`, `Project.snippets`). */
  async listOfProject(project: ProjectRow, filters: SnippetFilters, page: PageArgs) {
    if (!(await this.base.access.can('read_project_snippets', project))) throw notFound('Project');
    return this.list({ ...filters, projectId: project.id, type: 'project' }, page);
  }

  private async listWhere(filters: SnippetFilters): Promise<Prisma.SnippetWhereInput> {
    const viewer = this.base.viewer;
    const and: Prisma.SnippetWhereInput[] = [{ pendingDelete: false }];
    if (filters.scope === 'authored') and.push({ authorId: viewer?.id ?? -1 });
    // `/snippets/public`: public personal snippets, as an anonymous viewer would see them.
    if (filters.scope === 'explore') and.push({ projectId: null, visibility: 'public' });
    if (filters.ids) and.push({ id: { in: filters.ids } });
    if (filters.authorId != null) and.push({ authorId: filters.authorId });
    if (filters.projectId != null) and.push({ projectId: filters.projectId });
    if (filters.type === 'personal') and.push({ projectId: null });
    if (filters.type === 'project') and.push({ projectId: { not: null } });
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.createdAfter) and.push({ createdAt: { gte: filters.createdAfter } });
    if (filters.createdBefore) and.push({ createdAt: { lte: filters.createdBefore } });
    if (filters.repositoryStorage != null) {
      // An EE filter for administrators only; others are told they may not use it.
      if (!this.isAdmin) throw forbidden();
      and.push({ repositoryStorage: filters.repositoryStorage });
    }
    and.push(await this.base.access.where('read_snippet'));
    return { AND: and };
  }

  /** The repository of a snippet. */
  repository(row: SnippetRow): Repository {
    return new Repository(this.base.app.repositories.path(snippetRepositorySubject(row)));
  }

  private hasRepository(row: SnippetRow): boolean {
    return this.base.app.repositories.has(row.repositoryStorage) && this.base.app.repositories.exists(snippetRepositorySubject(row));
  }

  /** The files at a ref (default: the default branch), sorted by path; none for a repository without commits. */
  async files(row: SnippetRow, ref: string = SNIPPET_BRANCH): Promise<SnippetFile[]> {
    if (!this.hasRepository(row)) return [];
    const repository = this.repository(row);
    const commit = await repository.resolve(`${ref}^{commit}`);
    if (!commit) return [];
    const entries = (await repository.tree(commit, '', true)) ?? [];
    const blobs = entries.filter((e) => e.type === 'blob');
    const sizes = await Promise.all(blobs.map((e) => repository.blobSize(e.sha)));
    return blobs.map((e, i) => ({ path: e.path, sha: e.sha, mode: e.mode, size: sizes[i] }));
  }

  /** A file's bytes at a ref: GitLab's `404 Reference Not Found` and `404 File Not Found`. */
  async fileContent(row: SnippetRow, ref: string, path: string): Promise<Buffer> {
    if (!this.hasRepository(row)) throw notFound('Snippet');
    const repository = this.repository(row);
    const commit = ref.startsWith('-') ? null : await repository.resolve(`${ref}^{commit}`);
    if (!commit) throw notFound('Reference');
    const entry = (await repository.entries(commit, [path])).get(path);
    const content = entry && entry.type === 'blob' ? await repository.blob(entry.sha) : null;
    if (!content) throw notFound('File');
    return content;
  }

  /** `GET …/raw`: the first file of the default branch. */
  async rawContent(row: SnippetRow): Promise<{ path: string; content: Buffer }> {
    const [first] = await this.files(row);
    if (!first) return { path: '', content: Buffer.alloc(0) };
    return { path: first.path, content: (await this.repository(row).blob(first.sha)) ?? Buffer.alloc(0) };
  }

  /** GitLab's Snippets::CreateService. */
  async create(project: ProjectRow | null, input: SnippetInput): Promise<SnippetRow> {
    const viewer = this.base.viewer;
    if (project) {
      if (!(await this.base.access.can('read_project_snippets', project))) throw notFound('Project');
    }
    if (!viewer || !(await this.base.access.can('create_snippet', { project }))) throw forbidden();
    const actions = this.createActions(input);
    const visibility = input.visibilityLevel ?? 'internal';
    this.validate({ title: input.title ?? '', visibility }, actions);
    if (project) this.checkProjectVisibility(project, visibility);
    const author = await this.base.loaders.users.byId.load(viewer.id);
    if (!author) throw notFound('User');
    const row = await this.db.snippet.create({
      data: {
        type: project ? 'ProjectSnippet' : 'PersonalSnippet',
        title: input.title ?? '',
        description: input.description ?? null,
        visibility,
        authorId: viewer.id,
        projectId: project?.id ?? null,
        repositoryStorage: this.base.app.repositories.pick(),
        userAgent: this.base.rest?.userAgent ?? null,
        ipAddress: this.base.rest?.ipAddress ?? null,
      },
    });
    try {
      await this.base.app.repositories.ensure(snippetRepositorySubject(row), SNIPPET_BRANCH);
      await this.commit(row, actions, 'Initial commit', { name: author.name, email: author.email }, 'Error creating the snippet');
    } catch (error) {
      // Nothing of a refused create stays: neither its row nor its repository.
      await this.db.snippet.delete({ where: { id: row.id } }).catch(() => undefined);
      await this.base.app.repositories.remove(snippetRepositorySubject(row)).catch(() => undefined);
      throw error;
    }
    return row.projectId === null && input.uploadedFiles?.length ? this.moveTemporaryFiles(row, input.uploadedFiles) : row;
  }

  /**
   * Snippets::CreateService#move_temporary_files: the viewer's temporary uploads the new personal snippet names move to
   * it, and each Markdown link to one in its description is rewritten to the upload's new URL (FileMover).
   */
  private async moveTemporaryFiles(row: SnippetRow, paths: readonly string[]): Promise<SnippetRow> {
    const moved = await this.uploads.moveTemporary(row.id, paths);
    if (!moved.length || row.description === null) return row;
    const description = moved.reduce((text, link) => text.split(link.from).join(link.to), row.description);
    return description === row.description ? row : this.db.snippet.update({ where: { id: row.id }, data: { description } });
  }

  /**
   * `POST /uploads/personal_snippet?id=<id>` (UploadsController): a file for a personal snippet's comments or
   * description, by a signed-in caller who may comment on it (create_note: who reads it); GitLab's 404 otherwise.
   */
  async upload(id: number, file: UploadedFile | null): Promise<UploadRow> {
    const row = this.base.viewer ? await this.find(id) : null;
    if (!row || row.projectId !== null) throw notFound();
    return this.uploads.createForSnippet(row.id, file);
  }

  /** A personal snippet's upload at `/uploads/-/system/personal_snippet/<id>/<secret>/<name>`, for its readers; null otherwise. */
  async uploadFile(id: number, secret: string, filename: string): Promise<{ path: string; filename: string } | null> {
    const row = await this.find(id);
    if (!row || row.projectId !== null) return null;
    return this.uploads.webFile({ model: 'personal_snippet', id: row.id }, secret, filename);
  }

  /** GitLab's Snippets::UpdateService. */
  async update(row: SnippetRow, input: SnippetInput): Promise<SnippetRow> {
    const viewer = this.base.viewer;
    if (!viewer) throw forbidden();
    if (!(await this.can('update_snippet', row))) throw forbidden();
    const given = ['title', 'description', 'visibilityLevel', 'blobActions', 'fileName', 'content'] as const;
    if (given.every((k) => input[k] === undefined || input[k] === null)) {
      throw atLeastOneOf('content', 'description', 'blobActions', 'fileName', 'title', 'visibilityLevel');
    }
    if (row.repositoryReadOnly) throw forbidden(GIT_TEXTS.readOnly);
    const current = await this.files(row);
    let actions: SnippetAction[] = [];
    if (input.blobActions?.length) {
      if (input.content != null || input.fileName != null) throw serviceError('Content and snippet files cannot be used together', 422);
      actions = input.blobActions;
    } else if (input.content != null || input.fileName != null) {
      if (current.length > 1) throw serviceError('To update Snippets with multiple files, you must use the `files` parameter', 400);
      // The deprecated single-file form: the one file renamed and/or rewritten.
      const existing = current[0];
      const filePath = input.fileName ?? existing?.path ?? '';
      const content = input.content ?? (existing ? (await this.repository(row).blob(existing.sha))?.toString('utf8') : '') ?? '';
      actions = existing
        ? [filePath === existing.path ? { action: 'update', filePath, previousPath: filePath, content } : { action: 'move', filePath, previousPath: existing.path, content }]
        : [{ action: 'create', filePath, content }];
    }
    const title = input.title ?? row.title;
    const visibility = input.visibilityLevel ?? row.visibility;
    this.validate({ title, visibility }, actions, current.length);
    const project = await this.projectOf(row);
    if (project && input.visibilityLevel) this.checkProjectVisibility(project, visibility);
    if (actions.length) {
      const author = await this.base.loaders.users.byId.load(viewer.id);
      if (!author) throw notFound('User');
      await this.base.app.repositories.ensure(snippetRepositorySubject(row), SNIPPET_BRANCH);
      await this.commit(row, actions, 'Update snippet', { name: author.name, email: author.email }, 'Error updating the snippet');
    }
    return this.db.snippet.update({
      where: { id: row.id },
      data: {
        title,
        visibility,
        ...(input.description != null ? { description: input.description } : {}),
        // A commit alone changes the snippet too.
        updatedAt: new Date(),
      },
    });
  }

  /**
   * `DELETE`: hidden at once, and the row and repository removed by a job (GitLab's Snippets::DestroyService, whose
   * repository removal runs in the background).
   */
  async destroy(row: SnippetRow): Promise<SnippetRow> {
    if (!(await this.can('admin_snippet', row))) throw forbidden();
    await this.db.$transaction(async (tx) => {
      await tx.snippet.update({ where: { id: row.id }, data: { pendingDelete: true } });
      await this.base.app.jobs.enqueue(DESTROY_JOB, { snippetId: row.id }, { uniqueKey: `${DESTROY_JOB}:${row.id}`, maxAttempts: 25 }, tx);
    });
    return row;
  }

  /**
   * A snippet's repository for git over HTTP, at `snippets/<id>` or `<project path>/snippets/<id>` (GitLab's
   * Gitlab::GitAccessSnippet): null when the path names no snippet repository, GitLab's refusals otherwise. Reading
   * needs read_snippet, pushing update_snippet and a repository that is not read-only.
   */
  async gitRepository(fullPath: string, push: boolean): Promise<{ row: SnippetRow; gitDir: string } | null> {
    const match = /^(?:(.+)\/)?snippets\/(\d{1,10})$/.exec(fullPath);
    if (!match) return null;
    let project: ProjectRow | null = null;
    if (match[1] !== undefined) {
      project = (await this.projects.find({ path: match[1] }, { followRedirects: true })) as ProjectRow | null;
      if (!project || !(await this.base.access.can('read_project_snippets', project))) throw notFound('Snippet');
    }
    const row = await this.find(Number(match[2]));
    if (!row || row.projectId !== (project?.id ?? null)) throw notFound('Snippet');
    if (push) {
      if (!this.base.viewer) throw unauthenticated();
      if (!(await this.can('update_snippet', row))) throw forbidden(GIT_TEXTS.update);
      if (row.repositoryReadOnly) throw forbidden(GIT_TEXTS.readOnly);
    }
    const gitDir = await this.base.app.repositories.ensure(snippetRepositorySubject(row), SNIPPET_BRANCH);
    return { row, gitDir };
  }

  /**
   * A push's refs, before git moves them (GitLab's snippet repository rules): the default branch only, never
   * deleted, no tags; and at most MAX_FILES files in what it pushes.
   */
  async checkPush(row: SnippetRow, updates: readonly { ref: string; after: string }[], env: Record<string, string>): Promise<string | null> {
    for (const update of updates) {
      if (update.ref.startsWith('refs/tags/')) return GIT_TEXTS.tags;
      if (update.ref !== `refs/heads/${SNIPPET_BRANCH}`) return GIT_TEXTS.branches;
      if (update.after === ZERO_SHA) return GIT_TEXTS.deleteBranch;
      const listed = await this.repository(row).run(['ls-tree', '-r', '--name-only', '-z', update.after], { env });
      if (listed.stdout.toString('utf8').split('\0').filter(Boolean).length > MAX_FILES) return GIT_TEXTS.files;
    }
    return null;
  }

  /** After a push: the snippet changed. */
  async pushed(row: SnippetRow): Promise<void> {
    await this.db.snippet.update({ where: { id: row.id }, data: { updatedAt: new Date() } });
  }

  /** A project being deleted: its snippets' repositories, then their rows. Idempotent. */
  async teardownProject(projectId: number): Promise<void> {
    const rows = await this.db.snippet.findMany({ where: { projectId } });
    for (const row of rows) if (this.base.app.repositories.has(row.repositoryStorage)) await this.base.app.repositories.remove(snippetRepositorySubject(row));
    await this.db.snippet.deleteMany({ where: { projectId } });
  }

  /** The job's half of a deletion: the repository, then the row. Idempotent. */
  async purge(snippetId: number): Promise<void> {
    const row = await this.db.snippet.findUnique({ where: { id: snippetId } });
    if (!row || !row.pendingDelete) return;
    if (this.base.app.repositories.has(row.repositoryStorage)) await this.base.app.repositories.remove(snippetRepositorySubject(row));
    if (row.projectId === null) await this.uploads.removeAll({ model: 'personal_snippet', id: row.id });
    await this.db.snippet.deleteMany({ where: { id: snippetId, pendingDelete: true } });
  }

  /** `GET /snippets/:id/user_agent_detail`: administrators only, any snippet (GitLab's `Snippet.find`). */
  async userAgentDetail(id: number): Promise<{ userAgent: string; ipAddress: string; akismetSubmitted: boolean }> {
    if (!this.isAdmin) throw forbidden();
    const row = await this.db.snippet.findUnique({ where: { id } });
    if (!row || row.pendingDelete) throw recordNotFound();
    if (row.userAgent === null) throw notFound('UserAgentDetail');
    return { userAgent: row.userAgent, ipAddress: row.ipAddress ?? '', akismetSubmitted: false };
  }

  /** `files` (each a create action) or the deprecated `file_name` and `content`: exactly one of them. */
  private createActions(input: SnippetInput): SnippetAction[] {
    const hasFiles = input.blobActions != null;
    const hasContent = input.content != null;
    if (hasFiles && hasContent) throw mutuallyExclusive('files', 'content');
    if (!hasFiles && !hasContent) throw exactlyOneOf('files', 'content');
    if (hasContent) {
      if (input.content === '') throw argumentRefused('content', 'is empty');
      if (input.fileName == null) throw missing('fileName');
      return [{ action: 'create', filePath: input.fileName, content: input.content }];
    }
    if (input.fileName != null) throw serviceError('File name and snippet files cannot be used together', 422);
    const actions = input.blobActions ?? [];
    // The create API's own checks of each file (Grape's `allow_blank: false`), before the service's.
    actions.forEach((a, i) => {
      for (const field of ['filePath', 'content'] as const) {
        if (a[field] === '') throw argumentRefused(`files[${i}][${field}]`, 'is empty');
        if (a[field] == null) throw missing(`files[${i}][${field}]`);
      }
    });
    if (actions.some((a) => a.action !== 'create')) throw serviceError('Snippet actions have invalid data', 422);
    return actions;
  }

  /** The model's validations and SnippetInputAction's, in GitLab's words. */
  private validate(row: { title: string; visibility: string }, actions: readonly SnippetAction[], existingFiles = 0): void {
    actions.forEach((a, i) => {
      if (a.filePath != null && a.filePath !== '' && !safeFilePath(a.filePath)) throw argumentRefused(`files[${i}][filePath]`, 'should be a valid file path');
      if (a.previousPath != null && a.previousPath !== '' && !safeFilePath(a.previousPath)) throw argumentRefused(`files[${i}][previousPath]`, 'should be a valid file path');
    });
    const actionValid = (a: SnippetAction) => {
      const filePath = a.filePath ?? '';
      const previousPath = a.previousPath ?? '';
      switch (a.action) {
        case 'create':
          return !!a.content;
        case 'update':
          return !!filePath && !!a.content && (!previousPath || previousPath === filePath);
        case 'delete':
          return !!filePath;
        case 'move':
          return !!previousPath && filePath !== previousPath;
        default:
          return false;
      }
    };
    if (!actions.every(actionValid)) throw serviceError('Snippet actions have invalid data', 422);
    const errors: string[] = [];
    if (!row.title.trim()) errors.push("Title can't be blank");
    else if ([...row.title].length > 255) errors.push('Title is too long (maximum is 255 characters)');
    if (!VISIBILITIES.includes(row.visibility)) errors.push('Visibility level is not included in the list');
    const limit = this.base.app.config.snippetMaxSize;
    for (const a of actions) {
      const size = Buffer.byteLength(a.content ?? '', 'utf8');
      if (size > limit) {
        errors.push(`Content is too long (${humanSize(size)}). The maximum size is ${humanSize(limit)}.`);
        break;
      }
    }
    if (errors.length) throw serviceError(errors.join(' and '), 400);
    const added = actions.filter((a) => a.action === 'create').length - actions.filter((a) => a.action === 'delete').length;
    if (existingFiles + added > MAX_FILES) throw serviceError('Repository files count over the limit', 400);
  }

  /** GitLab refuses a project snippet more open than its project (`visibility_level_allowed_by_project`). */
  private checkProjectVisibility(project: ProjectRow, visibility: string): void {
    if (VISIBILITIES.indexOf(visibility) > VISIBILITIES.indexOf(project.visibility)) {
      throw serviceError(`Visibility level ${visibility} is not allowed in a ${project.visibility} project.`, 400);
    }
  }

  /** One commit of the actions on the default branch; a refusal of git's is GitLab's `Repository Error …`. */
  private async commit(row: SnippetRow, actions: readonly SnippetAction[], message: string, user: { name: string; email: string }, failure: string): Promise<string> {
    const repository = this.repository(row);
    const ref = `refs/heads/${SNIPPET_BRANCH}`;
    const parent = await repository.resolve(ref);
    const refused = () => serviceError(`Repository ${failure}`, 400);
    const entries = parent ? ((await repository.tree(parent, '', true)) ?? []) : [];
    const files = new Map<string, TreeEntry>(entries.filter((e) => e.type === 'blob').map((e) => [e.path, e]));
    const dirs = new Set(entries.filter((e) => e.type === 'tree').map((e) => e.path));
    const changes: IndexChange[] = [];
    let index = files.size;
    const nextDefaultName = () => {
      let name: string;
      do name = `${DEFAULT_FILE_NAME}${++index}.txt`;
      while (files.has(name));
      return name;
    };
    const free = (path: string) => !files.has(path) && !dirs.has(path) && !path.split('/').slice(0, -1).some((_, i, parts) => files.has(parts.slice(0, i + 1).join('/')));
    for (const a of actions) {
      const content = a.content ?? '';
      switch (a.action) {
        case 'create': {
          const path = a.filePath || nextDefaultName();
          if (!free(path)) throw refused();
          const sha = await repository.writeBlob(Buffer.from(content, 'utf8'));
          files.set(path, { path, sha, mode: '100644', type: 'blob' } as TreeEntry);
          changes.push({ path, mode: '100644', sha });
          break;
        }
        case 'update': {
          const path = a.filePath as string;
          const file = files.get(path);
          if (!file) throw refused();
          const sha = await repository.writeBlob(Buffer.from(content, 'utf8'));
          files.set(path, { ...file, sha });
          changes.push({ path, mode: file.mode, sha });
          break;
        }
        case 'delete': {
          const path = a.filePath as string;
          if (!files.has(path)) throw refused();
          files.delete(path);
          changes.push({ path, remove: true });
          break;
        }
        case 'move': {
          const from = a.previousPath as string;
          const file = files.get(from);
          if (!file) throw refused();
          const to = a.filePath || nextDefaultName();
          files.delete(from);
          if (!free(to)) throw refused();
          const sha = a.content ? await repository.writeBlob(Buffer.from(content, 'utf8')) : file.sha;
          files.set(to, { ...file, path: to, sha });
          changes.push({ path: from, remove: true }, { path: to, mode: file.mode, sha });
          break;
        }
      }
    }
    if (files.size > MAX_FILES) throw serviceError('Repository files count over the limit', 400);
    const tree = await repository.writeTree(parent, changes);
    const sha = await repository.commitTree(tree, parent ? [parent] : [], message, user, user);
    if (!(await repository.updateRef(ref, sha, parent ?? ZERO_SHA))) throw refused();
    return sha;
  }
}

export const DESTROY_JOB = 'snippets.destroy';

/** GitLab's words for refused git access to snippets (Gitlab::GitAccessSnippet, Snippets::RepositoryValidationService). */
export const GIT_TEXTS = {
  update: "You can't commit to this snippet.",
  readOnly: 'The repository is temporarily read-only. Please try again later.',
  tags: 'Repository has tags.',
  branches: 'Repository has more than one branch.',
  deleteBranch: 'You are not allowed to delete the default branch of a snippet.',
  files: 'Repository files count over the limit',
} as const;
