/**
 * How a change becomes webhook deliveries: its writer calls `enqueueHookEvent` in the change's own transaction, so
 * the event exists exactly when the change does. One job then picks the hooks it goes to (hooks.dispatch), and each
 * of those gets a delivery job of its own (hooks.deliver), keyed by event and hook so that a dispatch run twice
 * (its replica died) queues nothing twice. This file is all a writer imports.
 */
import { randomUUID } from 'node:crypto';
import type { RawQuerier } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';

export const DISPATCH_JOB = 'hooks.dispatch';
export const DELIVER_JOB = 'hooks.deliver';

/** GitLab's hook triggers (WebHook#execute's `hook_name`), which say which hooks an event goes to. */
export type HookTrigger = 'system_hooks' | 'push_hooks' | 'tag_push_hooks' | 'repository_update_hooks' | 'pipeline_hooks' | 'job_hooks' | 'note_hooks'
  | 'confidential_note_hooks'
  | 'issue_hooks'
  | 'confidential_issue_hooks'
  | 'merge_request_hooks'
  | 'release_hooks'
  | 'deployment_hooks';

export interface HookEvent {
  /** X-Gitlab-Event-UUID: one per event, shared by every hook it goes to. */
  uuid: string;
  trigger: HookTrigger;
  /** The project whose hooks hear it (none: system hooks only). */
  projectId: number | null;
  /** The branch of a push, for hooks' `push_events_branch_filter`. */
  branch: string | null;
  /** The payload, as GitLab builds it. */
  data: unknown;
  /** Only this hook (a test), whatever its events and state. */
  hookId?: number;
  /**
   * A push whose payload the dispatch builds from the repository (GitLab's DataBuilder::Push, with the commits),
   * only when some hook hears it; `data` is then null.
   */
  push?: { projectId: number; userId: number; ref: string; before: string; after: string };
  /** A pipeline's status change, whose payload (with its jobs) the dispatch builds when some hook hears it. */
  pipeline?: { pipelineId: number; status: string };
  /** A job's status change, built likewise (Gitlab::DataBuilder::Build). */
  job?: { jobId: number; status: string };
  /** A deployment's status change, built likewise (Gitlab::DataBuilder::Deployment), with the time it changed. */
  deployment?: { deploymentId: number; status: string; changedAt: string };
}

/** The trigger of a pushed ref: tags are tag pushes. */
export function pushTrigger(ref: string): { trigger: HookTrigger; branch: string | null } {
  if (ref.startsWith('refs/tags/')) return { trigger: 'tag_push_hooks', branch: null };
  return { trigger: 'push_hooks', branch: ref.replace(/^refs\/heads\//, '') };
}

/**
 * A hook of the project, or a group hook of its group or one of the group's ancestors, with this event flag on:
 * one read of the project's own hooks and its groups' (the flag, a column name, is a parameter of the read).
 */
const projectOrGroupHook = (flag: string) => (tx: RawQuerier, projectId: number | null) => tx.$queryRaw<unknown[]>`
  SELECT 1 FROM web_hooks h
  WHERE ((h.type = 'ProjectHook' AND h."projectId" = ${projectId})
      OR (h.type = 'GroupHook' AND h."groupId" IN (SELECT unnest(n."traversalIds") FROM projects p JOIN namespaces n ON n.id = p."namespaceId" WHERE p.id = ${projectId})))
    AND (to_jsonb(h) ->> ${flag}::text)::boolean
  LIMIT 1`;

/**
 * Events only one kind of hook hears, with the read that finds such a hook: system events only system hooks (an
 * instance with none queues nothing when users, groups and keys change), pipeline and job events only the project's
 * own hooks and its groups' (a project with none queues nothing, so CI's status changes cost one indexed read, not a job).
 */
const HEARD_ONLY_BY: Partial<Record<HookTrigger, (tx: RawQuerier, projectId: number | null) => Promise<unknown[]>>> = {
  system_hooks: (tx) => tx.$queryRaw`SELECT 1 FROM web_hooks WHERE type = 'SystemHook' LIMIT 1`,
  pipeline_hooks: projectOrGroupHook('pipelineEvents'),
  job_hooks: projectOrGroupHook('jobEvents'),
  deployment_hooks: projectOrGroupHook('deploymentEvents'),
  note_hooks: projectOrGroupHook('noteEvents'),
  confidential_note_hooks: projectOrGroupHook('confidentialNoteEvents'),
  issue_hooks: projectOrGroupHook('issuesEvents'),
  confidential_issue_hooks: projectOrGroupHook('confidentialIssuesEvents'),
  // System hooks hear merge request events too (merge_requests_events).
  merge_request_hooks: async (tx, projectId) => {
    const system = await tx.$queryRaw<unknown[]>`SELECT 1 FROM web_hooks WHERE type = 'SystemHook' AND "mergeRequestsEvents" LIMIT 1`;
    return system.length ? system : projectOrGroupHook('mergeRequestsEvents')(tx, projectId);
  },
  release_hooks: projectOrGroupHook('releasesEvents'),
};

/**
 * Whether a hook of the project can hear an event of this trigger: for the triggers only one kind of hook hears, one
 * indexed read, so a writer builds a payload only when it goes somewhere; true for the others (the dispatch decides).
 */
export async function hookHeard(tx: RawQuerier, trigger: HookTrigger, projectId: number | null): Promise<boolean> {
  const hearers = HEARD_ONLY_BY[trigger];
  return !hearers || (await hearers(tx, projectId)).length > 0;
}

/** Queues an event's deliveries; with `tx`, only if that transaction commits. Null when no hook can hear it. */
export async function enqueueHookEvent(jobs: Pick<JobQueue, 'enqueue'>, event: Omit<HookEvent, 'uuid'> & { uuid?: string }, tx?: RawQuerier): Promise<string | null> {
  if (tx && event.hookId === undefined && !(await hookHeard(tx, event.trigger, event.projectId))) return null;
  const uuid = event.uuid ?? randomUUID();
  await jobs.enqueue(DISPATCH_JOB, { ...event, uuid } satisfies HookEvent, { uniqueKey: `${DISPATCH_JOB}:${uuid}`, maxAttempts: 10 }, tx);
  return uuid;
}
