/** Owns projects: lookup by ID or path with visibility rules, filtered lists, and creation. */
import { readFile } from 'node:fs/promises';
import type { UploadedFile } from '../../uploads/storage.js';
import { avatarProblems, contentDisposition, replaceAvatar } from '../../uploads/avatars.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { atLeastOneOf, invalid, notFound } from '../../errors.js';
import { connection, type KeysetOrder, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import type { ActivityService } from '../activity/service.js';
import type { MembersService } from '../members/service.js';
import { PATH_RULE, VISIBILITY_RANK, isValidPath, pathFromName, type Visibility } from '../namespaces/paths.js';
import type { NamespaceRow, NamespacesService } from '../namespaces/service.js';
import type { UserRow } from '../users/service.js';
import { WITH_NAMESPACE, primeNamespaces } from './loaders.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';

/** A project row; projects are always read with their namespace and its owner (see WITH_NAMESPACE). */
export type ProjectRow = Awaited<ReturnType<PrismaClient['project']['findUniqueOrThrow']>> & { namespace: NamespaceRow & { owner: UserRow | null } };

export interface ProjectFilters {
  search?: string | null;
  searchNamespaces?: boolean | null;
  owned?: boolean | null;
  membership?: boolean | null;
  visibility?: Visibility | null;
  repositoryStorage?: string | null;
  archived?: boolean | null;
  minAccessLevel?: number | null;
  orderBy?: 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | null;
  sort?: 'ASC' | 'DESC' | null;
  /** Only projects with a greater (idAfter) or smaller (idBefore) ID: GitLab's filters, and its keyset pages' links. */
  idAfter?: number | null;
  idBefore?: number | null;
  /** Only projects directly in this namespace (a user's personal projects: `GET /users/:id/projects`). */
  namespaceId?: number | null;
}

export interface ProjectInput {
  name?: string | null;
  path?: string | null;
  /** The namespace to create the project in; the viewer's personal one when absent. */
  namespace?: Ref | null;
  description?: string | null;
  visibility?: Visibility | null;
  defaultBranch?: string | null;
  /** An avatar image (a file of a multipart body). */
  avatar?: UploadedFile | null;
}

const ORDER_COLUMNS = {
  id: 'id',
  name: 'name',
  path: 'path',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  last_activity_at: 'lastActivityAt',
} as const;

export class ProjectsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
    private readonly members: MembersService,
    private readonly activity: ActivityService,
  ) {}

  /** A project the viewer can read, by ID or full path; null otherwise. */
  async find(ref: Ref): Promise<ProjectRow | null> {
    const { loaders, access } = this.base;
    // GitLab looks a project up by path only when the path has a slash; anything else names nothing.
    const project = 'id' in ref ? await loaders.projects.byId.load(ref.id) : ref.path.includes('/') ? await this.byPath(ref.path) : null;
    return project && (await access.can('read_project', project)) ? project : null;
  }

  /** The project's avatar as a download (GitLab's `GET /projects/:id/avatar`); `404 Avatar Not Found` without one. */
  async avatarFile(project: ProjectRow): Promise<{ filename: string; contentType: string; contentDisposition: string; content: string }> {
    const file = project.avatar ? await this.base.app.uploads.avatarFile('project', project.id, project.avatar) : null;
    if (!project.avatar || !file) throw notFound('Avatar');
    return {
      filename: project.avatar,
      contentType: 'application/octet-stream',
      contentDisposition: contentDisposition('attachment', project.avatar),
      content: (await readFile(file.path)).toString('base64'),
    };
  }

  /** Case-insensitive, as GitLab's routes; the exact spelling first, since only it can use the unique index. */
  private async byPath(fullPath: string): Promise<ProjectRow | null> {
    const db = this.base.db;
    const project =
      (await db.project.findUnique({ where: { fullPath }, ...WITH_NAMESPACE })) ??
      (await db.project.findFirst({ where: { fullPath: equalsIgnoringCase(fullPath) }, ...WITH_NAMESPACE }));
    if (project) primeNamespaces(this.base.loaders, [project]);
    return project;
  }

  async get(ref: Ref): Promise<ProjectRow> {
    const project = await this.find(ref);
    if (!project) throw notFound('Project');
    return project;
  }

  async list(filters: ProjectFilters, page: PageArgs) {
    const { access } = this.base;
    const and: Prisma.ProjectWhereInput[] = [await access.where('read_project')];
    if (filters.owned) and.push({ namespace: { kind: 'user', ownerId: access.requireViewer().id } });
    if (filters.membership || filters.minAccessLevel != null) and.push(await access.memberProjectsWhere({ minAccessLevel: filters.minAccessLevel }));
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.archived != null) and.push({ archived: filters.archived });
    if (filters.idAfter != null) and.push({ id: { gt: filters.idAfter } });
    if (filters.idBefore != null) and.push({ id: { lt: filters.idBefore } });
    if (filters.namespaceId != null) and.push({ namespaceId: filters.namespaceId });
    // Only administrators may filter by storage shard; GitLab ignores the filter for others.
    if (filters.repositoryStorage && access.allowed('admin_all_resources')) and.push({ repositoryStorage: filters.repositoryStorage });
    if (filters.search) {
      const term = containsIgnoringCase(filters.search);
      and.push({ OR: [{ name: term }, { path: term }, ...(filters.searchNamespaces ? [{ fullPath: term }] : []), { description: term }] });
    }
    const where: Prisma.ProjectWhereInput = { AND: and };
    const direction = filters.sort === 'ASC' ? 'asc' : 'desc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'created_at'];
    const order: KeysetOrder = column === 'id' ? [['id', direction]] : [[column, direction], ['id', direction]];
    return this.page(where, order, page);
  }

  /** Readable projects of a namespace (and its descendants when asked), with those `alsoWhere` names (projects shared with a group). */
  async listInNamespace(ns: NamespaceRow, includeDescendants: boolean, page: PageArgs, alsoWhere?: Prisma.ProjectWhereInput) {
    const own: Prisma.ProjectWhereInput = includeDescendants ? { namespace: { traversalIds: { has: ns.id } } } : { namespaceId: ns.id };
    const scope = alsoWhere ? { OR: [own, alsoWhere] } : own;
    return this.page({ AND: [await this.base.access.where('read_project'), scope] }, [['id', 'asc']], page);
  }

  private page(where: Prisma.ProjectWhereInput, order: KeysetOrder, page: PageArgs) {
    const { db, loaders } = this.base;
    const orderBy = order.map(([field, direction]) => ({ [field]: direction }));
    return connection(
      page,
      async ({ skip, take, seek }) => primeNamespaces(loaders, await db.project.findMany({ where: seek ? { AND: [where, seek] } : where, orderBy, skip, take, ...WITH_NAMESPACE })),
      () => db.project.count({ where }),
      order,
    );
  }

  /**
   * GitLab's `projects_limit`: how many projects a user may create in personal namespaces (the creator's limit
   * counts, wherever the personal namespace). Null while under it.
   */
  private async personalProjectsLimitError(creatorId: number): Promise<string | null> {
    const { db } = this.base;
    const creator = await this.base.loaders.users.byId.load(creatorId);
    if (!creator) return null;
    const created = await db.project.count({ where: { creatorId, namespace: { kind: 'user' } } });
    if (created < creator.projectsLimit) return null;
    return creator.projectsLimit === 0
      ? 'You cannot create projects in your personal namespace. Contact your GitLab administrator.'
      : `You've reached your limit of ${creator.projectsLimit} projects created. Contact your GitLab administrator.`;
  }

  /** Number of projects in the namespace and its descendants. */
  countInNamespaceTree(ns: NamespaceRow): Promise<number> {
    return this.base.loaders.projects.countInNamespaceTree.load(ns.id);
  }

  /**
   * The repository's state after a ref update (src/modules/repositories): whether it has a branch, its default
   * branch, and the project's last activity when something was pushed. No ability is checked: the caller pushed.
   */
  async repositoryChanged(tx: Prisma.TransactionClient, projectId: number, state: { emptyRepo: boolean; defaultBranch: string; pushedAt?: boolean }): Promise<void> {
    await tx.project.update({
      where: { id: projectId },
      data: { emptyRepo: state.emptyRepo, defaultBranch: state.defaultBranch, ...(state.pushedAt ? { lastActivityAt: new Date() } : {}) },
      select: { id: true },
    });
    this.base.loaders.projects.byId.clear(projectId);
  }

  /**
   * Creates a project in a namespace where the viewer may `create_projects` (their own, or a group where they are
   * at least Developer, GitLab's default project creation level). The creator of a personal project becomes its Owner.
   */
  async create(input: ProjectInput): Promise<ProjectRow> {
    const { db, access, loaders, app } = this.base;
    const viewer = access.requireViewer();
    if (!input.name && !input.path) throw atLeastOneOf('name', 'path');
    const ns = input.namespace ? await this.namespaces.lookup(input.namespace) : await loaders.namespaces.personalByOwnerId.load(viewer.id);
    if (!ns || !(await access.can('read_namespace', ns))) throw notFound('Namespace');
    await access.authorize('create_projects', ns);

    const path = input.path ?? pathFromName(input.name ?? '');
    const name = input.name ?? path;
    const visibility = input.visibility ?? 'private';
    const errors: Record<string, string[]> = {};
    if (!name.trim()) errors.name = ["can't be blank"];
    if (!isValidPath(path)) errors.path = [PATH_RULE];
    if (ns.kind === 'group' && VISIBILITY_RANK[visibility] > VISIBILITY_RANK[ns.visibility as Visibility]) {
      errors.visibilityLevel = [`${visibility} is not allowed in a ${ns.visibility} group.`];
    }
    const clash = await db.project.findFirst({
      where: { namespaceId: ns.id, OR: [{ path: equalsIgnoringCase(path) }, { name: equalsIgnoringCase(name) }] },
      select: { path: true, name: true },
    });
    if (clash?.path.toLowerCase() === path.toLowerCase()) errors.path = [...(errors.path ?? []), 'has already been taken'];
    if (clash?.name.toLowerCase() === name.toLowerCase()) errors.name = [...(errors.name ?? []), 'has already been taken'];
    if (input.avatar) {
      const problems = avatarProblems(input.avatar);
      if (problems.length) errors.avatar = problems;
    }
    if (ns.kind === 'user') {
      const limit = await this.personalProjectsLimitError(viewer.id);
      if (limit) errors.limitReached = [limit];
    }
    if (Object.keys(errors).length) throw invalid(errors);

    const project = await db.$transaction(async (tx) => {
      const created = await tx.project.create({
        ...WITH_NAMESPACE,
        data: {
          name,
          path,
          fullPath: `${ns.fullPath}/${path}`,
          description: input.description ?? null,
          visibility,
          defaultBranch: input.defaultBranch ?? 'main',
          repositoryStorage: app.repositories.pick(),
          namespaceId: ns.id,
          creatorId: viewer.id,
        },
      });
      if (ns.kind === 'user' && ns.ownerId != null) await this.members.addCreator(tx, { projectId: created.id }, ns.ownerId);
      if (!input.avatar) return created;
      return replaceAvatar(app.uploads, 'project', created.id, input.avatar, (avatar) => tx.project.update({ ...WITH_NAMESPACE, where: { id: created.id }, data: { avatar } }));
    });
    // After the commit: a repository is never left behind by a project that does not exist. Should this fail (or
    // the server die right here), the repository is created on first use instead (RepositoryStorages.ensure).
    await app.repositories.ensure(project, project.defaultBranch).catch((error: unknown) => app.logger.warn({ err: String(error), projectId: project.id }, 'repository not created yet'));
    await this.activity.record({ action: 'created', authorId: viewer.id, project, targetType: null });
    return project;
  }
}
