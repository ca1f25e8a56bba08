/** Batched reads of what a listed release shows: its asset links, evidence and milestones. */
import DataLoader from 'dataloader';
import type { PrismaClient } from '../../db/database.js';
import type { MilestoneRow } from '../milestones/service.js';
import type { LinkRow } from './links/rules.js';

export type EvidenceRow = Awaited<ReturnType<PrismaClient['releaseEvidence']['findUniqueOrThrow']>>;

/** Rows grouped by release, in the order they were read. */
function grouped<T>(ids: readonly number[], rows: readonly T[], releaseOf: (row: T) => number): T[][] {
  const by = new Map(ids.map((id) => [id, [] as T[]]));
  for (const row of rows) by.get(releaseOf(row))?.push(row);
  return ids.map((id) => by.get(id) ?? []);
}

export function createReleaseLoaders(db: PrismaClient) {
  return {
    /** The release of each tag, keyed `<project id>:<tag>` (GitLab's TagRelease of a tag list). */
    byTag: new DataLoader<string, { tag: string; description: string | null } | null>(async (keys) => {
      const wanted = keys.map((k) => ({ projectId: Number(k.slice(0, k.indexOf(':'))), tag: k.slice(k.indexOf(':') + 1) }));
      const rows = await db.release.findMany({ where: { OR: wanted }, select: { projectId: true, tag: true, description: true } });
      const found = new Map(rows.map((r) => [`${r.projectId}:${r.tag}`, { tag: r.tag, description: r.description }]));
      return keys.map((k) => found.get(k) ?? null);
    }),
    /** Each release's links, newest first (Releases::Link.sorted). */
    links: new DataLoader<number, LinkRow[]>(async (ids) =>
      grouped(ids, await db.releaseLink.findMany({ where: { releaseId: { in: [...ids] } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }), (l) => l.releaseId),
    ),
    /** Each release's evidence, oldest first. */
    evidences: new DataLoader<number, EvidenceRow[]>(async (ids) =>
      grouped(ids, await db.releaseEvidence.findMany({ where: { releaseId: { in: [...ids] } }, orderBy: { id: 'asc' } }), (e) => e.releaseId),
    ),
    /** Each release's milestones, by due date, then start date, then title (Milestone.order_by_dates_and_title). */
    milestones: new DataLoader<number, MilestoneRow[]>(async (ids) => {
      const rows = await db.releaseMilestone.findMany({
        where: { releaseId: { in: [...ids] } },
        include: { milestone: true },
        orderBy: [{ milestone: { dueDate: { sort: 'asc', nulls: 'last' } } }, { milestone: { startDate: { sort: 'asc', nulls: 'last' } } }, { milestone: { title: 'asc' } }, { milestoneId: 'asc' }],
      });
      return grouped(ids, rows, (r) => r.releaseId).map((list) => list.map((r) => r.milestone));
    }),
  };
}

export type ReleaseLoaders = ReturnType<typeof createReleaseLoaders>;
