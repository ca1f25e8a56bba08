/** Batched reads of schedule variables, so a page of schedules costs one query for all their variables. */
import DataLoader from 'dataloader';
import type { Prisma, PrismaClient } from '../../db/database.js';

export function createPipelineScheduleLoaders(db: PrismaClient) {
  return {
    /** Each schedule's variables, by ID. */
    variablesBySchedule: new DataLoader<number, Prisma.PipelineScheduleVariableGetPayload<object>[]>(async (scheduleIds) => {
      const rows = await db.pipelineScheduleVariable.findMany({ where: { pipelineScheduleId: { in: [...scheduleIds] } }, orderBy: { id: 'asc' } });
      return scheduleIds.map((id) => rows.filter((row) => row.pipelineScheduleId === id));
    }),
  };
}

export type PipelineScheduleLoaders = ReturnType<typeof createPipelineScheduleLoaders>;
