/**
 * The merge request of a `merge_request_event` pipeline as its predefined variables see it (GitLab's
 * MergeRequest#predefined_variables), read when the pipeline is created and again when each of its jobs runs.
 */
import type { PrismaClient } from '../../db/database.js';
import type { ProtectedBranchesService } from '../protected_branches/service.js';
import type { MergeRequestFacts } from './predefined.js';

export async function mergeRequestFacts(db: PrismaClient, protectedBranches: ProtectedBranchesService, id: number | null): Promise<MergeRequestFacts | null> {
  if (id === null) return null;
  const mr = await db.mergeRequest.findUnique({
    where: { id },
    select: {
      id: true,
      iid: true,
      projectId: true,
      project: { select: { id: true, fullPath: true } },
      sourceProjectId: true,
      title: true,
      sourceBranch: true,
      targetBranch: true,
      draft: true,
      squash: true,
      baseSha: true,
      milestone: { select: { title: true } },
      labelLinks: { select: { label: { select: { title: true } } } },
      assignees: { select: { userId: true }, orderBy: { createdAt: 'asc' } },
    },
  });
  if (!mr) return null;
  const sourceProject =
    mr.sourceProjectId === mr.projectId ? mr.project : mr.sourceProjectId === null ? null : await db.project.findUnique({ where: { id: mr.sourceProjectId }, select: { id: true, fullPath: true } });
  const assigneeIds = mr.assignees.map((a) => a.userId);
  const [sourceBranchProtected, targetBranchProtected, users] = await Promise.all([
    // Protected in the project the branch lives in (MergeRequest#source_project_variables: the fork's, for a fork's).
    sourceProject ? protectedBranches.anyProtected(sourceProject.id, [mr.sourceBranch]) : Promise.resolve(false),
    protectedBranches.anyProtected(mr.projectId, [mr.targetBranch]),
    assigneeIds.length ? db.user.findMany({ where: { id: { in: assigneeIds } }, select: { id: true, username: true } }) : [],
  ]);
  return {
    id: mr.id,
    iid: mr.iid,
    targetProject: mr.project,
    sourceProject,
    title: mr.title,
    sourceBranch: mr.sourceBranch,
    targetBranch: mr.targetBranch,
    draft: mr.draft,
    squash: mr.squash,
    diffBaseSha: mr.baseSha,
    sourceBranchProtected,
    targetBranchProtected,
    labels: mr.labelLinks.map((l) => l.label.title).sort(),
    assignees: assigneeIds.flatMap((uid) => users.filter((u) => u.id === uid).map((u) => u.username)),
    milestone: mr.milestone?.title ?? null,
  };
}
