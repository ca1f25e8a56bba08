/**
 * Owns activity events (GitLab's Events API records): every module records `opened`, `closed`, `pushed`,
 * `commented on` … through `record`, inside its own transaction when it passes one.
 */
import { actorWithoutMemberships, can, type Actor, type NamespaceSubject, type ProjectSubject } from '../../auth/policy.js';
import type { Viewer } from '../../auth/viewer.js';
import type { Prisma, PrismaClient } from '../../db/database.js';
import { perMessage } from '../../events/bus.js';
import type { ServiceBase } from '../module.js';

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
  /** The project the event happened in: subscribers' access to it decides who hears of it. */
  project?: ProjectSubject | null;
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

/** What an event's subscribers need to decide, without a query, whether they may hear of it. */
interface RecordedMessage {
  id: number;
  project: ProjectSubject | null;
}

/** The event a message names, with its author: loaded once per message for every subscriber of this process. */
const recordedEvent = perMessage((message: RecordedMessage, db: PrismaClient) =>
  db.event.findUnique({ where: { id: message.id }, include: { author: true } }),
);

function accessSubject(project: ProjectSubject): ProjectSubject {
  const { id, kind, visibility, ownerId, traversalIds }: NamespaceSubject = project.namespace;
  return { id: project.id, visibility: project.visibility, namespace: { id, kind, visibility, ownerId, traversalIds } };
}

export class ActivityService {
  constructor(private readonly base: ServiceBase) {}

  /** Records one event; with `tx` it commits or rolls back with the change it describes. */
  async record(input: ActivityInput, tx?: Prisma.TransactionClient): Promise<void> {
    const client = tx ?? this.base.db;
    const event = await client.event.create({
      data: {
        action: input.action,
        authorId: input.authorId,
        projectId: input.project?.id ?? null,
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
    const message: RecordedMessage = { id: event.id, project: input.project ? accessSubject(input.project) : null };
    await this.base.publish(ACTIVITY_TOPIC, message, tx);
  }

  /**
   * Project events as they are recorded on any replica: of one readable project, or of every project the
   * subscriber can read. Readability is decided on the event's own project subject with the viewer's remembered
   * memberships (src/auth/memberships.ts), reloaded first when a change was announced before the event.
   */
  async *recorded(project: ProjectSubject | null): AsyncGenerator<{ activityEventRecorded: EventRow }> {
    const { app, db, viewer, loaders } = this.base;
    const wanted = (m: RecordedMessage, actor: Actor) =>
      m.project !== null && (project === null || m.project.id === project.id) && can(actor, 'read_project', m.project);
    // The viewer's memberships as the App remembers them (dropped when the bus announces a change, which arrives
    // before any event it causes): at once when current, else loaded once for all of the user's subscriptions.
    const ready = (): Actor | undefined => {
      if (!viewer) return actorWithoutMemberships(null);
      const memberships = app.memberships.current(viewer.id);
      return memberships && { viewer, memberships };
    };
    const actor = async (): Promise<Actor> => ready() ?? { viewer, memberships: await app.memberships.of((viewer as Viewer).id) };
    // Decided as the message arrives while the memberships are current (most messages: nothing wakes up).
    const events = app.bus.iterate<RecordedMessage>(ACTIVITY_TOPIC, (m) => {
      const now = ready();
      return now === undefined || wanted(m, now);
    });
    try {
      for await (const message of events) {
        if (!wanted(message, await actor())) continue;
        const event = await recordedEvent(message, db);
        if (!event) continue;
        const { author, ...row } = event;
        // Fresh for this event, and no query of this subscriber's own for the `author` field.
        loaders.users.byId.clear(author.id).prime(author.id, author);
        await app.bus.turn();
        yield { activityEventRecorded: row };
      }
    } finally {
      await events.return?.();
    }
  }
}
