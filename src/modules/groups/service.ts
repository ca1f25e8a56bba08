/** Owns groups, the group rows of the namespaces table: lookup, lists, subgroups, creation, settings and transfers. */
import { applySharedRunnersSetting, inheritedSharedRunners, sharedRunnersSettingError, type SharedRunnersSetting } from './shared-runners.js';
import type { UploadedFile } from '../../uploads/storage.js';
import { avatarDownload, avatarProblems, replaceAvatar, type FileDownload } from '../../uploads/avatars.js';
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import type { Prisma } from '../../db/database.js';
import { badRequest, invalid, notFound } from '../../errors.js';
import { connection, type KeysetOrder, type PageArgs } from '../../graphql/connection.js';
import type { Ref } from '../../graphql/ids.js';
import type { ServiceBase } from '../module.js';
import type { MembersService } from '../members/service.js';
import { PATH_RULE, VISIBILITY_RANK, isValidPath, type Visibility } from '../namespaces/paths.js';
import { NamespacesService, fuzzyWhere, type NamespaceRow } from '../namespaces/service.js';
import { CREATOR_ACCESS_LEVEL } from '../../auth/access-levels.js';
import { allowedWhere } from '../../auth/policy.js';
import { userViewers } from '../../auth/viewer.js';
import { equalsIgnoringCase } from '../../db/text.js';
import type { GroupStatistics } from './loaders.js';
import type { ProjectsService } from '../projects/service.js';
import { GroupDeletion } from './deletion.js';
import { moveGroupTree } from './tree.js';
import { ensureGroupWiki } from '../repository_storage_moves/group-wikis.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { groupSystemEvent } from '../hooks/payloads.js';

/** GitLab's GroupPermission: what UserCore.groups' `permissionScope` asks of the user. */
export type GroupPermissionScope = 'create_projects' | 'import_projects' | 'transfer_projects';

export interface GroupFilters {
  search?: string | null;
  owned?: boolean | null;
  minAccessLevel?: number | null;
  topLevelOnly?: boolean | null;
  allAvailable?: boolean | null;
  visibility?: Visibility | null;
  skipGroups?: readonly number[] | null;
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

/** What `PUT /groups/:id` and `groupUpdate` change; absent (or null) leaves a setting as it is. */
export interface GroupChanges {
  name?: string | null;
  path?: string | null;
  description?: string | null;
  visibility?: Visibility | null;
  shareWithGroupLock?: boolean | null;
  requireTwoFactorAuthentication?: boolean | null;
  twoFactorGracePeriod?: number | null;
  projectCreationLevel?: string | null;
  subgroupCreationLevel?: string | null;
  autoDevopsEnabled?: boolean | null;
  /** GitLab's deprecated inverse of `emailsEnabled`; wins when both are given, as GitLab's API translates it. */
  emailsDisabled?: boolean | null;
  emailsEnabled?: boolean | null;
  mentionsDisabled?: boolean | null;
  lfsEnabled?: boolean | null;
  requestAccessEnabled?: boolean | null;
  defaultBranch?: string | null;
  /** Whether instance runners run the jobs below the group (shared-runners.ts). */
  sharedRunnersSetting?: SharedRunnersSetting | null;
  /** A new avatar image (a file of a multipart body); UploadedFile.BLANK removes the current one. */
  avatar?: UploadedFile | null;
}

const ORDER_COLUMNS = { name: 'name', path: 'path', id: 'id', created_at: 'createdAt', updated_at: 'updatedAt' } as const;

/** GitLab's words for a transfer it refuses (Groups::TransferService), each after `Transfer failed: `. */
const TRANSFER_ERRORS = {
  alreadyRoot: 'Group is already a root group.',
  sameParent: 'Group is already associated to the parent group.',
  permissions: "You don't have enough permissions.",
  samePath: 'The parent group already has a subgroup or a project with the same path.',
  intoSubgroup: 'Cannot transfer group to one of its subgroup.',
} as const;

const SHARE_LOCK_REFUSED = 'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group';

export class GroupsService {
  /** `DELETE /groups/:id` and the job that carries it out. */
  readonly deletion: GroupDeletion;

