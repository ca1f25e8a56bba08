import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { prng } from './prng.js';

// Requests during a stop, with a server of its own (the test stops it): a seeded mix of reads, writes and requests
// express answers at once (`/-/health`, a 404, a 410) keeps arriving while the server drains. Each is answered, or
// refused before it was accepted; none is reset, none gets a 5xx, and nothing throws in the server.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_STOP_REQUESTS ?? 120);

describe(`requests during a stop (seed ${SEED})`, () => {
  it('answers every accepted request, synchronous answers included, while the server drains', async () => {
    const t = await startTestServer({ rateLimitPerMinute: 0 });
    const { next } = prng(SEED);
    const shapes: [string, RequestInit][] = [
      ['/-/health', {}],
      ['/no/such/path', {}],
      ['/api/v3/projects', {}],
      ['/api/v4/version', { headers: { 'PRIVATE-TOKEN': t.rootToken } }],
      ['/api/v4/projects?per_page=5', { headers: { 'PRIVATE-TOKEN': t.rootToken } }],
      ['/api/v4/projects?archived[toString]=x', {}],
      ['/api/v4/groups', { method: 'POST', headers: { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': 'application/json' }, body: '{"name":' }],
    ];
    let closing: Promise<void> | undefined;
    const outcomes = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        // Spread over about 600 ms, the stop starting a third of the way in.
        await new Promise((r) => setTimeout(r, Math.floor(next() * 600)));
        if (i === Math.floor(REQUESTS / 3)) closing = t.close();
        const project = next() < 0.2;
        const [path, init] = project
          ? ['/api/v4/projects', { method: 'POST', headers: { 'PRIVATE-TOKEN': t.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: `stop-${SEED}-${i}` }) }]
          : shapes[Math.floor(next() * shapes.length)];
        return fetch(`${t.url}${path}`, init).then(
          async (res) => {
            await res.arrayBuffer();
            return String(res.status);
          },
          (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
        );
      }),
    );
    await closing;
    const statuses = outcomes.filter((o) => /^\d{3}$/.test(o));
    // Refused before accepted: the port closed (ECONNREFUSED). A kept-alive connection is never closed under a request
    // the client may already have written to it (UND_ERR_SOCKET).
    expect(outcomes.filter((o) => !/^[1-4]\d\d$/.test(o) && o !== 'ECONNREFUSED')).toEqual([]);
    expect(statuses.length).toBeGreaterThan(0);
  }, 60_000);
});
