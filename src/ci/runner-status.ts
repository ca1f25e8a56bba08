/** A runner's connection status as GitLab tells it (Ci::Runner#online?, #stale?, #status, #deprecated_rest_status). Pure. */

/** Online when it called within the last two hours (GitLab's ONLINE_CONTACT_TIMEOUT). */
export const ONLINE_MS = 2 * 60 * 60 * 1000;
/** Stale when it has not called (or, never having called, was created) more than three months ago. */
export const STALE_MS = 90 * 24 * 60 * 60 * 1000;

export interface ContactFacts {
  contactedAt: Date | null;
  createdAt: Date;
}

export const runnerOnline = (contactedAt: Date | null, now = Date.now()): boolean => contactedAt !== null && now - contactedAt.getTime() < ONLINE_MS;

function stale(r: ContactFacts, now: number): boolean {
  return now - (r.contactedAt ?? r.createdAt).getTime() > STALE_MS;
}

/** GraphQL's status: online, offline, stale or never_contacted. */
export function runnerStatus(r: ContactFacts, now = Date.now()): string {
  if (stale(r, now)) return 'stale';
  if (r.contactedAt === null) return 'never_contacted';
  return runnerOnline(r.contactedAt, now) ? 'online' : 'offline';
}

/** REST's `status` (deprecated_rest_status): as GraphQL's, but `paused` for a paused runner that has called. */
export function restRunnerStatus(r: ContactFacts & { paused: boolean }, now = Date.now()): string {
  if (stale(r, now)) return 'stale';
  if (r.contactedAt === null) return 'never_contacted';
  if (r.paused) return 'paused';
  return runnerOnline(r.contactedAt, now) ? 'online' : 'offline';
}
