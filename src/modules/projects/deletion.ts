/**
 * Project deletion as GitLab self-managed does it without delayed deletion (Projects::DestroyService through
 * ProjectDestroyWorker): the request marks the project pending_delete, which hides it from every read at once, and
 * queues a job that removes its files, its repository and then its rows. Each step can run again, so a job
 * interrupted anywhere finishes on its retry.
 */
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import { PROJECTS_CHANGED, type ProjectsChanged } from '../../auth/project-subjects.js';
import type { Prisma } from '../../db/database.js';
import type { App } from '../../context.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from './service.js';
import { enqueueHookEvent } from '../hooks/events.js';
import { projectSystemData } from '../hooks/samples.js';
import { retireProjectBots } from '../project_access_tokens/retire.js';

/** The job kind that removes a project marked for deletion. */
export const DESTROY_JOB = 'projects.destroy';

export interface DestroyPayload {
  projectId: number;
}

export class ProjectDeletion {
  constructor(private readonly base: ServiceBase) {}

  /** `DELETE /projects/:id` (Owners and administrators): accepted, done in the background. */
  async request(project: ProjectRow): Promise<void> {
    const { access, db, app } = this.base;
    await access.authorize('remove_project', project);
    await db.$transaction(async (tx) => {
      await this.markForDeletion(tx, [project.id]);
      const payload: DestroyPayload = { projectId: project.id };
      await app.jobs.enqueue(DESTROY_JOB, payload, { uniqueKey: `${DESTROY_JOB}:${project.id}`, maxAttempts: 25 }, tx);
      // GitLab's project_destroy, when the project goes for every reader.
      await enqueueHookEvent(app.jobs, { trigger: 'system_hooks', projectId: null, branch: null, data: projectSystemData('project_destroy', project) }, tx);
    });
    app.jobs.wake();
  }

  /**
   * Marks projects pending_delete in the caller's transaction, which hides them from every read at once (live
   * subscriptions included, through projects.changed); `destroy` removes each one afterwards.
   */
  async markForDeletion(tx: Prisma.TransactionClient, projectIds: readonly number[]): Promise<void> {
    if (projectIds.length === 0) return;
    await tx.project.updateMany({ where: { id: { in: [...projectIds] } }, data: { pendingDelete: true } });
    const changed: ProjectsChanged = { projectIds: [...projectIds] };
    await this.base.publish(PROJECTS_CHANGED, changed, tx);
    for (const id of projectIds) this.base.loaders.projects.byId.clear(id);
  }

  /**
   * Removes a project marked for deletion: its artifact files and repository first (found again by the project's id
   * on a retry), then, in one transaction, the rows no foreign key removes with it and the project itself, whose
   * deletion cascades to its members, pipelines, jobs, logs, artifacts' rows, schedules, protected branches, stars,
   * events and redirects. Forks of it stay, no longer forks (GitLab's fork network unlinking).
   */
  async destroy(projectId: number): Promise<void> {
    const { db, app } = this.base;
    const project = await db.project.findUnique({ where: { id: projectId }, select: { id: true, repositoryStorage: true, pendingDelete: true } });
    if (!project?.pendingDelete) return;
    await removeProjectFiles(app, project);
    await db.$transaction(async (tx) => {
      const message: MembershipsChanged = { userIds: await deleteProjectRows(tx, [projectId], this.base.publish) };
      await this.base.publish(MEMBERSHIPS_CHANGED, message, tx);
    });
  }
}

/**
 * A project's files: what other modules keep of it (its packages' bytes, its snippets' repositories), its job
 * artifacts, its avatar and its repository (what an interrupted removal left of it too).
 */
export async function removeProjectFiles(app: Pick<App, 'artifacts' | 'repositories' | 'uploads' | 'teardownProject'>, project: { id: number; repositoryStorage: string }): Promise<void> {
  await app.teardownProject(project.id);
  await app.artifacts.removeProject(project.id);
  await app.uploads.removeAvatars('project', project.id);
  if (app.repositories.has(project.repositoryStorage)) await app.repositories.remove(project);
}

/**
 * Deletes projects in the caller's transaction: the rows that keep a project ID without a foreign key, their access
 * tokens' bots (retired, announced with `publish`), then the projects, whose deletion cascades to the rest. Answers
 * the users who were members of them (their memberships changed).
 */
export async function deleteProjectRows(tx: Prisma.TransactionClient, projectIds: readonly number[], publish: ServiceBase['publish']): Promise<number[]> {
  if (projectIds.length === 0) return [];
  const projectId = { in: [...projectIds] };
  const members = await tx.member.findMany({ where: { projectId }, select: { userId: true }, distinct: ['userId'] });
  await tx.ciVariable.deleteMany({ where: { projectId } });
  await tx.pipelineTrigger.deleteMany({ where: { projectId } });
  await tx.projectCiCdSetting.deleteMany({ where: { projectId } });
  await tx.ciJobTokenProjectScopeLink.deleteMany({ where: { OR: [{ sourceProjectId: projectId }, { targetProjectId: projectId }] } });
  await tx.ciJobTokenGroupScopeLink.deleteMany({ where: { sourceProjectId: projectId } });
  await retireProjectBots(tx, projectIds, publish);
  // Merge requests from a deleted fork stay in their target, their source project gone (source_project_id nullified).
  await tx.mergeRequest.updateMany({ where: { sourceProjectId: projectId, projectId: { notIn: [...projectIds] } }, data: { sourceProjectId: null } });
  await tx.project.deleteMany({ where: { id: projectId } });
  return members.map((m) => m.userId);
}
