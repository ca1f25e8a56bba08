/**
 * Owns users' lifecycle: the state actions of GitLab's API (block, unblock, ban, unban, deactivate, activate, approve,
 * reject), each with GitLab's rules, codes and words, and deletion with the ghost user. A user who stops being
 * active stops authenticating at once on every replica: remembered viewers are dropped and live subscriptions
 * closed through the bus (CREDENTIALS_REVOKED), before the request answers.
 *
 * Deletion spans tables of modules built on top of this one (projects, members): it is one transaction here,
 * since those modules cannot be asked from below them.
 */
import type { Prisma } from '../../../db/database.js';
import { MEMBER_ACCESS_LEVELS } from '../../../auth/access-levels.js';
import { CREDENTIALS_REVOKED, VIEWER_CHANGED, type CredentialsRevoked } from '../../../auth/credentials.js';
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../../auth/memberships.js';
import { conflict, stateForbids, refused } from '../../../errors.js';
import type { ServiceBase } from '../../module.js';
import { deleteProjectRows, removeProjectFiles } from '../../projects/deletion.js';
import { queueGroupDestroy } from '../../groups/deletion.js';
import { snippetRepositorySubject } from '../../snippets/service.js';
import type { UsersService, UserRow } from '../service.js';
import { internalUser, isInternal } from '../internal.js';
import { enqueueHookEvent } from '../../hooks/events.js';
import { userSystemEvent } from '../../hooks/payloads.js';

const OWNER = MEMBER_ACCESS_LEVELS.OWNER;

/** GitLab's User::MINIMUM_INACTIVE_DAYS: a user active more recently cannot be deactivated. */
export const MINIMUM_INACTIVE_DAYS = 90;

/** The ghost user's bio, as GitLab's Users::Internal.ghost writes it. */
const GHOST_BIO = 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.';

/** States in which GitLab counts a user as blocked (`blocked?`). */
const BLOCKED = new Set(['blocked', 'ldap_blocked']);

export class UserLifecycleService {
  constructor(
    private readonly base: ServiceBase,
    private readonly users: UsersService,
  ) {}

  /** Blocks a user; null (GitLab's `break`) when already blocked. */
  async block(id: number): Promise<boolean | null> {
    const user = await this.users.administered(id);
    if (user.id === this.base.viewer?.id) throw stateForbids('The API initiating user cannot be blocked by the API');
    if (BLOCKED.has(user.state)) return null;
    if (isInternal(user)) throw refused('An internal user cannot be blocked');
    await this.moveTo(user, 'blocked');
    return true;
  }

  /** Unblocks a user: whether they became active (false for an active user, as GitLab's `result.success?`). */
  async unblock(id: number): Promise<boolean> {
    const user = await this.users.administered(id);
    if (user.state === 'deactivated') throw stateForbids('Deactivated users cannot be unblocked by the API');
    if (user.state === 'active') return false;
    await this.moveTo(user, 'active');
    return true;
  }

  /** Bans an active user (GitLab's Users::BanService). */
  async ban(id: number): Promise<boolean> {
    const user = await this.users.administered(id);
    if (user.state !== 'active') throw refused(`You cannot ban ${user.state} users.`);
    await this.moveTo(user, 'banned');
    return true;
  }

  /** Lifts a ban (GitLab's Users::UnbanService). */
  async unban(id: number): Promise<boolean> {
    const user = await this.users.administered(id);
    if (user.state !== 'banned') throw refused(`You cannot unban ${user.state} users.`);
    await this.moveTo(user, 'active');
    return true;
  }

  /** Deactivates a user without activity in the last 90 days; null when already deactivated (GitLab's `break`). */
  async deactivate(id: number): Promise<boolean | null> {
    const user = await this.users.administered(id);
    if (user.state === 'deactivated') return null;
    if (user.state !== 'active') throw stateForbids('A blocked user cannot be deactivated by the API');
    if (isInternal(user)) throw stateForbids('An internal user cannot be deactivated by the API');
    const since = Date.now() - MINIMUM_INACTIVE_DAYS * 86_400_000;
    if (user.lastActivityOn && user.lastActivityOn.getTime() > since) {
      throw stateForbids(`The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`);
    }
    await this.moveTo(user, 'deactivated');
    return true;
  }

  /** Activates a deactivated user: whether they became active (false when they already were). */
  async activate(id: number): Promise<boolean> {
    const user = await this.users.administered(id);
    if (BLOCKED.has(user.state)) throw stateForbids('A blocked user must be unblocked to be activated');
    if (user.state !== 'deactivated') return false;
    await this.moveTo(user, 'active');
    return true;
  }

  /** Approves a user pending approval (GitLab's Users::ApproveService: its refusals carry no `403 Forbidden` prefix). */
  async approve(id: number): Promise<{ message: string }> {
    const user = await this.users.get({ id });
    if (!this.base.access.allowed('admin_all_resources')) throw refused('You are not allowed to approve a user');
    if (user.state !== 'blocked_pending_approval') throw conflict('The user you are trying to approve is not pending approval');
    await this.moveTo(user, 'active');
    return { message: 'Success' };
  }

