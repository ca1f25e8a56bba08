/** Owns the namespaces table (personal namespaces and groups): the /namespaces API and lookups other modules use. */
import type { ServiceDeps } from '../../context.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { AccessLevel, canRead, requireViewer } from '../../auth/policy.js';
import { notFound } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { isNumericId } from '../../graphql/ids.js';
import { slugForSuggestion, suggestionCandidates } from './paths.js';

export type NamespaceRow = Awaited<ReturnType<PrismaClient['namespace']['findUniqueOrThrow']>>;

export interface NamespaceFilters {
  search?: string | null;
  ownedOnly?: boolean | null;
  topLevelOnly?: boolean | null;
}

/** GitLab's fuzzy search: words of 3+ characters must each appear in the name or path; shorter queries match whole. */
export function fuzzyWhere(search: string, fields: readonly ('name' | 'path')[]): Prisma.NamespaceWhereInput {
  const words = search.split(/\s+/).filter((w) => w.length >= 3);
  if (!words.length) return { OR: fields.map((f) => ({ [f]: { equals: search, mode: 'insensitive' } })) };
  return { AND: words.map((w) => ({ OR: fields.map((f) => ({ [f]: { contains: w, mode: 'insensitive' } })) })) };
}

export class NamespacesService {
  constructor(private readonly deps: ServiceDeps) {}

  /** A user's namespace. */
  static createPersonal(tx: Prisma.TransactionClient, user: { id: number; username: string; name: string }) {
    return NamespacesService.insert(tx, { kind: 'user', name: user.username, path: user.username, fullPath: user.username, fullName: user.name, ownerId: user.id }, []);
  }

  /** Inserts a namespace whose traversal ids are its parent's followed by its own (known only once inserted). */
  static async insert(tx: Prisma.TransactionClient, data: Omit<Prisma.NamespaceUncheckedCreateInput, 'traversalIds'>, parentTraversalIds: number[]) {
    const ns = await tx.namespace.create({ data: { ...data, traversalIds: [] } });
    return tx.namespace.update({ where: { id: ns.id }, data: { traversalIds: [...parentTraversalIds, ns.id] } });
  }

  /** A namespace row by numeric ID or full path, without any permission check (for services that check themselves). */
  async lookup(ref: string): Promise<NamespaceRow | null> {
    if (isNumericId(ref)) return this.deps.loaders.namespaces.byId.load(Number(ref));
    // Paths match case-insensitively, as GitLab's routes do; the exact spelling is tried first because only
    // it can use the unique index.
    const db = this.deps.db;
    return (await db.namespace.findUnique({ where: { fullPath: ref } })) ?? db.namespace.findFirst({ where: { fullPath: { equals: ref, mode: 'insensitive' } } });
  }

  /** Whether the viewer may see the namespace through the namespaces API: its owner, a group reader, or an administrator. */
  async canSee(ns: NamespaceRow): Promise<boolean> {
    const { viewer, services } = this.deps;
    if (ns.kind === 'user') return !!viewer && (viewer.admin || ns.ownerId === viewer.id);
    return canRead(viewer, ns.visibility, await services.members.levelInNamespace(ns));
  }

  /** Owner of a personal namespace, group Owner, or administrator: sees plan and size fields. */
  async canAdmin(ns: NamespaceRow): Promise<boolean> {
    const viewer = this.deps.viewer;
    if (!viewer) return false;
    return viewer.admin || (await this.deps.services.members.levelInNamespace(ns)) >= AccessLevel.OWNER;
  }

  async get(ref: string): Promise<NamespaceRow> {
    requireViewer(this.deps.viewer);
    const ns = await this.lookup(ref);
    if (!ns || !(await this.canSee(ns))) throw notFound('Namespace');
    return ns;
  }

  /** GraphQL's nullable lookup. */
  async find(ref: string): Promise<NamespaceRow | null> {
    const ns = await this.lookup(ref);
    return ns && (await this.canSee(ns)) ? ns : null;
  }

  /** The viewer's personal namespace and the groups they are a direct member of; everything for administrators. */
  async list(filters: NamespaceFilters, page: PageArgs) {
    const viewer = requireViewer(this.deps.viewer);
    const and: Prisma.NamespaceWhereInput[] = [];
    if (!viewer.admin || filters.ownedOnly) {
      const { groupIds } = await this.deps.services.members.viewerMembershipIds(filters.ownedOnly ? AccessLevel.OWNER : AccessLevel.GUEST);
      and.push({ OR: [{ ownerId: viewer.id }, { id: { in: groupIds } }] });
    }
    if (filters.topLevelOnly) and.push({ parentId: null });
    if (filters.search) and.push(fuzzyWhere(filters.search, ['name', 'path']));
    const where: Prisma.NamespaceWhereInput = { AND: and };
    const db = this.deps.db;
    return connection(
      page,
      ({ skip, take }) => db.namespace.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.namespace.count({ where }),
    );
  }

  async isTopLevelPathFree(path: string): Promise<boolean> {
    return !(await this.takenIn(null, path, false));
  }

  /** Whether `path` is taken among the children of `parentId` (top level when null), with a free alternative. */
  async exists(path: string, parentId: number | null): Promise<{ exists: boolean; suggests: string[] }> {
    requireViewer(this.deps.viewer);
    if (!(await this.takenIn(parentId, path, false))) return { exists: false, suggests: [] };
    for (const candidate of suggestionCandidates(slugForSuggestion(path))) {
      if (!(await this.takenIn(parentId, candidate, true))) return { exists: true, suggests: [candidate] };
    }
    return { exists: true, suggests: [] };
  }

  private async takenIn(parentId: number | null, path: string, orName: boolean): Promise<boolean> {
    const match = { equals: path, mode: 'insensitive' as const };
    const found = await this.deps.db.namespace.findFirst({
      where: { parentId, OR: orName ? [{ path: match }, { name: match }] : [{ path: match }] },
      select: { id: true },
    });
    return found !== null;
  }

  /** Number of projects in the namespace and its descendants. */
  projectsCount(ns: NamespaceRow): Promise<number> {
    return this.deps.services.projects.countInNamespaceTree(ns.id);
  }
}
