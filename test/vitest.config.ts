// The suite runs on embedded PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
// Node loads graphql's CommonJS build for our dependencies (Apollo, graphql-tools); Vite would pick its .mjs build
// for our own code, and two copies of graphql refuse each other's schema. Point both at the same file.
const resolve = { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] };
// Test files wait on their server, git and the database more than they compute: two run at once even on two cores
// (vitest's default would be one there). A worker keeps its modules between files (isolate: false) so each file does
// not load Prisma, PGlite, graphql and the schema again; every file still starts its own server on its own database.
// A closed server must let go of everything (test/foundation/release.test.ts), or a worker running some 180 files
// outgrows its heap. The heap may still grow to 8 GB (two workers on the 24 GB machine): a worker near Node's default
// limit of about 4 GB spends its time collecting.
const shared = { root, include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000, isolate: false, execArgv: ['--max-old-space-size=8192'] };
const postgres = process.env.TEST_DATABASE_URL;
// Files that never open the suite's database (they check code, or start `npm start` on its own PGlite): the PostgreSQL
// run would repeat them exactly, so they run once, with PGlite.
const DATABASE_FREE = [
  'test/foundation/cli.test.ts',
  'test/foundation/contract.test.ts',
  'test/ci/compose.test.ts',
  'test/ci/config.test.ts',
  'test/ci/gitlab-differences.test.ts',
  'test/ci/hostile.test.ts',
  'test/ci/rules.test.ts',
  'test/features/definitions.test.ts',
  'test/hooks/url-blocker.test.ts',
  'test/pipeline_schedules/cron.test.ts',
  'test/pipelines/status.test.ts',
  'test/repositories/git-spawner.test.ts',
  'test/rest/adapter.test.ts',
];
// A listed file that starts a server or opens a database would skip PostgreSQL unseen: refuse it.
for (const file of DATABASE_FREE) {
  if (/support\/(server|db|context)|TEST_DATABASE_URL|startTestServer|freshDatabase/.test(readFileSync(join(root, file), 'utf8'))) {
    throw new Error(`${file} uses the database: take it off DATABASE_FREE in test/vitest.config.ts`);
  }
}

export default defineConfig({
  test: {
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { resolve, test: { ...shared, name: 'pglite', env: { TEST_DATABASE_URL: '' } } },
      ...(postgres ? [{ resolve, test: { ...shared, name: 'postgres', exclude: DATABASE_FREE, env: { TEST_DATABASE_URL: postgres } } }] : []),
    ],
  },
});
