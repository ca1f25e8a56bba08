/** Groups: the group rows of the namespaces table — lookup, lists, subgroups and creation. */
import type { ServiceDeps } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { AccessLevel, VISIBILITY_RANK, canRead, requireLevel, requireViewer, requireWriteScope, type Visibility } from '../../auth/policy.js';
import { forbidden, notFound, rejected } from '../../errors.js';
import { connection, type PageArgs } from '../../graphql/connection.js';
import { parseId } from '../../graphql/ids.js';
import { PATH_RULE, isValidPath } from './paths.js';
import { NamespacesService, fuzzyWhere, type NamespaceRow } from './service.js';

export interface GroupFilters {
  search?: string | null;
  owned?: boolean | null;
  minAccessLevel?: number | null;
  topLevelOnly?: boolean | null;
  allAvailable?: boolean | null;
  visibility?: Visibility | null;
  orderBy?: 'name' | 'path' | 'id' | 'created_at' | 'updated_at' | null;
  sort?: 'ASC' | 'DESC' | null;
}

export interface GroupInput {
  name: string;
  path: string;
  parentId?: string | null;
  visibility?: Visibility | null;
  description?: string | null;
}

const ORDER_COLUMNS = { name: 'name', path: 'path', id: 'id', created_at: 'createdAt', updated_at: 'updatedAt' } as const;

/** Ruby's Hash#inspect of ActiveModel errors, as GitLab puts it into `Failed to save group …`. */
function rubyErrors(errors: Record<string, string[]>): string {
  const entries = Object.entries(errors).map(([k, v]) => `:${k}=>[${v.map((m) => JSON.stringify(m)).join(', ')}]`);
  return `{${entries.join(', ')}}`;
}

export class GroupsService {
  constructor(private readonly deps: ServiceDeps) {}

  /** A readable group by numeric ID or full path; null otherwise. */
  async find(ref: string): Promise<NamespaceRow | null> {
    const ns = await this.deps.services.namespaces.lookup(ref);
    if (!ns || ns.kind !== 'group') return null;
    return canRead(this.deps.viewer, ns.visibility, await this.deps.services.members.levelInNamespace(ns)) ? ns : null;
  }

  async get(ref: string): Promise<NamespaceRow> {
    const group = await this.find(ref);
    if (!group) throw notFound('Group');
    return group;
  }

  /** Where-clause of the groups the viewer can read (all for administrators). */
  private async readableWhere(): Promise<Prisma.NamespaceWhereInput> {
    const viewer = this.deps.viewer;
    if (viewer?.admin) return { kind: 'group' };
    const open: Prisma.NamespaceWhereInput[] = [{ visibility: 'public' }];
    if (viewer && !viewer.external) open.push({ visibility: 'internal' });
    if (viewer) {
      const { groupIds } = await this.deps.services.members.viewerMembershipIds();
      open.push({ traversalIds: { hasSome: groupIds } });
    }
    return { kind: 'group', OR: open };
  }

  async list(filters: GroupFilters, page: PageArgs) {
    const viewer = this.deps.viewer;
    const and: Prisma.NamespaceWhereInput[] = [await this.readableWhere()];
    // A signed-in non-admin sees their own groups unless all_available is set; owned and min_access_level
    // narrow anyone's list to groups they hold at least that level in (inherited by subgroups).
    if (filters.owned || filters.minAccessLevel != null || (viewer && !viewer.admin && !filters.allAvailable)) {
      requireViewer(viewer);
      const min = filters.owned ? AccessLevel.OWNER : (filters.minAccessLevel ?? AccessLevel.GUEST);
      const { groupIds } = await this.deps.services.members.viewerMembershipIds(min);
      and.push({ traversalIds: { hasSome: groupIds } });
    }
    if (filters.topLevelOnly) and.push({ parentId: null });
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.search) and.push(fuzzyWhere(filters.search, ['name', 'path']));
    return this.page({ AND: and }, filters, page);
  }

  /** Direct subgroups of a readable group. */
  async subgroups(parent: NamespaceRow, search: string | null | undefined, page: PageArgs) {
    const and: Prisma.NamespaceWhereInput[] = [await this.readableWhere(), { parentId: parent.id }];
    if (search) and.push(fuzzyWhere(search, ['name', 'path']));
    return this.page({ AND: and }, {}, page);
  }

  private page(where: Prisma.NamespaceWhereInput, filters: Pick<GroupFilters, 'orderBy' | 'sort'>, page: PageArgs) {
    const direction = filters.sort === 'DESC' ? 'desc' : 'asc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'name'];
    const orderBy: Prisma.NamespaceOrderByWithRelationInput[] = [{ [column]: direction }, { id: direction }];
    const db = this.deps.db;
    return connection(
      page,
      ({ skip, take }) => db.namespace.findMany({ where, orderBy, skip, take }),
      () => db.namespace.count({ where }),
    );
  }

  /** Creates a group; its creator becomes Owner. Subgroups need Maintainer access to the parent. */
  async create(input: GroupInput): Promise<NamespaceRow> {
    requireWriteScope(this.deps.viewer);
    const viewer = requireViewer(this.deps.viewer);
    const { db, services } = this.deps;
    let parent: NamespaceRow | null = null;
    if (input.parentId != null) {
      parent = await this.get(String(parseId(input.parentId, 'Group', 'parent_id')));
      requireLevel(viewer, await services.members.levelInNamespace(parent), AccessLevel.MAINTAINER);
    } else if (!viewer.admin) {
      const user = await services.users.get({ id: String(viewer.id) });
      if (!user.canCreateGroup) throw forbidden();
    }
    const visibility = input.visibility ?? 'private';
    const errors: Record<string, string[]> = {};
    if (!isValidPath(input.path)) errors.path = [PATH_RULE];
    if (!input.name.trim()) errors.name = ["can't be blank"];
    if (parent && VISIBILITY_RANK[visibility] > VISIBILITY_RANK[parent.visibility as Visibility]) {
      errors.visibility_level = [`${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`];
    }
    const taken = parent
      ? await db.namespace.findFirst({ where: { parentId: parent.id, path: { equals: input.path, mode: 'insensitive' } }, select: { id: true } })
      : !(await services.namespaces.isTopLevelPathFree(input.path));
    if (taken) errors.path = [...(errors.path ?? []), 'has already been taken'];
    if (Object.keys(errors).length) throw rejected(`Failed to save group ${rubyErrors(errors)}`);

    return db.$transaction(async (tx) => {
      const group = await NamespacesService.insert(
        tx,
        {
          kind: 'group',
          name: input.name,
          path: input.path,
          fullPath: parent ? `${parent.fullPath}/${input.path}` : input.path,
          fullName: parent ? `${parent.fullName} / ${input.name}` : input.name,
          description: input.description ?? '',
          visibility,
          parentId: parent?.id ?? null,
        },
        parent?.traversalIds ?? [],
      );
      await services.members.addOwner(tx, { namespaceId: group.id }, viewer.id);
      return group;
    });
  }
}
