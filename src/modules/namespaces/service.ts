/** Owns the namespaces table (personal namespaces and groups): the /namespaces API and lookups other modules use. */
import { Prisma, type PrismaClient } from '../../db/database.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import { allowedWhere } from '../../auth/policy.js';
import { slugForSuggestion, suggestionCandidates } from './paths.js';
import { containsIgnoringCase, equalsIgnoringCase } from '../../db/text.js';

export type NamespaceRow = Awaited<ReturnType<PrismaClient['namespace']['findUniqueOrThrow']>>;

export interface NamespaceFilters {
  search?: string | null;
  ownedOnly?: boolean | null;
  topLevelOnly?: boolean | null;
}

/** GitLab's fuzzy search: words of 3+ characters must each appear in the name or path; shorter queries match whole. */
export function fuzzyWhere(search: string, fields: readonly ('name' | 'path')[]): Prisma.NamespaceWhereInput {
  const words = search.split(/\s+/).filter((w) => w.length >= 3);
  if (!words.length) return { OR: fields.map((f) => ({ [f]: equalsIgnoringCase(search) })) };
  return { AND: words.map((w) => ({ OR: fields.map((f) => ({ [f]: containsIgnoringCase(w) })) })) };
}

/** What an old path redirects to: a project or a namespace (GitLab's polymorphic redirect source). */
export type RedirectSource = { projectId: number } | { namespaceId: number };

export class NamespacesService {
  constructor(private readonly base: ServiceBase) {}

  /**
   * Keeps `oldPath` reaching its source after a rename or a transfer (GitLab's Route#create_redirect_for_old_path),
   * inside the change's transaction. A path that redirected elsewhere now redirects here. A group rename records its
   * own old path and each moved project's, as GitLab renames every descendant route.
   */
  static async recordRedirect(tx: Prisma.TransactionClient, source: RedirectSource, oldPath: string): Promise<void> {
    const path = oldPath.toLowerCase();
    const target = { projectId: null, namespaceId: null, ...source };
    await tx.redirectRoute.upsert({ where: { path }, create: { path, ...target }, update: target });
  }

  /**
   * A path now taken by a project or namespace no longer redirects, nor does anything below it (GitLab's
   * Route#delete_conflicting_redirects): what holds a path wins over an old path's redirect.
   */
  static async releaseRedirects(tx: Prisma.TransactionClient, fullPath: string): Promise<void> {
    await tx.$executeRaw`${NamespacesService.releasingRedirects(fullPath)}`;
  }

  /** releaseRedirects as a statement, for a CTE of a statement that takes the path. */
  static releasingRedirects(fullPath: string): Prisma.Sql {
    const path = fullPath.toLowerCase();
    // starts_with, not LIKE: `_` and `%` are common in paths and mean nothing here.
    return Prisma.sql`DELETE FROM "redirect_routes" WHERE "path" = ${path} OR starts_with("path", ${`${path}/`})`;
  }

  /**
   * What a namespace's new full path does to the routes below it, in the caller's transaction (GitLab's
   * Route#rename_descendants with create_redirect_for_old_path): the namespace, every namespace under it and every
   * project in them answer at their new paths, and their old paths redirect to them until something takes those.
   * `move` changes the rows; the old and new paths are read around it.
   */
  static async renameRoutes(tx: Prisma.TransactionClient, namespaceId: number, oldPrefix: string, newPrefix: string, move: () => Promise<void>): Promise<void> {
    const under = { traversalIds: { has: namespaceId } };
    const [namespaces, projects] = await Promise.all([
      tx.namespace.findMany({ where: under, select: { id: true, fullPath: true } }),
      tx.project.findMany({ where: { namespace: under }, select: { id: true, fullPath: true } }),
    ]);
    await move();
    if (oldPrefix.toLowerCase() === newPrefix.toLowerCase()) return;
    const moved = (path: string) => newPrefix + path.slice(oldPrefix.length);
    for (const { id, fullPath } of namespaces) {
      await NamespacesService.releaseRedirects(tx, moved(fullPath));
      await NamespacesService.recordRedirect(tx, { namespaceId: id }, fullPath);
    }
    for (const { id, fullPath } of projects) {
      await NamespacesService.releaseRedirects(tx, moved(fullPath));
      await NamespacesService.recordRedirect(tx, { projectId: id }, fullPath);
    }
  }

  /** The source an old full path redirects to, if any (compared lower-cased, as GitLab's routes). */
  async redirectOf(fullPath: string): Promise<{ projectId: number | null; namespaceId: number | null } | null> {
    return this.base.db.redirectRoute.findUnique({ where: { path: fullPath.toLowerCase() }, select: { projectId: true, namespaceId: true } });
  }

  /** A user's namespace. */
  static createPersonal(tx: Prisma.TransactionClient, user: { id: number; username: string; name: string }) {
    return NamespacesService.insert(tx, { kind: 'user', name: user.username, path: user.username, fullPath: user.username, fullName: user.name, ownerId: user.id }, []);
  }

