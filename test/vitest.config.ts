// The suite runs on embedded PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
// Node loads graphql's CommonJS build for our dependencies (Apollo, graphql-tools); Vite would pick its .mjs build
// for our own code, and two copies of graphql refuse each other's schema. Point both at the same file.
const resolve = { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] };
// Test files wait on their server, git and the database more than they compute: two run at once even on two cores
// (vitest's default would be one there). A worker keeps its modules between files (isolate: false) so each file does
// not load Prisma, PGlite, graphql and the schema again; every file still starts its own server on its own database.
const shared = { root, include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000, isolate: false };
const postgres = process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { resolve, test: { ...shared, name: 'pglite', env: { TEST_DATABASE_URL: '' } } },
      ...(postgres ? [{ resolve, test: { ...shared, name: 'postgres', env: { TEST_DATABASE_URL: postgres } } }] : []),
    ],
  },
});
