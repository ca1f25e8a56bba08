/**
 * Who may see an event beyond its project's readers, by its target (GitLab's Event#visible_to_user?, whose
 * capabilities ask `read_issue` of an issue's events, `read_note` of a comment's noteable …). A module whose records
 * are seen by fewer than their project's readers (a confidential issue, a private snippet) registers a check for its
 * target types; the Events API and the live subscription drop the events a check refuses, after paging, as GitLab
 * does. Events of other types need only their project (and `requires`, ActivityInput).
 */
import type { Services } from '../module.js';

/** What a check is given of each event: its id and what it targets. */
export interface TargetedEvent {
  id: number;
  targetType: string | null;
  targetId: number | null;
}

export interface EventTargetCheck {
  /** Of these target ids (all of the check's types), those the viewer may see; one batch per page. */
  readableTargets(services: Services, targetIds: readonly number[]): Promise<Set<number>>;
}

const checks = new Map<string, EventTargetCheck>();

/** Registers the check of these target types; each type once. */
export function registerEventTarget(types: readonly string[], check: EventTargetCheck): void {
  for (const type of types) {
    if (checks.has(type)) throw new Error(`event target ${type} is registered twice`);
    checks.set(type, check);
  }
}

/** The ids of the events the viewer may see by their targets: every event whose type has no check, and those its check allows. */
export async function visibleByTarget(services: Services, events: readonly TargetedEvent[]): Promise<Set<number>> {
  const seen = new Set<number>();
  const byCheck = new Map<EventTargetCheck, TargetedEvent[]>();
  for (const event of events) {
    const check = event.targetType !== null && event.targetId !== null ? checks.get(event.targetType) : undefined;
    if (!check) seen.add(event.id);
    else byCheck.set(check, [...(byCheck.get(check) ?? []), event]);
  }
  for (const [check, some] of byCheck) {
    const readable = await check.readableTargets(services, [...new Set(some.map((e) => e.targetId!))]);
    for (const event of some) if (readable.has(event.targetId!)) seen.add(event.id);
  }
  return seen;
}

/** Whether any check is registered for the type (a live event of it is checked before it is sent). */
export const hasTargetCheck = (type: string | null): boolean => type !== null && checks.has(type);
