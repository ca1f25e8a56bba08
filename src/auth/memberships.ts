/**
 * Each user's direct memberships, remembered across requests: every ability check of a signed-in request reads
 * them. MEMBERSHIPS_CHANGED, published by whatever adds, changes or removes a membership, drops a user's entry
 * at once on every replica (the publishing request answers after its own replica dropped it: Context.settle).
 * Memberships expire by date, so nothing is remembered past the next midnight (UTC).
 */
import { Remembered } from '../events/remembered.js';
import type { Lane } from '../db/database.js';
import type { Bus } from './credential-cache.js';
import { actorWithoutMemberships, type Actor, type Memberships } from './policy.js';
import type { Viewer } from './viewer.js';

/** Bus topic: the memberships of these users changed. */
export const MEMBERSHIPS_CHANGED = 'memberships.changed';

/** Whose memberships changed: user ids, or `all` where a change cannot be narrowed to some users. */
export interface MembershipsChanged {
  userIds: number[] | 'all';
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

  constructor(
    bus: Bus,
    /** Loads the memberships of these users, in one go. */
    private readonly load: (userIds: readonly number[], lane: Lane) => Promise<ReadonlyMap<number, Memberships>>,
  ) {
    // Bus handlers run in the order messages arrive: an event published after a change is decided on it.
    this.unsubscribe = bus.subscribe(MEMBERSHIPS_CHANGED, (payload) => {
      const { userIds } = payload as MembershipsChanged;
      const changed = new Set(userIds === 'all' ? [] : userIds);
      this.held.forget((userId) => userIds === 'all' || changed.has(userId));
    });
  }

  /**
   * The user's memberships, remembered, or loaded on the caller's lane: a write never queues for a connection
   * behind slow reads (a membership change forgets the entry, so the next write would).
   */
  of(userId: number, lane: Lane = 'read'): Promise<Memberships> {
    return this.held.get(userId, async () => (await this.load([userId], lane)).get(userId)!);
  }

  /** Several users' memberships, as `of` gives each: those not remembered loaded together, in one go. */
  ofMany(userIds: readonly number[], lane: Lane = 'read'): Promise<Memberships[]> {
    const missing = [...new Set(userIds.filter((id) => !this.held.peek(id)))];
    let batch: Promise<ReadonlyMap<number, Memberships>> | undefined;
    const loaded = (id: number) => (batch ??= this.load(missing, lane)).then((found) => found.get(id) ?? this.load([id], lane).then((one) => one.get(id)!));
    return Promise.all(userIds.map((id) => this.held.get(id, () => loaded(id))));
  }

  /** The user's memberships if they are remembered and current, at once; undefined when they must be loaded. */
  current(userId: number): Memberships | undefined {
    return this.held.peek(userId);
  }

  stop(): void {
    this.unsubscribe();
    this.held.clear();
  }
}

/** A viewer with their memberships as a long-lived subscription decides its messages with them. */
export interface LiveActor {
  now(): Actor | undefined;
  get(): Promise<Actor>;
}

/** Live actors by cache and viewer: the subscriptions of one connection (one viewer object) share one. */
const liveActors = new WeakMap<MembershipCache, WeakMap<Viewer, LiveActor>>();

/**
 * A long-lived subscription's viewer with their memberships as the App remembers them (dropped when the bus announces
 * a change, which arrives before any event it causes), so deciding a message costs no query: `now()` answers at once
 * while they are current, `get()` loads them once for all of the user's subscriptions when they are not.
 */
export function liveActor(memberships: MembershipCache, viewer: Viewer | null): LiveActor {
  let byViewer = liveActors.get(memberships);
  if (!byViewer) liveActors.set(memberships, (byViewer = new WeakMap()));
  const known = viewer ? byViewer.get(viewer) : undefined;
  if (known) return known;
  const now = (): Actor | undefined => {
    if (!viewer) return actorWithoutMemberships(null);
    const held = memberships.current(viewer.id);
    return held && { viewer, memberships: held };
  };
  const actor = {
    now,
    get: async () => now() ?? { viewer, memberships: await memberships.of((viewer as Viewer).id) },
  };
  if (viewer) byViewer.set(viewer, actor);
  return actor;
}