  /** Rejects a user pending approval, deleting them (GitLab's Users::RejectService); answers the rejected user. */
  async reject(id: number): Promise<UserRow> {
    const user = await this.users.get({ id });
    if (!this.base.access.allowed('admin_all_resources')) throw refused('You are not allowed to reject a user');
    if (user.state !== 'blocked_pending_approval') throw conflict('User does not have a pending request');
    await this.remove(user, true);
    return user;
  }

  /**
   * Deletes a user (GitLab's `DELETE /users/:id` and Users::DestroyService), with their personal projects,
   * memberships, tokens, keys, e-mail addresses, status, preferences and events. What GitLab keeps of their
   * contributions goes to the ghost user (`moveToGhost`), made on first need, unless `hardDelete`; personal snippets
   * are deleted with their repositories; pipelines and jobs lose their user (GitLab 16 nullifies them), runners and
   * memberships the user made their creator. Pipeline schedules are the projects', not the user's: they go to the
   * ghost user, deactivated (`orphanSchedules`), even on a hard delete. A user who is
   * the sole owner of a group is refused, unless `hardDelete`: then those groups are deleted too (GitLab's
   * `delete_solo_owned_groups`), by the group deletion job, queued with the user's removal.
   */
  async delete(id: number, hardDelete: boolean): Promise<boolean> {
    const user = await this.users.administered(id);
    const soloOwned = await this.soloOwnedGroups(user);
    if (soloOwned.length && !hardDelete) throw conflict('User cannot be removed while is the sole-owner of a group');
    await this.remove(user, hardDelete, soloOwned);
    return true;
  }

  /** The ghost user (GitLab's Users::Internal.ghost), made on first need with a free username and address. */
  ghost(tx: Prisma.TransactionClient): Promise<UserRow> {
    return internalUser(tx, 'ghost', 'ghost', (suffix) => `ghost${suffix}@example.com`, { name: 'Ghost User', bio: GHOST_BIO, projectsLimit: 0, canCreateGroup: false });
  }

  /** The groups of which the user is the only direct Owner (GitLab's `solo_owned_groups`). */
  private async soloOwnedGroups(user: UserRow): Promise<number[]> {
    const db = this.base.db;
    const owned = await db.member.findMany({ where: { userId: user.id, namespaceId: { not: null }, accessLevel: OWNER }, select: { namespaceId: true } });
    const groups = owned.flatMap((m) => (m.namespaceId === null ? [] : [m.namespaceId]));
    if (!groups.length) return [];
    const shared = await db.member.groupBy({
      by: ['namespaceId'],
      where: { namespaceId: { in: groups }, accessLevel: OWNER, NOT: { userId: user.id } },
      _count: { _all: true },
    });
    const others = new Set(shared.map((g) => g.namespaceId));
    return groups.filter((id) => !others.has(id));
  }

