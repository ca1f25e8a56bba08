/**
 * Project deletion as GitLab self-managed does it without delayed deletion (Projects::DestroyService through
 * ProjectDestroyWorker): the request marks the project pending_delete, which hides it from every read at once, and
 * queues a job that removes its files, its repository and then its rows. Each step can run again, so a job
 * interrupted anywhere finishes on its retry.
 */
import { MEMBERSHIPS_CHANGED, type MembershipsChanged } from '../../auth/memberships.js';
import { PROJECTS_CHANGED, type ProjectsChanged } from '../../auth/project-subjects.js';
import type { ServiceBase } from '../module.js';
import type { ProjectRow } from './service.js';

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
      await tx.project.update({ where: { id: project.id }, data: { pendingDelete: true }, select: { id: true } });
      // Live subscriptions stop reaching anyone through it at once.
      const changed: ProjectsChanged = { projectIds: [project.id] };
      await this.base.publish(PROJECTS_CHANGED, changed, tx);
      const payload: DestroyPayload = { projectId: project.id };
      await app.jobs.enqueue(DESTROY_JOB, payload, { uniqueKey: `${DESTROY_JOB}:${project.id}`, maxAttempts: 25 }, tx);
    });
    this.base.loaders.projects.byId.clear(project.id);
    app.jobs.wake();
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
    await app.artifacts.removeProject(project.id);
    if (app.repositories.has(project.repositoryStorage)) await app.repositories.remove(project);
    await db.$transaction(async (tx) => {
      const members = await tx.member.findMany({ where: { projectId }, select: { userId: true } });
      await tx.ciVariable.deleteMany({ where: { projectId } });
      await tx.pipelineTrigger.deleteMany({ where: { projectId } });
      await tx.projectCiCdSetting.deleteMany({ where: { projectId } });
      await tx.ciJobTokenProjectScopeLink.deleteMany({ where: { OR: [{ sourceProjectId: projectId }, { targetProjectId: projectId }] } });
      await tx.ciJobTokenGroupScopeLink.deleteMany({ where: { sourceProjectId: projectId } });
      await tx.project.delete({ where: { id: projectId }, select: { id: true } });
      const message: MembershipsChanged = { userIds: members.map((m) => m.userId) };
      await this.base.publish(MEMBERSHIPS_CHANGED, message, tx);
    });
  }
}