  /**
   * Follows a user's new username and name (GitLab renames the personal namespace with the user): its path, and the
   * full paths of the projects in it, in the caller's transaction. Personal namespaces have no subgroups.
   */
  static async renamePersonal(tx: Prisma.TransactionClient, user: { id: number; username: string; name: string }): Promise<void> {
    const ns = await tx.namespace.findUnique({ where: { ownerId: user.id }, select: { id: true, fullPath: true } });
    if (!ns) return;
    await NamespacesService.renameRoutes(tx, ns.id, ns.fullPath, user.username, async () => {
      await tx.namespace.update({ where: { id: ns.id }, data: { name: user.username, path: user.username, fullPath: user.username, fullName: user.name } });
      if (ns.fullPath !== user.username) {
        await tx.$executeRaw`UPDATE "projects" SET "fullPath" = ${user.username} || substr("fullPath", ${ns.fullPath.length + 1}) WHERE "namespaceId" = ${ns.id}`;
      }
    });
  }

  /**
   * Inserts a namespace whose traversal ids are its parent's followed by its own (known only once inserted); the
   * path it takes, and everything below it, stops redirecting to what held it before.
   */
  static async insert(tx: Prisma.TransactionClient, data: Omit<Prisma.NamespaceUncheckedCreateInput, 'traversalIds'>, parentTraversalIds: number[]) {
    await NamespacesService.releaseRedirects(tx, data.fullPath);
    const ns = await tx.namespace.create({ data: { ...data, traversalIds: [] } });
    return tx.namespace.update({ where: { id: ns.id }, data: { traversalIds: [...parentTraversalIds, ns.id] } });
  }

  /** A namespace row by ID or full path, without any permission check (for services that ask their own ability). */
  async lookup(ref: Ref): Promise<NamespaceRow | null> {
    if ('id' in ref) return this.base.loaders.namespaces.byId.load(ref.id);
    // Paths match case-insensitively, as GitLab's routes do; the exact spelling is tried first because only
    // it can use the unique index.
    const db = this.base.db;
    return (await db.namespace.findUnique({ where: { fullPath: ref.path } })) ?? db.namespace.findFirst({ where: { fullPath: equalsIgnoringCase(ref.path) } });
  }

  /** A namespace the viewer may read through the namespaces API (signed-in callers only, as GitLab's); null otherwise. */
  async find(ref: Ref): Promise<NamespaceRow | null> {
    this.base.access.requireViewer();
    const ns = await this.lookup(ref);
    return ns && (await this.base.access.can('read_namespace', ns)) ? ns : null;
  }

  /** A user's personal namespace, to those who may read it (its owner and administrators); null for others. */
  async personalOf(user: { id: number }): Promise<NamespaceRow | null> {
    const ns = await this.base.loaders.namespaces.personalByOwnerId.load(user.id);
    return ns && (await this.base.access.can('read_namespace', ns)) ? ns : null;
  }

  /** The viewer's personal namespace and the groups they are a direct member of; everything for administrators. */
  async list(filters: NamespaceFilters, page: PageArgs) {
    const { access } = this.base;
    access.requireViewer();
    const and: Prisma.NamespaceWhereInput[] = [];
    if (!access.allowed('admin_all_resources') || filters.ownedOnly) and.push(await access.heldNamespacesWhere({ owned: filters.ownedOnly }));
    if (filters.topLevelOnly) and.push({ parentId: null });
    if (filters.search) and.push(fuzzyWhere(filters.search, ['name', 'path']));
    const where: Prisma.NamespaceWhereInput = { AND: and };
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take }) => db.namespace.findMany({ where, orderBy: { id: 'asc' }, skip, take }),
      () => db.namespace.count({ where }),
    );
  }

  /**
   * GitLab's ForkTargetsFinder (Project.forkTargets): the viewer's personal namespace and the groups their own
   * memberships let them create projects in (an administrator's rights reach no further, as user.forkable_namespaces),
   * matching `search`; the personal namespace first.
   */
  async forkTargets(search: string | null | undefined, page: PageArgs) {
    const { access, db } = this.base;
    const actor = await access.actor('create_projects');
    const viewer = access.requireViewer();
    const groups = allowedWhere({ ...actor, viewer: { ...viewer, admin: false } }, 'create_projects');
    const and: Prisma.NamespaceWhereInput[] = [{ OR: [{ kind: 'user', ownerId: viewer.id }, { AND: [{ kind: 'group' }, groups] }] }];
    if (search) and.push(fuzzyWhere(search, ['name', 'path']));
    const where: Prisma.NamespaceWhereInput = { AND: and };
    return connection(
      page,
      ({ skip, take }) => db.namespace.findMany({ where, orderBy: [{ kind: 'desc' }, { id: 'asc' }], skip, take }),
      () => db.namespace.count({ where }),
    );
  }

  async isTopLevelPathFree(path: string): Promise<boolean> {
    return !(await this.takenIn(null, path, false));
  }

  /** Whether `path` is taken among the children of `parentId` (top level when null), with a free alternative. */
  async exists(path: string, parentId: number | null): Promise<{ exists: boolean; suggests: string[] }> {
    this.base.access.requireViewer();
    if (!(await this.takenIn(parentId, path, false))) return { exists: false, suggests: [] };
    for (const candidate of suggestionCandidates(slugForSuggestion(path))) {
      if (!(await this.takenIn(parentId, candidate, true))) return { exists: true, suggests: [candidate] };
    }
    return { exists: true, suggests: [] };
  }

  /** Whether a path (or, with `orName`, a name) is taken among the children of `parentId`. */
  async takenIn(parentId: number | null, path: string, orName: boolean): Promise<boolean> {
    const match = equalsIgnoringCase(path);
    const found = await this.base.db.namespace.findFirst({
      where: { parentId, OR: orName ? [{ path: match }, { name: match }] : [{ path: match }] },
      select: { id: true },
    });
    return found !== null;
  }
}
