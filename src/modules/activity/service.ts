/**
 * Owns activity events (GitLab's Events API records): every module records `opened`, `closed`, `pushed`,
 * `commented on` … through `record`, inside its own transaction when it passes one.
 */
import type { ServiceDeps } from '../../context.js';
import type { Prisma, PrismaClient } from '../../db/database.js';

/** GitLab's event actions; `action_name` in REST is derived from these. */
export type ActivityAction =
  | 'created'
  | 'updated'
  | 'closed'
  | 'reopened'
  | 'pushed'
  | 'commented'
  | 'merged'
  | 'joined'
  | 'left'
  | 'destroyed'
  | 'expired'
  | 'approved';

export interface ActivityInput {
  action: ActivityAction;
  authorId: number;
  projectId?: number | null;
  groupId?: number | null;
  /** GitLab's target class name: Issue, Note, Snippet, Milestone, MergeRequest, Project … */
  targetType: string | null;
  targetId?: number | null;
  targetIid?: number | null;
  targetTitle?: string | null;
  pushData?: Prisma.InputJsonValue;
  data?: Prisma.InputJsonValue;
}

/** Actions whose `action_name` GitLab words differently; the others read as stored. */
const ACTION_NAMES: Partial<Record<string, string>> = { commented: 'commented on', pushed: 'pushed to', merged: 'accepted', destroyed: 'deleted' };

/** `action_name` as GitLab's Event#action_name words it: a created target is "opened", a created project "created". */
export function actionName(action: string, targetType: string | null): string {
  if (action === 'created') return targetType === null ? 'created' : 'opened';
  return ACTION_NAMES[action] ?? action;
}

const ACTIVITY_TOPIC = 'activity.recorded';

export type EventRow = Awaited<ReturnType<PrismaClient['event']['findUniqueOrThrow']>>;

interface RecordedMessage {
  id: number;
  projectId: number | null;
}

export class ActivityService {
  constructor(private readonly deps: ServiceDeps) {}

  /** Records one event; with `tx` it commits or rolls back with the change it describes. */
  async record(input: ActivityInput, tx?: Prisma.TransactionClient): Promise<void> {
    const client = tx ?? this.deps.db;
    const event = await client.event.create({
      data: {
        action: input.action,
        authorId: input.authorId,
        projectId: input.projectId ?? null,
        groupId: input.groupId ?? null,
        targetType: input.targetType,
        targetId: input.targetId ?? null,
        targetIid: input.targetIid ?? null,
        targetTitle: input.targetTitle ?? null,
        pushData: input.pushData,
        data: input.data,
      },
      select: { id: true },
    });
    const message: RecordedMessage = { id: event.id, projectId: input.projectId ?? null };
    await this.deps.app.bus.publish(ACTIVITY_TOPIC, message, tx);
  }

  /**
   * Recorded events as they happen on any replica, limited to projects the subscriber can read. Each event is
   * checked with a fresh context, so a membership granted or removed meanwhile is seen.
   */
  async *recorded(projectRef: string | null | undefined): AsyncGenerator<{ activityEventRecorded: EventRow }> {
    const { app } = this.deps;
    const only = projectRef != null ? (await this.deps.services.projects.get(projectRef)).id : null;
    const events = app.bus.iterate<RecordedMessage>(ACTIVITY_TOPIC, (m) => m.projectId !== null && (only === null || m.projectId === only));
    try {
      for await (const message of events) {
        const fresh = this.deps.renew();
        if (message.projectId === null || !(await fresh.services.projects.find(String(message.projectId)))) continue;
        const event = await fresh.loaders.activity.byId.load(message.id);
        if (event) yield { activityEventRecorded: event };
      }
    } finally {
      await events.return?.();
    }
  }
}
