/** Owns projects: lookup by ID or path with visibility rules, filtered lists, and creation. */
import type { ServiceDeps } from '../../context.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import {
  AccessLevel,
  VISIBILITY_RANK,
  canRead,
  requireLevel,
  requireViewer,
  requireWriteScope,
  type Visibility,
} from '../../auth/policy.js';
import { forbidden, invalid, invalidParams, notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { isNumericId } from '../../graphql/ids.js';
import { PATH_RULE, isValidPath, pathFromName } from '../namespaces/paths.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { UserRow } from '../users/service.js';
import { WITH_NAMESPACE, primeNamespaces } from './loaders.js';

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
}

export interface ProjectInput {
  name?: string | null;
  path?: string | null;
  namespaceId?: string | null;
  description?: string | null;
  visibility?: Visibility | null;
  defaultBranch?: string | null;
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
  constructor(private readonly deps: ServiceDeps) {}

  /** The viewer's effective access level on the project. */
  accessLevel(project: ProjectRow): Promise<number> {
    return this.deps.services.members.levelInProject(project.id, project.namespace);
  }

  /** A project the viewer can read, by numeric ID or full path; null otherwise. */
  async find(ref: string): Promise<ProjectRow | null> {
    const { loaders, viewer } = this.deps;
    // A full path always has a slash; anything else that is not a number names nothing.
    const project = isNumericId(ref) ? await loaders.projects.byId.load(Number(ref)) : ref.includes('/') ? await this.byPath(ref) : null;
    if (!project) return null;
    return canRead(viewer, project.visibility, await this.accessLevel(project)) ? project : null;
  }

  /** Case-insensitive, as GitLab's routes; the exact spelling first, since only it can use the unique index. */
  private async byPath(fullPath: string): Promise<ProjectRow | null> {
    const db = this.deps.db;
    const project =
      (await db.project.findUnique({ where: { fullPath }, include: WITH_NAMESPACE })) ??
      (await db.project.findFirst({ where: { fullPath: { equals: fullPath, mode: 'insensitive' } }, include: WITH_NAMESPACE }));
    if (project) primeNamespaces(this.deps.loaders, [project]);
    return project;
  }

  async get(ref: string): Promise<ProjectRow> {
    const project = await this.find(ref);
    if (!project) throw notFound('Project');
    return project;
  }

  /** A readable project on which the viewer has at least `min` access; FORBIDDEN below it. */
  async getWithAccess(ref: string, min: number): Promise<{ project: ProjectRow; level: number }> {
    const project = await this.get(ref);
    const level = await this.accessLevel(project);
    requireLevel(this.deps.viewer, level, min);
    return { project, level };
  }

  /** Visible to the viewer: public, internal (signed-in, not external), or through a membership; all for administrators. */
  private async readableWhere(): Promise<Prisma.ProjectWhereInput> {
    const viewer = this.deps.viewer;
    if (viewer?.admin) return {};
    const open: Prisma.ProjectWhereInput[] = [{ visibility: 'public' }];
    if (viewer && !viewer.external) open.push({ visibility: 'internal' });
    if (viewer) open.push(await this.memberWhere(AccessLevel.GUEST));
    return { OR: open };
  }

  private async memberWhere(min: number): Promise<Prisma.ProjectWhereInput> {
    const viewer = requireViewer(this.deps.viewer);
    const { groupIds, projectIds } = await this.deps.services.members.viewerMembershipIds(min);
    return {
      OR: [{ id: { in: projectIds } }, { namespace: { traversalIds: { hasSome: groupIds } } }, { namespace: { ownerId: viewer.id } }],
    };
  }

