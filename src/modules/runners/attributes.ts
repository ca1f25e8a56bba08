/**
 * What describes a runner and what filters a list of them, as GitLab's API takes them: kinds, statuses and REST's
 * deprecated scopes, comma-separated tags, and Ci::Runner's validations in GitLab's words. Pure.
 */
import { ONLINE_MS, STALE_MS } from '../../ci/runner-status.js';
import type { Prisma } from '../../db/database.js';
import { argumentRefused, badRequest } from '../../errors.js';

export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;
export type RunnerType = (typeof RUNNER_TYPES)[number];
export const RUNNER_STATUSES = ['active', 'paused', 'online', 'offline', 'stale', 'never_contacted'] as const;
/** REST's deprecated `scope`: a status, or a kind by its old names too. */
export const KIND_SCOPES = ['specific', 'shared', ...RUNNER_TYPES] as const;

/** GitLab's minimum for a runner's maximum timeout. */
const MIN_MAXIMUM_TIMEOUT = 600;
const MAX_NOTE_LENGTH = 1024;

export interface RunnerFilters {
  type?: RunnerType | null;
  status?: (typeof RUNNER_STATUSES)[number] | null;
  paused?: boolean | null;
  tagList?: readonly string[] | null;
  versionPrefix?: string | null;
  scope?: string | null;
}

export interface RunnerAttributes {
  description?: string | null;
  maintenanceNote?: string | null;
  paused?: boolean | null;
  locked?: boolean | null;
  runUntagged?: boolean | null;
  tagList?: readonly string[] | null;
  accessLevel?: 'not_protected' | 'ref_protected' | null;
  maximumTimeout?: number | null;
}

/** What only administrators change on a runner: what its minutes cost (GitLab EE's compute cost factors). */
export interface RunnerCostFactors {
  publicProjectsMinutesCostFactor?: number | null;
  privateProjectsMinutesCostFactor?: number | null;
}

export interface RunnerCreateInput extends RunnerAttributes {
  runnerType: RunnerType;
  /** The group's numeric ID (its global ID, parsed). */
  groupId?: number | null;
  /** The project's numeric ID (its global ID, parsed). */
  projectId?: number | null;
}

export interface RunnerUpdateInput extends RunnerAttributes, RunnerCostFactors {
  id: string;
  active?: boolean | null;
  /** Global IDs of the projects a project runner serves besides its owner project (GraphQL's runnerUpdate only). */
  associatedProjects?: readonly string[] | null;
}

/** Tags as GitLab's CommaSeparatedToArray reads them: comma-separated values split, blanks dropped, each once. */
export function splitTags(tags: readonly string[] | null | undefined): string[] {
  return [...new Set((tags ?? []).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean))];
}

/** Ruby's Array#to_sentence. */
function sentence(parts: string[]): string {
  return parts.length <= 2 ? parts.join(' and ') : `${parts.slice(0, -1).join(', ')}, and ${parts.at(-1)}`;
}

const HUMAN: Record<string, string> = {
  maximumTimeout: 'Maximum timeout',
  maintenanceNote: 'Maintenance note',
  tagsList: 'Tags list',
  publicProjectsMinutesCostFactor: 'Public projects minutes cost factor',
  privateProjectsMinutesCostFactor: 'Private projects minutes cost factor',
};

/** GitLab's `bad_request!` for a runner that would not save when created: its errors' full messages in one sentence. */
export function creationRefused(found: Record<string, string[]>) {
  return badRequest(`400 Bad request - ${sentence(Object.entries(found).flatMap(([field, texts]) => texts.map((t) => `${HUMAN[field]} ${t}`)))}`);
}

export function filtersWhere(filters: RunnerFilters, scopes: readonly string[]): Prisma.RunnerWhereInput[] {
  const now = Date.now();
  const and: Prisma.RunnerWhereInput[] = [];
  if (filters.scope) {
    // GitLab's filter_runners: a scope outside those the list allows is refused in these words.
    if (!scopes.includes(filters.scope)) throw badRequest('Scope contains invalid value');
    and.push(scopeWhere(filters.scope, now));
  }
  if (filters.type) and.push({ runnerType: filters.type });
  if (filters.status) and.push(scopeWhere(filters.status, now));
  if (filters.paused != null) and.push({ paused: filters.paused });
  if (filters.versionPrefix != null) {
    if (!/^[\d+.]+/.test(filters.versionPrefix)) throw argumentRefused('versionPrefix', 'is invalid');
    and.push({ version: { startsWith: filters.versionPrefix } });
  }
  const tags = splitTags(filters.tagList);
  if (tags.length) and.push({ tagList: { hasEvery: tags } });
  return and;
}

/** GitLab's Ci::Runner validations, by field, for the runner as it would be saved. */
export function problems(state: { maximumTimeout: number | null; maintenanceNote: string | null; runUntagged: boolean; tagList: readonly string[] } & RunnerCostFactors): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const factor of ['publicProjectsMinutesCostFactor', 'privateProjectsMinutesCostFactor'] as const) {
    const value = state[factor];
    if (value != null && !(value >= 0)) problems[factor] = ['needs to be non-negative'];
  }
  if (state.maximumTimeout !== null && state.maximumTimeout < MIN_MAXIMUM_TIMEOUT) problems.maximumTimeout = ['needs to be at least 10 minutes'];
  if ((state.maintenanceNote ?? '').length > MAX_NOTE_LENGTH) problems.maintenanceNote = [`is too long (maximum is ${MAX_NOTE_LENGTH} characters)`];
  if (!state.runUntagged && state.tagList.length === 0) problems.tagsList = ['can not be empty when runner is not allowed to pick untagged jobs'];
  return problems;
}

/** A status or kind (REST's `scope` and `status`) as a filter at `now`. */
function scopeWhere(scope: string, now: number): Prisma.RunnerWhereInput {
  const online = new Date(now - ONLINE_MS);
  const stale = new Date(now - STALE_MS);
  switch (scope) {
    case 'active':
      return { paused: false };
    case 'paused':
      return { paused: true };
    case 'online':
      return { contactedAt: { gt: online } };
    case 'offline':
      return { contactedAt: { lte: online } };
    case 'never_contacted':
      return { contactedAt: null };
    case 'stale':
      return { createdAt: { lte: stale }, OR: [{ contactedAt: null }, { contactedAt: { lte: stale } }] };
    case 'shared':
      return { runnerType: 'instance_type' };
    case 'specific':
      return { runnerType: { in: ['group_type', 'project_type'] } };
    default:
      return { runnerType: scope };
  }
}