  private async remove(user: UserRow, hardDelete: boolean, soloOwnedGroups: readonly number[] = []): Promise<void> {
    const { db, loaders, app } = this.base;
    const { personalProjects: projects, snippets } = await db.$transaction(async (tx) => {
      if (!hardDelete) await moveToGhost(tx, user.id, (await this.ghost(tx)).id);
      else await this.orphanIssues(tx, user.id);
      await this.orphanSchedules(tx, user.id);
      // Personal snippets go with their author (GitLab's delete_snippets): their repositories after the commit.
      const snippets = await tx.snippet.findMany({ where: { authorId: user.id, projectId: null }, select: { id: true, repositoryStorage: true } });
      // The user's Markdown uploads (temporary ones) and those of those snippets go too: their files after the commit.
      await tx.upload.deleteMany({ where: { OR: [{ modelType: 'User', modelId: user.id }, { modelType: 'Snippet', modelId: { in: snippets.map((s) => s.id) } }] } });
      const personal = await tx.namespace.findUnique({ where: { ownerId: user.id }, select: { id: true } });
      // The other members of the personal projects lose those memberships with them.
      const personalProjects = personal ? await tx.project.findMany({ where: { namespaceId: personal.id }, select: { id: true, repositoryStorage: true } }) : [];
      const affected = await deleteProjectRows(tx, personalProjects.map((p) => p.id), this.base.publish);
      for (const groupId of soloOwnedGroups) await queueGroupDestroy(app.jobs, tx, groupId);
      await tx.user.delete({ where: { id: user.id } });
      await enqueueHookEvent(app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: userSystemEvent('user_destroy', user) }, tx);
      const revoked: CredentialsRevoked = { userId: user.id };
      await this.base.publish(CREDENTIALS_REVOKED, revoked, tx);
      const changed: MembershipsChanged = { userIds: [...new Set([user.id, ...affected])] };
      await this.base.publish(MEMBERSHIPS_CHANGED, changed, tx);
      return { personalProjects, snippets };
    });
    loaders.users.byId.clear(user.id);
    // The group deletions and the system hook event exist now that the transaction committed.
    app.jobs.wake();
    // The rows are gone: their projects' repositories and artifacts go after them (nothing refers to those files now).
    for (const project of projects) await removeProjectFiles(app, project);
    for (const snippet of snippets) if (app.repositories.has(snippet.repositoryStorage)) await app.repositories.remove(snippetRepositorySubject(snippet)).catch(() => undefined);
    await app.uploads.removeAvatars('user', user.id);
    await app.uploads.removeUploads({ model: 'user', id: user.id });
    for (const snippet of snippets) await app.uploads.removeUploads({ model: 'personal_snippet', id: snippet.id });
  }

  /**
   * The user's pipeline schedules, owned by the ghost user and inactive: a schedule never runs as nobody, and its
   * owner stays non-null (GitLab's `PipelineSchedule.owner: UserCore!`; GitLab's own nullifying foreign key made
   * that field fail, its issue 424299, and GitLab now deactivates the schedules of owners who are gone). A
   * Maintainer takes one over (`take_ownership`) and activates it again.
   */
  private async orphanSchedules(tx: Prisma.TransactionClient, userId: number): Promise<void> {
    const owned = await tx.pipelineSchedule.count({ where: { ownerId: userId } });
    if (!owned) return;
    const ghost = await this.ghost(tx);
    await tx.pipelineSchedule.updateMany({ where: { ownerId: userId }, data: { ownerId: ghost.id, active: false } });
  }

  /**
   * On a hard delete, the user's issues still go to the ghost user: an issue's author stays non-null
   * (`Issue.author: UserCore!`), as the schedules' owner above does.
   */
  private async orphanIssues(tx: Prisma.TransactionClient, userId: number): Promise<void> {
    if (!(await tx.issue.count({ where: { authorId: userId } }))) return;
    await tx.issue.updateMany({ where: { authorId: userId }, data: { authorId: (await this.ghost(tx)).id } });
  }

  /** Moves a user to another state; leaving `active` revokes their credentials everywhere, returning to it refreshes them. */
  private async moveTo(user: UserRow, state: string): Promise<void> {
    const { db, loaders } = this.base;
    await db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: user.id }, data: { state }, select: { id: true } });
      const news: CredentialsRevoked = { userId: user.id };
      await this.base.publish(state === 'active' ? VIEWER_CHANGED : CREDENTIALS_REVOKED, news, tx);
    });
    loaders.users.byId.clear(user.id);
  }
}

/**
 * GitLab's Users::MigrateRecordsToGhostUserService (with EE's epics): what a deleted user made stays, authored by
 * the ghost user: issues, merge requests (and the merges they made), notes with label events, award emoji, project
 * snippets, releases, epics, and the to-do items they caused for others. GitLab nullifies the user of weight,
 * milestone and state events; here those rows require a user, so they go to the ghost too rather than being lost.
 * An award the ghost already gave for the same thing and name is not doubled.
 */
async function moveToGhost(tx: Prisma.TransactionClient, userId: number, ghostId: number): Promise<void> {
  const from = { authorId: userId };
  const to = { authorId: ghostId };
  await tx.issue.updateMany({ where: from, data: to });
  await tx.mergeRequest.updateMany({ where: from, data: to });
  await tx.mergeRequest.updateMany({ where: { mergeUserId: userId }, data: { mergeUserId: ghostId } });
  await tx.note.updateMany({ where: from, data: to });
  await tx.snippet.updateMany({ where: { ...from, projectId: { not: null } }, data: to });
  await tx.release.updateMany({ where: from, data: to });
  await tx.epic.updateMany({ where: from, data: to });
  await tx.todo.updateMany({ where: { ...from, userId: { not: userId } }, data: to });
  for (const events of [tx.resourceLabelEvent, tx.resourceWeightEvent, tx.resourceMilestoneEvent, tx.resourceStateEvent] as unknown as UserColumn[]) {
    await events.updateMany({ where: { userId }, data: { userId: ghostId } });
  }
  await tx.$executeRaw`
    DELETE FROM award_emoji a USING award_emoji g
    WHERE a."userId" = ${userId} AND g."userId" = ${ghostId} AND a.name = g.name
      AND a."issueId" IS NOT DISTINCT FROM g."issueId" AND a."mergeRequestId" IS NOT DISTINCT FROM g."mergeRequestId"
      AND a."snippetId" IS NOT DISTINCT FROM g."snippetId" AND a."epicId" IS NOT DISTINCT FROM g."epicId"
      AND a."noteId" IS NOT DISTINCT FROM g."noteId"`;
  await tx.awardEmoji.updateMany({ where: { userId }, data: { userId: ghostId } });
}

/** A table whose rows name the user who acted (`userId`). */
interface UserColumn {
  updateMany(args: { where: { userId: number }; data: { userId: number } }): Promise<unknown>;
}