  constructor(
    private readonly base: ServiceBase,
    private readonly namespaces: NamespacesService,
    private readonly members: MembersService,
    projects: ProjectsService,
  ) {
    this.deletion = new GroupDeletion(base, projects.deletion);
  }

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

  /** The group's avatar as a download (GitLab's `GET /groups/:id/avatar`); `404 Avatar Not Found` without one. */
  async avatarFile(group: NamespaceRow): Promise<FileDownload> {
    const download = await avatarDownload(this.base.app.uploads, 'group', group.id, group.avatar);
    if (!download) throw notFound('Avatar');
    return download;
  }

  /** GitLab's GroupsFinder: every readable group (within `scope` when given) matching the filters. */
  async list(filters: GroupFilters, page: PageArgs, scope?: Prisma.NamespaceWhereInput) {
    const { access } = this.base;
    const and: Prisma.NamespaceWhereInput[] = [await access.where('read_group')];
    // A signed-in user who is not an administrator sees their own groups unless all_available is set; owned and
    // min_access_level narrow anyone's list to groups they hold at least that level in (inherited by subgroups).
    const ownOnly = !!access.viewer && !access.allowed('admin_all_resources') && !filters.allAvailable;
    // Their own groups are GitLab EE's authorized_groups, which count Minimal Access.
    if (filters.owned || filters.minAccessLevel != null || ownOnly) and.push(await access.memberGroupsWhere({ ...filters, withMinimalAccess: true }));
    if (scope) and.push(scope);
    if (filters.topLevelOnly) and.push({ parentId: null });
    if (filters.visibility) and.push({ visibility: filters.visibility });
    if (filters.skipGroups?.length) and.push({ id: { notIn: [...filters.skipGroups] } });
    if (filters.search) and.push(fuzzyWhere(filters.search, ['name', 'path']));
    return this.page({ AND: and }, filters, page);
  }

  /**
   * GitLab's Groups::UserGroupsFinder behind UserCore.groups: to the user themselves and administrators only (null for
   * others, UserPolicy's read_user_groups), the groups the user is a direct member of, ordered by path; with a
   * permission scope, those where the user's own memberships (never an administrator's rights) let them create
   * projects (`create_projects`), or also hold Maintainer for transfers and imports (`transfer_projects`,
   * `import_projects`), inherited by subgroups.
   */
  async ofUser(user: { id: number }, filters: { search?: string | null; permissionScope?: GroupPermissionScope | null }, page: PageArgs) {
    const { access, db, app } = this.base;
    if (!(await access.can('read_user_groups', user))) return null;
    let scope: Prisma.NamespaceWhereInput = { kind: 'group', members: { some: { userId: user.id } } };
    if (filters.permissionScope) {
      const [viewers, [memberships]] = await Promise.all([userViewers(db, [user.id]), app.memberships.ofMany([user.id])]);
      const viewer = viewers.get(user.id);
      if (!viewer || !memberships) return this.page({ id: -1 }, { orderBy: 'path', sort: 'ASC' }, page);
      // The user's memberships decide, as GitLab's manageable_groups: an administrator's rights reach no further here.
      scope = { AND: [{ kind: 'group' }, allowedWhere({ viewer: { ...viewer, admin: false }, memberships }, filters.permissionScope)] };
    }
    return this.list({ search: filters.search, allAvailable: true, orderBy: 'path', sort: 'ASC' }, page, scope);
  }

  /** Direct subgroups (or every descendant) of a readable group that the viewer can read, with the list's filters. */
  subgroups(parent: NamespaceRow, filters: GroupFilters, page: PageArgs, descendants = false) {
    const scope: Prisma.NamespaceWhereInput = descendants ? { traversalIds: { has: parent.id }, id: { not: parent.id } } : { parentId: parent.id };
    return this.list({ ...filters, topLevelOnly: false }, page, scope);
  }