  async list(filters: ProjectFilters, page: PageArgs) {
    const viewer = this.deps.viewer;
    const and: Prisma.ProjectWhereInput[] = [await this.readableWhere()];
    if (filters.owned) and.push({ namespace: { ownerId: requireViewer(viewer).id } });
    if (filters.membership || filters.minAccessLevel != null) {
      and.push(await this.memberWhere(filters.minAccessLevel ?? AccessLevel.GUEST));
    }
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.archived != null) and.push({ archived: filters.archived });
    // Only administrators may filter by storage shard; GitLab ignores the filter for others.
    if (filters.repositoryStorage && viewer?.admin) and.push({ repositoryStorage: filters.repositoryStorage });
    if (filters.search) {
      const term = { contains: filters.search, mode: 'insensitive' as const };
      and.push({ OR: [{ name: term }, { path: term }, ...(filters.searchNamespaces ? [{ fullPath: term }] : []), { description: term }] });
    }
    const where: Prisma.ProjectWhereInput = { AND: and };
    const direction = filters.sort === 'ASC' ? 'asc' : 'desc';
    const orderBy: Prisma.ProjectOrderByWithRelationInput[] = [{ [ORDER_COLUMNS[filters.orderBy ?? 'created_at']]: direction }, { id: direction }];
    const db = this.deps.db;
    return connection(
      page,
      async ({ skip, take }) => primeNamespaces(this.deps.loaders, await db.project.findMany({ where, orderBy, skip, take, include: WITH_NAMESPACE })),
      () => db.project.count({ where }),
    );
  }

  /** Readable projects of a namespace (and its descendants when asked). */
  async listInNamespace(ns: NamespaceRow, includeDescendants: boolean, page: PageArgs) {
    const scope: Prisma.ProjectWhereInput = includeDescendants ? { namespace: { traversalIds: { has: ns.id } } } : { namespaceId: ns.id };
    const where: Prisma.ProjectWhereInput = { AND: [await this.readableWhere(), scope] };
    const db = this.deps.db;
    return connection(
      page,
      async ({ skip, take }) =>
        primeNamespaces(this.deps.loaders, await db.project.findMany({ where, orderBy: { id: 'asc' }, skip, take, include: WITH_NAMESPACE })),
      () => db.project.count({ where }),
    );
  }

  countInNamespaceTree(namespaceId: number): Promise<number> {
    return this.deps.loaders.projects.countInNamespaceTree.load(namespaceId);
  }

  /**
   * Creates a project in the viewer's personal namespace or a group where they are at least Developer
   * (GitLab's default project creation level). The creator of a personal project becomes its Owner.
   */
  async create(input: ProjectInput): Promise<ProjectRow> {
    requireWriteScope(this.deps.viewer);
    const viewer = requireViewer(this.deps.viewer);
    if (!input.name && !input.path) throw invalidParams(['name, path are missing, at least one parameter must be provided']);
    const { db, services } = this.deps;
    const ns = input.namespaceId != null
      ? await services.namespaces.lookup(input.namespaceId)
      : await this.deps.loaders.namespaces.personalByOwnerId.load(viewer.id);
    if (!ns || !(await services.namespaces.canSee(ns))) throw notFound('Namespace');
    const level = await services.members.levelInNamespace(ns);
    if (!viewer.admin && level < (ns.kind === 'user' ? AccessLevel.OWNER : AccessLevel.DEVELOPER)) throw forbidden();

    const path = input.path ?? pathFromName(input.name ?? '');
    const name = input.name ?? path;
    const visibility = input.visibility ?? 'private';
    const errors: Record<string, string[]> = {};
    if (!name.trim()) errors.name = ["can't be blank"];
    if (!isValidPath(path)) errors.path = [PATH_RULE];
    if (ns.kind === 'group' && VISIBILITY_RANK[visibility] > VISIBILITY_RANK[ns.visibility as Visibility]) {
      errors.visibility_level = [`${visibility} is not allowed in a ${ns.visibility} group.`];
    }
    const clash = await db.project.findFirst({
      where: { namespaceId: ns.id, OR: [{ path: { equals: path, mode: 'insensitive' } }, { name: { equals: name, mode: 'insensitive' } }] },
      select: { path: true, name: true },
    });
    if (clash?.path.toLowerCase() === path.toLowerCase()) errors.path = [...(errors.path ?? []), 'has already been taken'];
    if (clash?.name.toLowerCase() === name.toLowerCase()) errors.name = [...(errors.name ?? []), 'has already been taken'];
    if (Object.keys(errors).length) throw invalid(errors);

    const project = await db.$transaction(async (tx) => {
      const created = await tx.project.create({
        include: WITH_NAMESPACE,
        data: {
          name,
          path,
          fullPath: `${ns.fullPath}/${path}`,
          description: input.description ?? null,
          visibility,
          defaultBranch: input.defaultBranch ?? 'main',
          namespaceId: ns.id,
          creatorId: viewer.id,
        },
      });
      if (ns.kind === 'user' && ns.ownerId != null) await services.members.addOwner(tx, { projectId: created.id }, ns.ownerId);
      return created;
    });
    await services.activity.record({ action: 'created', authorId: viewer.id, projectId: project.id, targetType: null });
    return project;
  }
}
