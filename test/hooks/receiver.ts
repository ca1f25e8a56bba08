/** A webhook receiver on a loopback port: each request it gets resolves the next awaited `next()`. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

export interface Receiver {
  url: string;
  /** The next request (already received or still to come). */
  next(): Promise<Received>;
  /** Sets how the following requests are answered: a status, or a redirect. */
  answer(fn: (req: Received) => { status: number; headers?: Record<string, string>; body?: string }): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const queue: Received[] = [];
  const waiting: Array<(r: Received) => void> = [];
  let answer: (req: Received) => { status: number; headers?: Record<string, string>; body?: string } = () => ({ status: 200, body: 'ok' });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = body ? JSON.parse(body) : null;
      } catch {
        json = null;
      }
      const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json };
      const reply = answer(received);
      res.writeHead(reply.status, { 'Content-Type': 'text/plain', 'X-Receiver': 'yes', ...(reply.headers ?? {}) });
      res.end(reply.body ?? '');
      const waiter = waiting.shift();
      if (waiter) waiter(received);
      else queue.push(received);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    next: () => {
      const ready = queue.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    answer: (fn) => {
      answer = fn;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
