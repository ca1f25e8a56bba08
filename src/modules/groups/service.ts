/** Owns groups, the group rows of the namespaces table: lookup, lists, subgroups and creation. */
import type { UploadedFile } from '../../uploads/storage.js';
import { avatarProblems, replaceAvatar } from '../../uploads/avatars.js';
import type { Prisma } from '../../db/database.js';
import { invalid, notFound } from '../../errors.js';
import { connection, type KeysetOrder, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import type { MembersService } from '../members/service.js';
import { PATH_RULE, VISIBILITY_RANK, isValidPath, type Visibility } from '../namespaces/paths.js';
import { NamespacesService, fuzzyWhere, type NamespaceRow } from '../namespaces/service.js';

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
  /** The parent group, for a subgroup. */
  parent?: Ref | null;
  visibility?: Visibility | null;
  description?: string | null;
  /** An avatar image (a file of a multipart body). */
  avatar?: UploadedFile | null;
}

const ORDER_COLUMNS = { name: 'name', path: 'path', id: 'id', created_at: 'createdAt', updated_at: 'updatedAt' } as const;

export class GroupsService {
  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
    private readonly members: MembersService,
  ) {}

  /** A readable group by ID or full path; null otherwise. */
  async find(ref: Ref): Promise<NamespaceRow | null> {
    const ns = await this.namespaces.lookup(ref);
    return ns && (await this.base.access.can('read_group', ns)) ? ns : null;
  }

  async get(ref: Ref): Promise<NamespaceRow> {
    const group = await this.find(ref);
    if (!group) throw notFound('Group');
    return group;
  }

  async list(filters: GroupFilters, page: PageArgs) {
    const { access } = this.base;
    const and: Prisma.NamespaceWhereInput[] = [await access.where('read_group')];
    // A signed-in user who is not an administrator sees their own groups unless all_available is set; owned and
    // min_access_level narrow anyone's list to groups they hold at least that level in (inherited by subgroups).
    const ownOnly = !!access.viewer && !access.allowed('admin_all_resources') && !filters.allAvailable;
    if (filters.owned || filters.minAccessLevel != null || ownOnly) and.push(await access.memberGroupsWhere(filters));
    if (filters.topLevelOnly) and.push({ parentId: null });
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.search) and.push(fuzzyWhere(filters.search, ['name', 'path']));
    return this.page({ AND: and }, filters, page);
  }

  /** Direct subgroups of a readable group that the viewer can read. */
  async subgroups(parent: NamespaceRow, search: string | null | undefined, page: PageArgs) {
    const and: Prisma.NamespaceWhereInput[] = [await this.base.access.where('read_group'), { parentId: parent.id }];
    if (search) and.push(fuzzyWhere(search, ['name', 'path']));
    return this.page({ AND: and }, {}, page);
  }

  private page(where: Prisma.NamespaceWhereInput, filters: Pick<GroupFilters, 'orderBy' | 'sort'>, page: PageArgs) {
    const direction = filters.sort === 'DESC' ? 'desc' : 'asc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'name'];
    const order: KeysetOrder = column === 'id' ? [['id', direction]] : [[column, direction], ['id', direction]];
    const orderBy = order.map(([field, dir]) => ({ [field]: dir }));
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take, seek }) => db.namespace.findMany({ where: seek ? { AND: [where, seek] } : where, orderBy, skip, take }),
      () => db.namespace.count({ where }),
      order,
    );
  }

  /** Creates a group; its creator becomes Owner. Top-level groups need `create_group`, subgroups `create_subgroup` on the parent. */
  async create(input: GroupInput): Promise<NamespaceRow> {
    const { db, access } = this.base;
    const viewer = access.requireViewer();
    const parent = input.parent ? await this.get(input.parent) : null;
    if (parent) await access.authorize('create_subgroup', parent);
    else await access.authorize('create_group', null);
    const visibility = input.visibility ?? 'private';
    const errors: Record<string, string[]> = {};
    if (!isValidPath(input.path)) errors.path = [PATH_RULE];
    if (!input.name.trim()) errors.name = ["can't be blank"];
    if (parent && VISIBILITY_RANK[visibility] > VISIBILITY_RANK[parent.visibility as Visibility]) {
      errors.visibilityLevel = [`${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`];
    }
    const taken = parent ? await this.namespaces.takenIn(parent.id, input.path, false) : !(await this.namespaces.isTopLevelPathFree(input.path));
    if (taken) errors.path = [...(errors.path ?? []), 'has already been taken'];
    if (input.avatar) {
      const problems = avatarProblems(input.avatar);
      if (problems.length) errors.avatar = problems;
    }
    if (Object.keys(errors).length) throw invalid(errors, { failedToSave: 'group' });

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
      await this.members.addCreator(tx, { namespaceId: group.id }, viewer.id);
      if (!input.avatar) return group;
      return replaceAvatar(this.base.app.uploads, 'group', group.id, input.avatar, (avatar) => tx.namespace.update({ where: { id: group.id }, data: { avatar } }));
    });
  }
}
