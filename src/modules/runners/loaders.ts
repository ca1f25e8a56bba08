/** Batched runner reads: the projects each runner is enabled for. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';

export function createRunnerLoaders(db: PrismaClient) {
  return {
    /** IDs of the projects each (project) runner is enabled for, oldest link first. */
    projectIds: new DataLoader<number, number[]>(async (runnerIds) => {
      const links = await db.runnerProject.findMany({ where: { runnerId: { in: [...runnerIds] } }, orderBy: { id: 'asc' }, select: { runnerId: true, projectId: true } });
      return runnerIds.map((id) => links.filter((link) => link.runnerId === id).map((link) => link.projectId));
    }),
  };
}

export type RunnerLoaders = ReturnType<typeof createRunnerLoaders>;
