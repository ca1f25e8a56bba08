/**
 * Abilities held by long-lived work (GraphQL subscriptions): a signed-in viewer's memberships are loaded once,
 * shared by every subscription of that user in this process, and reloaded (once, however many subscriptions ask)
 * only when the bus says they changed, or when a day passes (memberships expire by date). Deciding whether a
 * subscriber may hear of an event is then `can(actor, …)` on the event's own subject: no query per event.
 */
import type { EventBus, RawExecutor } from '../events/bus.js';
import { actorWithoutMemberships, type Actor, type Memberships } from './policy.js';
import type { Viewer } from './viewer.js';

/** Published, in the changing transaction, when what a user's abilities rest on changes. */
export const MEMBERSHIPS_CHANGED = 'memberships.changed';

/** Whose memberships changed: user ids, or `all` where a change cannot be narrowed to some users. */
export interface MembershipsChanged {
  userIds: number[] | 'all';
}

/** Announces, when `tx` commits, that these users' memberships changed. */
export function publishMembershipsChanged(bus: EventBus, userIds: MembershipsChanged['userIds'], tx?: RawExecutor): Promise<void> {
  const message: MembershipsChanged = { userIds };
  return bus.publish(MEMBERSHIPS_CHANGED, message, tx);
}

/** One user's memberships as this process holds them. */
interface HeldUser {
  holders: number;
  /** Bumped by every change announced for the user; memberships loaded for an older one are out of date. */
  generation: number;
  memberships?: Memberships;
  loadedGeneration: number;
  /** When the loaded memberships stop being current: the next UTC midnight, when some may expire. */
  expiresAt: number;
  loading?: { generation: number; memberships: Promise<Memberships> };
}

/** A subscription's hold on its viewer's abilities. */
export interface HeldActor {
  /** The actor if the held memberships are current; undefined (nothing is loaded) if they are not. */
  ready(): Actor | undefined;
  /** The actor: at once while the held memberships are current, else once they are reloaded. */
  actor(): Actor | Promise<Actor>;
  /** Ends the hold; the memberships are dropped with the user's last hold. */
  release(): void;
}

function nextUtcMidnight(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
}

export class HeldAbilities {
  private readonly users = new Map<number, HeldUser>();
  private readonly unsubscribe: () => void;

  constructor(
    bus: EventBus,
    private readonly load: (userId: number) => Promise<Memberships>,
  ) {
    // A bus handler runs before any later message is handed out, so an event that follows a change is decided on it.
    this.unsubscribe = bus.subscribe(MEMBERSHIPS_CHANGED, (payload) => {
      const { userIds } = payload as MembershipsChanged;
      const affected = userIds === 'all' ? [...this.users.values()] : userIds.map((id) => this.users.get(id));
      for (const held of affected) if (held) held.generation += 1;
    });
  }

  hold(viewer: Viewer | null): HeldActor {
    if (!viewer) {
      const anonymous = actorWithoutMemberships(null);
      return { ready: () => anonymous, actor: () => anonymous, release: () => undefined };
    }
    let held = this.users.get(viewer.id);
    if (!held) {
      held = { holders: 0, generation: 1, loadedGeneration: 0, expiresAt: 0 };
      this.users.set(viewer.id, held);
    }
    const user = held;
    user.holders += 1;
    let actor: Actor | undefined;
    let released = false;
    const ready = (): Actor | undefined => {
      const memberships = HeldAbilities.currentOf(user);
      if (!memberships) return undefined;
      if (actor?.memberships !== memberships) actor = { viewer, memberships };
      return actor;
    };
    return {
      ready,
      actor: () => ready() ?? this.reload(viewer.id, user).then((memberships) => ({ viewer, memberships })),
      release: () => {
        if (released) return;
        released = true;
        user.holders -= 1;
        if (user.holders === 0 && this.users.get(viewer.id) === user) this.users.delete(viewer.id);
      },
    };
  }

  /** Stops hearing of changes (the server is closing). */
  stop(): void {
    this.unsubscribe();
  }

  /** The held memberships if no change was announced since they were loaded and no day has passed. */
  private static currentOf(held: HeldUser): Memberships | undefined {
    return held.loadedGeneration === held.generation && Date.now() < held.expiresAt ? held.memberships : undefined;
  }

  /** Memberships loaded afresh: one load per user and announced change, however many subscriptions ask. */
  private reload(userId: number, held: HeldUser): Promise<Memberships> {
    const { generation } = held;
    if (held.loading?.generation === generation) return held.loading.memberships;
    const memberships = this.load(userId).then(
      (loaded) => {
        if (held.loading?.memberships === memberships) held.loading = undefined;
        if (held.loadedGeneration <= generation) {
          held.memberships = loaded;
          held.loadedGeneration = generation;
          held.expiresAt = nextUtcMidnight();
        }
        return loaded;
      },
      (err: unknown) => {
        // Let the next question try again instead of replaying this failure.
        if (held.loading?.memberships === memberships) held.loading = undefined;
        throw err;
      },
    );
    held.loading = { generation, memberships };
    return memberships;
  }
}
