/**
 * Group deletion as GitLab self-managed does it without delayed deletion (Groups::DestroyService through
 * GroupDestroyWorker): the request marks every project of the group and its subgroups pending_delete, which hides
 * them at once, and queues a job that destroys those projects (their files, repositories and rows, as a project's
 * own deletion does), then the subgroups from the deepest up, then the group. Each step can run again, so a job
 * interrupted anywhere finishes on its retry.
 */
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import type { Prisma } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { groupSystemEvent } from '../hooks/payloads.js';
import type { ServiceBase } from '../module.js';
import type { NamespaceRow } from '../namespaces/service.js';
import type { ProjectDeletion } from '../projects/deletion.js';

/** The job kind that removes a group whose deletion was asked for. */
export const GROUP_DESTROY_JOB = 'groups.destroy';

export interface GroupDestroyPayload {
  groupId: number;
}

/** Queues the removal of a group in the caller's transaction: one job per group, however often it is asked for. */
export async function queueGroupDestroy(jobs: Pick<JobQueue, 'enqueue'>, tx: Prisma.TransactionClient, groupId: number): Promise<void> {
  const payload: GroupDestroyPayload = { groupId };
  await jobs.enqueue(GROUP_DESTROY_JOB, payload, { uniqueKey: `${GROUP_DESTROY_JOB}:${groupId}`, maxAttempts: 25 }, tx);
}

export class GroupDeletion {
  constructor(
    private readonly base: ServiceBase,
    private readonly projects: ProjectDeletion,
  ) {}

  /** `DELETE /groups/:id` (Owners and administrators): accepted, done in the background. */
  async request(group: NamespaceRow): Promise<void> {
    const { access, db, app } = this.base;
    await access.authorize('remove_group', group);
    await db.$transaction(async (tx) => {
      const projects = await tx.project.findMany({ where: { namespace: { traversalIds: { has: group.id } } }, select: { id: true } });
      await this.projects.markForDeletion(tx, projects.map((p) => p.id));
      await queueGroupDestroy(app.jobs, tx, group.id);
    });
    app.jobs.wake();
  }

  /** Removes a group whose deletion was asked for, with everything below it (nothing when it is gone already). */
  async destroy(groupId: number): Promise<void> {
    const { db } = this.base;
    const under = { traversalIds: { has: groupId } };
    if (!(await db.namespace.findUnique({ where: { id: groupId }, select: { id: true } }))) return;
    // Projects created below the group since the request go too, as GitLab's worker destroys what it finds.
    const projects = await db.project.findMany({ where: { namespace: under }, select: { id: true, pendingDelete: true } });
    const unmarked = projects.filter((p) => !p.pendingDelete).map((p) => p.id);
    if (unmarked.length) await db.$transaction((tx) => this.projects.markForDeletion(tx, unmarked));
    for (const project of projects) await this.projects.destroy(project.id);
    const subtree: number[] = [];
    await db.$transaction(async (tx) => {
      const namespaces = await tx.namespace.findMany({ where: under, select: { id: true, traversalIds: true, name: true, path: true, fullPath: true, createdAt: true, updatedAt: true } });
      subtree.push(...namespaces.map((n) => n.id));
      const ids = namespaces.map((n) => n.id);
      // Group CI/CD variables and the groups' events keep their group's ID without a foreign key (GitLab's cascade).
      await tx.ciVariable.deleteMany({ where: { namespaceId: { in: ids } } });
      await tx.event.deleteMany({ where: { groupId: { in: ids } } });
      // Subgroups hold on to their parents: the deepest go first.
      const depths = [...new Set(namespaces.map((n) => n.traversalIds.length))].sort((a, b) => b - a);
      for (const depth of depths) {
        const level = namespaces.filter((n) => n.traversalIds.length === depth);
        await tx.namespace.deleteMany({ where: { id: { in: level.map((n) => n.id) } } });
        // GitLab's group_destroy system hook, for each group removed (Groups::DestroyService runs for every
        // subgroup), queued with the removal so it is sent exactly when the group is gone.
        for (const gone of level) await enqueueHookEvent(this.base.app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: groupSystemEvent('group_destroy', gone) }, tx);
      }
      // Shares with these groups granted access to others' groups and projects: anyone's remembered levels may change.
      const changed: MembershipsChanged = { userIds: 'all' };
      await this.base.publish(MEMBERSHIPS_CHANGED, changed, tx);
    });
    this.base.loaders.namespaces.byId.clear(groupId);
    for (const id of subtree) await this.base.app.uploads.removeAvatars('group', id);
  }
}
