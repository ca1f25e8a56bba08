/** The iteration filters of issue lists (EE's IssuesFinder: iteration ids, title, cadences, wildcards), as conditions. */
import type { Prisma } from '../../db/database.js';
import { today } from './dates.js';

export interface IssueIterationFilters {
  /** Iteration ids, any of which the issue's must be. */
  ids?: readonly number[] | null;
  title?: string | null;
  /** NONE: no iteration; ANY: some; CURRENT: one whose dates hold today. */
  wildcard?: 'none' | 'any' | 'current' | null;
  cadenceIds?: readonly number[] | null;
}

/** An issue filter's iteration conditions (EE's IssuesFinder: iteration ids, title, cadences, wildcards). */
export function issueIterationConditions(filters: IssueIterationFilters): Prisma.IssueWhereInput[] {
  const and: Prisma.IssueWhereInput[] = [];
  const on = today();
  if (filters.wildcard === 'none') and.push({ sprintId: null });
  if (filters.wildcard === 'any') and.push({ sprintId: { not: null } });
  if (filters.wildcard === 'current') and.push({ sprint: { is: { startDate: { lte: on }, dueDate: { gte: on } } } });
  if (filters.ids) and.push({ sprintId: { in: [...filters.ids] } });
  if (filters.title) and.push({ sprint: { is: { title: filters.title } } });
  if (filters.cadenceIds) and.push({ sprint: { is: { iterationsCadenceId: { in: [...filters.cadenceIds] } } } });
  return and;
}

