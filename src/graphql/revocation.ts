/**
 * Ends the subscriptions of credentials that stop working: a WebSocket authenticated with a token closes with
 * 4401 (Unauthorized) when that token is revoked, on any replica (the bus carries it), or when it expires.
 * Anonymous sockets have nothing to lose.
 */
import type { WebSocket } from 'ws';
import { CREDENTIALS_REVOKED, concerns, type CredentialsRevoked } from '../auth/credentials.js';
import type { Viewer } from '../auth/viewer.js';
import type { EventBus } from '../events/bus.js';

const CLOSE_UNAUTHORIZED = 4401;
/**
 * A revoked socket closes this long after the news: the operation that revoked the token, possibly running over
 * this very socket (`personalAccessTokenSelfRevoke`), gets to send its answer first.
 */
const REVOKE_GRACE_MS = 100;
/** setTimeout's longest delay; a later expiry is checked again when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class CredentialWatch {
  private readonly sockets = new Map<WebSocket, Viewer>();
  private readonly unsubscribe: () => void;

  constructor(bus: EventBus) {
    this.unsubscribe = bus.subscribe(CREDENTIALS_REVOKED, (payload) => {
      const revoked = payload as CredentialsRevoked;
      for (const [socket, viewer] of this.sockets) {
        if (!concerns(revoked, viewer)) continue;
        setTimeout(() => socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized: credentials revoked'), REVOKE_GRACE_MS).unref();
      }
    });
  }

  /** Watches a socket for as long as it is open. */
  watch(socket: WebSocket, viewer: Viewer | null): void {
    if (!viewer) return;
    this.sockets.set(socket, viewer);
    let timer: NodeJS.Timeout | undefined;
    const expires = viewer.tokenExpiresAt?.getTime();
    const arm = () => {
      if (expires === undefined) return;
      const left = expires - Date.now();
      if (left <= 0) return socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized: token expired');
      timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
      timer.unref();
    };
    arm();
    socket.once('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
    });
  }

  stop(): void {
    this.unsubscribe();
  }
}