  private page(where: Prisma.NamespaceWhereInput, filters: Pick<GroupFilters, 'orderBy' | 'sort'>, page: PageArgs) {
    const direction = filters.sort === 'DESC' ? 'desc' : 'asc';
    const column = ORDER_COLUMNS[filters.orderBy ?? 'name'];
    const order: KeysetOrder = column === 'id' ? [['id', direction]] : [[column, direction], ['id', direction]];
    const db = this.base.db;
    return connection(
      page,
      ({ skip, take, seek, orderBy }) => db.namespace.findMany({ where: seek ? { AND: [where, seek] } : where, orderBy, skip, take }),
      () => db.namespace.count({ where }),
      order,
    );
  }

  /** The storage statistics GitLab shows administrators; null for anyone else. */
  async statistics(group: NamespaceRow): Promise<GroupStatistics | null> {
    if (!this.base.access.allowed('admin_all_resources')) return null;
    const jobArtifactsSize = await this.base.loaders.groups.artifactsSize.load(group.id);
    // Only job artifacts have sizes this server records; it keeps no wiki, LFS, package, snippet or upload
    // storage, and does not measure repositories, so those count 0 (and the storage size is the artifacts').
    return {
      storageSize: jobArtifactsSize,
      repositorySize: 0,
      wikiSize: 0,
      lfsObjectsSize: 0,
      jobArtifactsSize,
      pipelineArtifactsSize: 0,
      packagesSize: 0,
      snippetsSize: 0,
      uploadsSize: 0,
    };
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

    const created = await db.$transaction(async (tx) => {
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
          // GitLab's sync_share_with_group_lock_with_parent: a subgroup of a locked group is locked too.
          shareWithGroupLock: parent?.shareWithGroupLock ?? false,
          ...inheritedSharedRunners(parent),
        },
        parent?.traversalIds ?? [],
      );
      await this.members.addCreator(tx, { namespaceId: group.id }, viewer.id);
      await enqueueHookEvent(this.base.app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: groupSystemEvent('group_create', group) }, tx);
      if (!input.avatar) return group;
      return replaceAvatar(this.base.app.uploads, 'group', group.id, input.avatar, (avatar) => tx.namespace.update({ where: { id: group.id }, data: { avatar } }));
    });
    // Its wiki repository, on the storage picked by weight (a crash before it leaves it to its first use).
    await ensureGroupWiki(db, this.base.app, created.id);
    // Its system hook event exists now that the transaction committed.
    this.base.app.jobs.wake();
    return created;
  }

  /**
   * GitLab's Groups::UpdateService (`PUT /groups/:id`): Owners and administrators change the name, path (the full
   * paths of subgroups and their projects follow), visibility within GitLab's rules, and the group's settings.
   */
  async update(group: NamespaceRow, changes: GroupChanges): Promise<NamespaceRow> {
    const { db, access } = this.base;
    await access.authorize('admin_group', group);
    const parent = group.parentId ? await this.namespaces.lookup({ id: group.parentId }) : null;
    const errors = await this.validate(group, parent, changes);
    if (Object.keys(errors).length) throw invalid(errors);

    const name = changes.name ?? group.name;
    const path = changes.path ?? group.path;
    const emailsEnabled = changes.emailsDisabled != null ? !changes.emailsDisabled : changes.emailsEnabled;
    const lockChanged = changes.shareWithGroupLock != null && changes.shareWithGroupLock !== group.shareWithGroupLock;
    const updated = await db.$transaction(async (tx) => {
      await tx.namespace.update({
        where: { id: group.id },
        data: {
          description: changes.description ?? undefined,
          visibility: changes.visibility ?? undefined,
          shareWithGroupLock: changes.shareWithGroupLock ?? undefined,
          requireTwoFactorAuthentication: changes.requireTwoFactorAuthentication ?? undefined,
          twoFactorGracePeriod: changes.twoFactorGracePeriod ?? undefined,
          projectCreationLevel: changes.projectCreationLevel ?? undefined,
          subgroupCreationLevel: changes.subgroupCreationLevel ?? undefined,
          autoDevopsEnabled: changes.autoDevopsEnabled ?? undefined,
          emailsEnabled: emailsEnabled ?? undefined,
          mentionsDisabled: changes.mentionsDisabled ?? undefined,
          lfsEnabled: changes.lfsEnabled ?? undefined,
          requestAccessEnabled: changes.requestAccessEnabled ?? undefined,
          defaultBranchName: changes.defaultBranch ?? undefined,
        },
        select: { id: true },
      });
      if (name !== group.name || path !== group.path) {
        const fullPath = parent ? `${parent.fullPath}/${path}` : path;
        const fullName = parent ? `${parent.fullName} / ${name}` : name;
        // The one place a rename knows the old full paths (`group.fullPath` and everything below it).
        await moveGroupTree(tx, group, { name, path, fullPath, fullName });
      }
      if (changes.sharedRunnersSetting) await applySharedRunnersSetting(tx, group, changes.sharedRunnersSetting);
      // GitLab's force_share_with_group_lock_on_descendants: locking a group locks every subgroup.
      if (lockChanged && changes.shareWithGroupLock) await tx.namespace.updateMany({ where: { traversalIds: { has: group.id } }, data: { shareWithGroupLock: true } });
      // Which projects a share grants depends on the lock of their group: every remembered membership may change.
      if (lockChanged) await this.publishMembershipsChanged(tx);
      if (changes.avatar) await replaceAvatar(this.base.app.uploads, 'group', group.id, changes.avatar, (avatar) => tx.namespace.update({ where: { id: group.id }, data: { avatar }, select: { id: true } }));
      return tx.namespace.findUniqueOrThrow({ where: { id: group.id } });
    });
    this.base.loaders.namespaces.byId.clear(group.id).prime(group.id, updated);
    return updated;
  }

  /** GitLab's Namespace and Group validations of a change, by field (GraphQL names). */
  private async validate(group: NamespaceRow, parent: NamespaceRow | null, changes: GroupChanges): Promise<Record<string, string[]>> {
    const { db } = this.base;
    const errors: Record<string, string[]> = {};
    const add = (field: string, message: string) => (errors[field] ??= []).push(message);
    if (changes.name != null && !changes.name.trim()) add('name', "can't be blank");
    for (const problem of changes.avatar ? avatarProblems(changes.avatar) : []) add('avatar', problem);
    if (changes.name != null && changes.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
    if (changes.description != null && changes.description.length > 255) add('description', 'is too long (maximum is 255 characters)');
    if (changes.path != null && changes.path !== group.path) {
      if (!isValidPath(changes.path)) add('path', PATH_RULE);
      else if (await this.pathTaken(group.parentId, changes.path, group.id)) add('path', 'has already been taken');
    }
    if (changes.twoFactorGracePeriod != null && changes.twoFactorGracePeriod < 0) add('twoFactorGracePeriod', 'must be greater than or equal to 0');
    const visibility = changes.visibility;
    if (visibility && visibility !== group.visibility) {
      const rank = VISIBILITY_RANK[visibility];
      if (parent && rank > VISIBILITY_RANK[parent.visibility as Visibility]) {
        add('visibilityLevel', `${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`);
      }
      const higher = { in: (Object.keys(VISIBILITY_RANK) as Visibility[]).filter((v) => VISIBILITY_RANK[v] > rank) };
      if (await db.project.findFirst({ where: { namespaceId: group.id, visibility: higher }, select: { id: true } })) {
        add('visibilityLevel', `${visibility} is not allowed since this group contains projects with higher visibility.`);
      }
      if (await db.namespace.findFirst({ where: { parentId: group.id, visibility: higher }, select: { id: true } })) {
        add('visibilityLevel', `${visibility} is not allowed since there are sub-groups with higher visibility.`);
      }
    }
    if (changes.shareWithGroupLock === false && group.shareWithGroupLock && parent?.shareWithGroupLock && !(await this.mayChangeShareLock(parent))) {
      add('shareWithGroupLock', SHARE_LOCK_REFUSED);
    }
    // GitLab's Groups::UpdateService reports its shared runners service's refusal under `update_shared_runners`.
    const sharedRunners = changes.sharedRunnersSetting && sharedRunnersSettingError(group, parent, changes.sharedRunnersSetting);
    if (sharedRunners) add('updateSharedRunners', sharedRunners);
    return errors;
  }

  /** GroupPolicy's change_share_with_group_lock: an Owner, unless a locked parent is locked above what they own. */
  private async mayChangeShareLock(group: NamespaceRow): Promise<boolean> {
    if (!(await this.base.access.can('admin_group', group))) return false;
    if (!group.shareWithGroupLock || !group.parentId) return true;
    const parent = await this.namespaces.lookup({ id: group.parentId });
    return !parent?.shareWithGroupLock || this.mayChangeShareLock(parent);
  }

  /** Whether a subgroup or (below a parent) a project already uses the path, other than the group itself. */
  private async pathTaken(parentId: number | null, path: string, groupId: number): Promise<boolean> {
    const { db } = this.base;
    const sibling = await db.namespace.findFirst({ where: { parentId, path: equalsIgnoringCase(path), id: { not: groupId } }, select: { id: true } });
    if (sibling) return true;
    if (parentId === null) return !(await this.namespaces.isTopLevelPathFree(path));
    return (await db.project.findFirst({ where: { namespaceId: parentId, path: equalsIgnoringCase(path) }, select: { id: true } })) !== null;
  }

  /**
   * GitLab's Groups::TransferService (`POST /groups/:id/transfer`): moves a group (with its subgroups and projects)
   * under another group, or to the top level when `to` is null. The new parent is looked up once the move is
   * authorized, as GitLab does (404 Group Not Found when the viewer cannot read it); refusals are GitLab's 400s.
   */
  async transfer(group: NamespaceRow, to: Ref | null): Promise<NamespaceRow> {
    const { db, access } = this.base;
    const viewer = access.requireViewer();
    await access.authorize('admin_group', group);
    const newParent = to ? await this.get(to) : null;
    const refuse = (reason: keyof typeof TRANSFER_ERRORS) => badRequest(`Transfer failed: ${TRANSFER_ERRORS[reason]}`);
    if (!newParent && !group.parentId) throw refuse('alreadyRoot');
    if (newParent && newParent.id === group.parentId) throw refuse('sameParent');
    if (!(newParent ? await access.can('create_subgroup', newParent) : access.allowed('create_group'))) throw refuse('permissions');
    if (await this.pathTaken(newParent?.id ?? null, group.path, group.id)) throw refuse('samePath');
    if (newParent?.traversalIds.includes(group.id)) throw refuse('intoSubgroup');

    const updated = await db.$transaction(async (tx) => {
      const fullPath = newParent ? `${newParent.fullPath}/${group.path}` : group.path;
      const fullName = newParent ? `${newParent.fullName} / ${group.name}` : group.name;
      // The one place a transfer knows the old full paths (`group.fullPath` and everything below it).
      await moveGroupTree(tx, group, { name: group.name, path: group.path, fullPath, fullName, parent: newParent });
      // GitLab's ensure_ownership: a group made top-level keeps an Owner of its own, the one who moved it.
      if (!newParent && !(await tx.member.findFirst({ where: { namespaceId: group.id, userId: viewer.id }, select: { id: true } }))) {
        const owners = await tx.member.count({ where: { namespaceId: group.id, accessLevel: CREATOR_ACCESS_LEVEL } });
        if (owners === 0) await this.members.addCreator(tx, { namespaceId: group.id }, viewer.id);
      }
      // Inherited memberships and the projects shares reach follow the new ancestors: forget every remembered one.
      await this.publishMembershipsChanged(tx);
      return tx.namespace.findUniqueOrThrow({ where: { id: group.id } });
    });
    this.base.loaders.namespaces.byId.clear(group.id).prime(group.id, updated);
    return updated;
  }

  private publishMembershipsChanged(tx: Prisma.TransactionClient): Promise<void> {
    const message: MembershipsChanged = { userIds: 'all' };
    return this.base.publish(MEMBERSHIPS_CHANGED, message, tx);
  }
}
