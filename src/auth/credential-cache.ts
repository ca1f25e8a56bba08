/**
 * Remembers which viewer a token digest authenticates, so a request needs no query to know who it acts as.
 *
 * Nothing it holds outlives the credentials: an entry lives at most CREDENTIAL_TTL_MS; a token is looked up again
 * once its expiry day has come; CREDENTIALS_REVOKED (a token revoked, a user blocked) and VIEWER_CHANGED (what a
 * viewer carries changed: admin, username, state) drop entries at once on every replica, the publishing request
 * answering only after its own replica dropped them (Context.settle).
 */
import { Remembered } from '../events/remembered.js';
import { CREDENTIALS_REVOKED, VIEWER_CHANGED, concerns, type Authenticator, type CredentialsRevoked } from './credentials.js';
import type { Viewer } from './viewer.js';

/** How long a viewer is remembered: bounds what a change nobody announced could leave stale. */
const CREDENTIAL_TTL_MS = 30_000;
/** Distinct tokens remembered at most. */
const CREDENTIAL_CACHE_SIZE = 10_000;

export interface Bus {
  subscribe(topic: string, handler: (payload: unknown) => void): () => void;
}

export class CredentialCache {
  private readonly viewers: Remembered<string, Viewer>;
  private readonly unsubscribe: (() => void)[];

  constructor(bus: Bus, ttlMs = CREDENTIAL_TTL_MS) {
    // A token stops working at the start of its expiry day.
    this.viewers = new Remembered({ ttlMs, size: CREDENTIAL_CACHE_SIZE, goodUntil: (v) => v.tokenExpiresAt?.getTime() ?? Infinity });
    const forget = (payload: unknown) => {
      const news = payload as CredentialsRevoked;
      this.viewers.forget((_digest, v) => concerns(news, v));
    };
    this.unsubscribe = [bus.subscribe(CREDENTIALS_REVOKED, forget), bus.subscribe(VIEWER_CHANGED, forget)];
  }

  /** `authenticate`, remembered. Lanes may pass their own authenticator; they share what is remembered. */
  wrap(authenticate: Authenticator): Authenticator {
    return (digest) => this.viewers.get(digest, () => authenticate(digest));
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.viewers.clear();
  }
}
