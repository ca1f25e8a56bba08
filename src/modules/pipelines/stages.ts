/** A pipeline's stages as rows (GitLab's Ci::Stage), so each has the stable ID GraphQL's `CiStage.id` shows. */
import type { Prisma } from '../../db/database.js';

/** Makes the stages `stages` names that the pipeline lacks yet (one per position); those it has are kept. */
export async function ensureStages(tx: Prisma.TransactionClient, pipelineId: number, stages: readonly { name: string; position: number }[]): Promise<void> {
  const byPosition = new Map(stages.map((s) => [s.position, s.name]));
  await tx.ciStage.createMany({ data: [...byPosition].map(([position, name]) => ({ pipelineId, name, position })), skipDuplicates: true });
}
