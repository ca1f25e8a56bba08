/**
 * Graceful stop of the HTTP server. Node's `server.close()` also closes every connection that is not handling a
 * request at that instant, which resets connections whose request has not been read yet and keep-alive connections
 * a client is about to reuse; and closing the listening socket resets the connections still in the kernel's
 * accept queue. Instead: answer every request that arrives from now on with `Connection: close`; keep accepting
 * for a moment, so that what is already on its way is taken in and answered; then stop listening (connections that
 * come later are refused, never reset); give idle connections a moment to send the request already on its way;
 * wait for in-flight requests (bounded by the drain timeout); then close whatever is left.
 */
import { Server as NetServer, type Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How long the server keeps accepting once draining starts, at least. */
const ACCEPT_GRACE_MS = 250;
/** It stops accepting only after this long without a new connection (a burst is taken in whole). */
const ACCEPT_QUIET_MS = 50;
/** A turn of the event loop this short took in every connection that was waiting, and little can have come since. */
const QUICK_TURN_MS = 2;
/** How long an idle connection may still bring a request once the server stops accepting. */
const IDLE_LINGER_MS = 750;

export interface Drainer {
  /** Stops accepting, finishes what was accepted, and resolves when every connection has closed. */
  drain(timeoutMs: number): Promise<void>;
}

export function trackConnections(server: Server): Drainer {
  const busy = new Map<Socket, number>();
  /** Responses whose headers are not sent yet: when draining starts they too close their connection. */
  const unsent = new Set<ServerResponse>();
  let draining = false;
  let lastConnection = 0;
  server.on('connection', (socket: Socket) => {
    lastConnection = Date.now();
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  const endIfIdle = (socket: Socket) => {
    if (busy.get(socket) === 0) socket.end();
  };
  // Before express's listener: a request it answers at once (a 404, `/-/health`) has sent its headers by the time a
  // later listener runs, and setting one then throws.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    if (draining) res.setHeader('Connection', 'close');
    else unsent.add(res);
    res.once('close', () => {
      unsent.delete(res);
      if (busy.has(socket)) busy.set(socket, Math.max(0, (busy.get(socket) ?? 1) - 1));
      if (!draining) return;
      // An answer that said `Connection: close` closes its connection itself. One sent keep-alive before the drain
      // began told the client it may send the next request on it, and it may have already: ending the connection now
      // would reset that request. It gets the idle connection's moment to bring one, which is answered and closes.
      if (String(res.getHeader('connection') ?? '').toLowerCase() !== 'close') {
        const linger = setTimeout(() => endIfIdle(socket), IDLE_LINGER_MS);
        socket.once('close', () => clearTimeout(linger));
      }
    });
  });
  const closeIdle = () => {
    for (const socket of busy.keys()) endIfIdle(socket);
  };
  return {
    drain(timeoutMs) {
      if (draining) return Promise.resolve();
      draining = true;
      for (const res of unsent) if (!res.headersSent) res.setHeader('Connection', 'close');
      unsent.clear();
      const started = Date.now();
      return new Promise<void>((resolve) => {
        // Closing the listening socket resets whatever sits in the kernel's accept queue, so close it only between
        // two quick turns of the event loop: the poll phase in between took in every waiting connection, and was
        // short, so hardly anything can have arrived since. A turn spent on other callbacks (a burst of requests,
        // PGlite's synchronous work) is a turn in which connections may have queued: look again.
        const stopAccepting = () => {
          const turnStarted = performance.now();
          setImmediate(() => {
            const quiet = Date.now() - lastConnection >= ACCEPT_QUIET_MS && performance.now() - turnStarted < QUICK_TURN_MS;
            if (!quiet && Date.now() - started < timeoutMs) {
              timers.push(setTimeout(stopAccepting, 1));
              return;
            }
            // The plain net close: stop listening, without http's closing of idle connections.
            NetServer.prototype.close.call(server, () => {
              stopConnectionsChecking(server);
              resolve();
            });
            timers.push(setTimeout(closeIdle, IDLE_LINGER_MS));
          });
        };
        const timers = [
          setTimeout(stopAccepting, ACCEPT_GRACE_MS),
          setTimeout(() => {
            for (const socket of busy.keys()) socket.destroy();
          }, Math.max(timeoutMs, ACCEPT_GRACE_MS + IDLE_LINGER_MS)),
        ];
        server.once('close', () => timers.forEach(clearTimeout));
      });
    },
  };
}

/**
 * Stops the interval http's server checks its connections' timeouts on, which http's own close would stop: the plain
 * net close above leaves it, and with it the server and everything its listeners reach (the app, its schema, its
 * database), alive for good. Node keeps the interval under a symbol of its own; where a Node lacks it, nothing happens.
 */
function stopConnectionsChecking(server: Server): void {
  const key = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connectionsCheckingInterval');
  if (key) clearInterval((server as unknown as Record<symbol, NodeJS.Timeout>)[key]);
}
