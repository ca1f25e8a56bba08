/**
 * What Node's HTTP parser refuses never reaches express: a request line or headers it cannot parse (400), headers too
 * long (an over-long URL: 414), a request whose headers or body did not arrive within `headersTimeout` /
 * `requestTimeout` (408). They are answered here, in JSON like the rest, and their connection closed. As Node's own
 * handler does, nothing is written once an answer to the request has begun (it would corrupt it), and HEAD gets the
 * headers alone.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { closeAfterLinger } from './middleware.js';

/**
 * Node's bounds on reading a request (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS), looked at often enough for the
 * shortest of them to hold within a quarter of itself (Node looks every 30 s by default).
 */
export function serverTimeouts(bounds: { headersTimeoutMs: number; requestTimeoutMs: number }): ServerOptions {
  const { headersTimeoutMs, requestTimeoutMs } = bounds;
  const shortest = Math.min(headersTimeoutMs, requestTimeoutMs || headersTimeoutMs);
  return { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(shortest / 4))) };
}

const ANSWERS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [414, 'URI Too Long'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

/** The method of the request the parser refused: from the request in flight, or the first bytes it read. */
function methodOf(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, inFlight: IncomingMessage | undefined): string | undefined {
  if (inFlight) return inFlight.method;
  return err.rawPacket ? /^[A-Z]+(?= )/.exec(err.rawPacket.subarray(0, 16).toString('latin1'))?.[0] : undefined;
}

export function answerClientErrors(server: Server): void {
  // The response in flight on each connection, if any (a timeout can strike while a handler waits for the body).
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight.set(req.socket, res);
    res.once('finish', () => inFlight.get(req.socket) === res && inFlight.delete(req.socket));
  });
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    const res = inFlight.get(socket);
    if (!socket.writable || res?.headersSent) return socket.destroy();
    const [status, text] = ANSWERS[err.code ?? ''] ?? [400, 'Bad Request'];
    const body = JSON.stringify({ message: `${status} ${text}` });
    const head = `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    socket.end(methodOf(err, res?.req) === 'HEAD' ? head : head + body);
    closeAfterLinger(socket);
  });
}
