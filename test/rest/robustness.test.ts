import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { declaredRoutes, restOperations } from '../../src/rest/routes.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { snakeCase } from '../../src/rest/params.js';

// Every route, every declared parameter, hostile values: the answer is a 4xx or a success, never a 500.
const NASTY: unknown[] = [
  '',
  ' ',
  '-1',
  '0',
  '99999999999999999999',
  '1.5',
  'null',
  'true',
  '%00',
  '../../etc/passwd',
  'ü/ß/日本',
  'a'.repeat(5000),
  ["x"],
  { nested: { deeper: ['y'] } },
  -5,
  1e308,
  false,
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ rateLimitPerMinute: 0 });
});
afterAll(() => t?.close());

describe('robustness', () => {
  const operations = restOperations(buildSchema());
  for (const route of declaredRoutes) {
    it(`${route.method} ${route.path} never answers 500 to hostile parameters`, async () => {
      const params = (operations.get(route.operation)?.variables ?? []).map((v) => snakeCase(v.name)).concat(['page', 'per_page']);
      const failures: string[] = [];
      for (const value of NASTY) {
        const path = route.path.replace(/:[a-z_]+/g, () => encodeURIComponent(typeof value === 'string' && value !== '' ? value : 'x'));
        const body = Object.fromEntries(params.map((p) => [p, value]));
        const res =
          route.method === 'GET'
            ? await t.api('GET', `${path}?${params.map((p) => `${p}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`).join('&')}`)
            : await t.api(route.method, path, { body });
        if (res.status >= 500) failures.push(`${JSON.stringify(value).slice(0, 40)} -> ${res.status} ${res.text.slice(0, 200)}`);
        if (res.status >= 400 && !/application\/json/.test(res.headers.get('content-type') ?? '')) failures.push(`${JSON.stringify(value).slice(0, 40)} -> ${res.status} without JSON`);
      }
      expect(failures).toEqual([]);
    });
  }
});
