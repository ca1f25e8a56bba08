import { beforeAll, describe, expect, it } from 'vitest';
import { suiteServer } from '../support/server.js';
import { createProject } from '../support/factories.js';

const t = suiteServer();
let projectId: number;

beforeAll(async () => {
  projectId = (await createProject(t, t.rootToken)).id;
});

/** Headers that differ between any two requests. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

function stableHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !PER_REQUEST.has(name)));
}

async function call(method: string, path: string, token: string | null = t.rootToken) {
  const res = await fetch(`${t.url}${path}`, { method, headers: token ? { 'PRIVATE-TOKEN': token } : {} });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('HEAD and Content-Type', () => {
  const paths = () => [
    '/api/v4/version',
    `/api/v4/projects/${projectId}`,
    '/api/v4/projects?per_page=1',
    '/api/v4/projects/999999999',
    '/api/v4/no/such/route',
  ];

  it('answers HEAD on every GET route with exactly the headers GET sends, and no body', async () => {
    for (const path of paths()) {
      const get = await call('GET', path);
      const head = await call('HEAD', path);
      expect(head.status, path).toBe(get.status);
      expect(stableHeaders(head.headers), path).toEqual(stableHeaders(get.headers));
      expect(head.text, path).toBe('');
      expect(get.text.length, path).toBeGreaterThan(0);
    }
  });

  it('sends Content-Type: application/json without a charset on results and errors alike', async () => {
    const answers = [
      ...(await Promise.all(paths().map((path) => call('GET', path)))),
      await call('GET', '/api/v4/user', null), // 401
      await call('GET', '/api/v4/projects?per_page=0'), // 400
      await call('POST', '/api/v4/projects'), // 400 with a missing parameter
      await call('GET', '/api/v3/projects'), // 410
    ];
    for (const answer of answers) expect(answer.headers.get('content-type'), answer.text).toBe('application/json');
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 404, 401, 400, 400, 410]);
  });
});
