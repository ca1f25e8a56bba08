import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';

const t = suiteServer({ rateLimitPerMinute: 5, bodyLimit: 2048 });
beforeAll(async () => {
  // Each test below sends its own (unknown) token: the limit counts per token, so no test trips another.
});

describe('bounds', () => {
  it('answers malformed JSON with a 400 and no stack trace', async () => {
    const res = await t.api('POST', '/groups', { token: 'glpat-bounds-json', body: '{"name": "x", ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/at .*\.js/);
    expect(res.body).toEqual({ error: 'The request body could not be parsed' });
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await t.api('POST', '/groups', { token: 'glpat-bounds-size', body: { name: 'x'.repeat(4096), path: 'big' } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: '413 Request Entity Too Large' });
  });

  it('answers unknown routes and methods with GitLab\'s catch-all 404, and v3 with 410', async () => {
    expect((await t.api('GET', '/nothing/here', { token: 'glpat-bounds-404' })).body).toEqual({ error: '404 Not Found' });
    expect((await t.api('DELETE', '/version', { token: 'glpat-bounds-404' })).body).toEqual({ error: '404 Not Found' });
    const v3 = await fetch(`${t.url}/api/v3/projects`, { headers: { 'PRIVATE-TOKEN': 'glpat-bounds-v3' } });
    expect(v3.status).toBe(410);
  });

  it('limits requests per token per minute with 429 and Retry-After', async () => {
    // The limit is counted before authentication, so a token of its own gives this test a window of its own.
    const probe = (token: string) => fetch(`${t.url}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': token } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await probe('glpat-rate-limit-probe')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const limited = await probe('glpat-rate-limit-probe');
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ message: '429 Too Many Requests' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await probe('glpat-another-caller')).status).toBe(401);
  });
});
