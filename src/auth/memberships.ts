/**
 * Each user's direct memberships, remembered across requests: every ability check of a signed-in request reads
 * them. MEMBERSHIPS_CHANGED, published by whatever adds, changes or removes a membership, drops a user's entry
 * at once on every replica (the publishing request answers after its own replica dropped it: Context.settle).
 * Memberships expire by date, so nothing is remembered past the next midnight (UTC).
 */
import { Remembered } from '../events/remembered.js';
import type { Bus } from './credential-cache.js';
import type { Memberships } from './policy.js';

/** Bus topic: the memberships of these users changed. */
export const MEMBERSHIPS_CHANGED = 'memberships.changed';

export interface MembershipsChanged {
  userIds: number[];
}

/** How long memberships are remembered: bounds what a change nobody announced could leave stale. */
const MEMBERSHIPS_TTL_MS = 30_000;
const MEMBERSHIPS_CACHE_SIZE = 10_000;
const DAY_MS = 86_400_000;

export class MembershipCache {
  private readonly held = new Remembered<number, Memberships>({
    ttlMs: MEMBERSHIPS_TTL_MS,
    size: MEMBERSHIPS_CACHE_SIZE,
    goodUntil: () => Math.ceil((Date.now() + 1) / DAY_MS) * DAY_MS,
  });
  private readonly unsubscribe: () => void;

  constructor(bus: Bus) {
    this.unsubscribe = bus.subscribe(MEMBERSHIPS_CHANGED, (payload) => {
      const changed = new Set((payload as MembershipsChanged).userIds);
      this.held.forget((userId) => changed.has(userId));
    });
  }

  /** The user's memberships, remembered, or loaded with `load`. */
  of(userId: number, load: (userId: number) => Promise<Memberships>): Promise<Memberships> {
    return this.held.get(userId, () => load(userId));
  }

  stop(): void {
    this.unsubscribe();
    this.held.clear();
  }
}
