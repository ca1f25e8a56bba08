/**
 * Remembers which viewer a token digest authenticates, so a request needs no query to know who it acts as.
 *
 * Safe because nothing it holds can outlive the credentials: an entry lives at most `ttlMs`; a token is looked up
 * again once its expiry day has come; and CREDENTIALS_REVOKED (a token revoked, a user blocked) and
 * VIEWER_CHANGED (what a viewer carries changed: admin, username, state) drop entries at once on every replica, the
 * publishing request answering only after its own replica dropped them (Context.settle). A lookup that was under
 * way when such news arrived is not remembered. Failures are never remembered: a token created a moment ago works.
 */
import { CREDENTIALS_REVOKED, VIEWER_CHANGED, type Authenticator, type CredentialsRevoked } from './credentials.js';
import type { Viewer } from './viewer.js';

/** How long a viewer is remembered: bounds what a change nobody announced could leave stale. */
export const CREDENTIAL_TTL_MS = 30_000;
/** Distinct tokens remembered at most; the oldest are forgotten first. */
export const CREDENTIAL_CACHE_SIZE = 10_000;

interface Entry {
  viewer: Viewer;
  until: number;
}

interface Bus {
  subscribe(topic: string, handler: (payload: unknown) => void): () => void;
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  /** Lookups under way, shared by the requests that need the same token meanwhile. */
  private readonly pending = new Map<string, Promise<Viewer>>();
  /** Counts the news that dropped entries: a lookup started before the latest news is not remembered. */
  private generation = 0;
  private readonly unsubscribe: (() => void)[];

  constructor(
    bus: Bus,
    private readonly ttlMs = CREDENTIAL_TTL_MS,
    private readonly size = CREDENTIAL_CACHE_SIZE,
  ) {
    const forget = (payload: unknown) => this.forget(payload as CredentialsRevoked);
    this.unsubscribe = [bus.subscribe(CREDENTIALS_REVOKED, forget), bus.subscribe(VIEWER_CHANGED, forget)];
  }

  /** `authenticate`, remembered. Lanes may pass their own authenticator; they share what is remembered. */
  wrap(authenticate: Authenticator): Authenticator {
    return (digest) => {
      const hit = this.entries.get(digest);
      if (hit && hit.until > Date.now()) return Promise.resolve(hit.viewer);
      if (hit) this.entries.delete(digest);
      return this.pending.get(digest) ?? this.lookUp(authenticate, digest);
    };
  }

  private lookUp(authenticate: Authenticator, digest: string): Promise<Viewer> {
    const generation = this.generation;
    const started = Date.now();
    const lookup = authenticate(digest);
    this.pending.set(digest, lookup);
    const settled = () => {
      if (this.pending.get(digest) === lookup) this.pending.delete(digest);
    };
    lookup.then((viewer) => {
      settled();
      if (generation !== this.generation) return;
      // A token stops working at the start of its expiry day: never remember it past then.
      const until = Math.min(started + this.ttlMs, viewer.tokenExpiresAt?.getTime() ?? Infinity);
      if (until <= Date.now()) return;
      if (this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(digest, { viewer, until });
    }, settled);
    return lookup;
  }

  /** Drops what the news concerns, at once: a token, or every token of a user. */
  forget(news: CredentialsRevoked): void {
    this.generation += 1;
    this.pending.clear();
    for (const [digest, { viewer }] of this.entries) {
      if (viewer.tokenId === news.tokenId || viewer.id === news.userId) this.entries.delete(digest);
    }
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.entries.clear();
  }
}
