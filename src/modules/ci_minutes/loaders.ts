/** Batched reads of compute usage: the project rows of several months of one namespace in one query. */
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../../db/database.js';

/** One month's project usages of a root namespace, one page of them. */
export interface ProjectUsagesKey {
  namespaceId: number;
  date: Date;
  skip: number;
  take: number;
}

export interface ProjectUsageRow {
  id: number;
  projectId: number;
  date: Date;
  amountUsed: number;
  sharedRunnersDuration: number;
}

export interface ProjectUsagesPage {
  rows: ProjectUsageRow[];
  total: number;
}

export function createCiMinutesLoaders(db: PrismaClient) {
  return {
    /**
     * The usages of the projects now in each root namespace's tree, for each month asked, a page of each: one query
     * for the keys of one namespace and page (a list of months asks them together), numbered per month.
     */
    projectUsages: new DataLoader<ProjectUsagesKey, ProjectUsagesPage, string>(
      async (keys) => {
        const groups = new Map<string, ProjectUsagesKey[]>();
        for (const key of keys) {
          const group = `${key.namespaceId}:${key.skip}:${key.take}`;
          groups.set(group, [...(groups.get(group) ?? []), key]);
        }
        const pages = new Map<string, ProjectUsagesPage>();
        for (const group of groups.values()) {
          const { namespaceId, skip, take } = group[0];
          const months = group.map((k) => k.date.toISOString().slice(0, 10));
          const inTree = Prisma.sql`
            FROM "ci_project_monthly_usages" u
            JOIN "projects" p ON p."id" = u."projectId"
            JOIN "namespaces" n ON n."id" = p."namespaceId"
            WHERE n."traversalIds"[1] = ${namespaceId}::int AND u."date" = ANY(${months}::date[])`;
          const [rows, counts] = await Promise.all([
            db.$queryRaw<(ProjectUsageRow & { month: string })[]>`
              SELECT "id", "projectId", "date", "amountUsed", "sharedRunnersDuration", "month" FROM (
                SELECT u."id", u."projectId", u."date", u."amountUsed"::float8 AS "amountUsed", u."sharedRunnersDuration",
                  to_char(u."date", 'YYYY-MM-DD') AS "month", row_number() OVER (PARTITION BY u."date" ORDER BY u."id") AS "position"
                ${inTree}
              ) numbered
              WHERE "position" > ${skip}::int AND "position" <= ${skip + take}::int
              ORDER BY "month", "position"`,
            db.$queryRaw<{ month: string; total: bigint }[]>`SELECT to_char(u."date", 'YYYY-MM-DD') AS "month", count(*) AS "total" ${inTree} GROUP BY u."date"`,
          ]);
          const totals = new Map(counts.map((c) => [c.month, Number(c.total)]));
          for (const key of group) {
            const month = key.date.toISOString().slice(0, 10);
            pages.set(cacheKey(key), {
              rows: rows.filter((r) => r.month === month).map(({ id, projectId, date, amountUsed, sharedRunnersDuration }) => ({ id, projectId, date, amountUsed, sharedRunnersDuration })),
              total: totals.get(month) ?? 0,
            });
          }
        }
        return keys.map((key) => pages.get(cacheKey(key)) ?? { rows: [], total: 0 });
      },
      { cacheKeyFn: cacheKey },
    ),
  };
}

function cacheKey(key: ProjectUsagesKey): string {
  return `${key.namespaceId}:${key.date.toISOString().slice(0, 10)}:${key.skip}:${key.take}`;
}

export type CiMinutesLoaders = ReturnType<typeof createCiMinutesLoaders>;
