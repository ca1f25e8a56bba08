// The suite runs on embedded PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
// Node loads graphql's CommonJS build for our dependencies (Apollo, graphql-tools); Vite would pick its .mjs build
// for our own code, and two copies of graphql refuse each other's schema. Point both at the same file.
const resolve = { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] };
const shared = { root, include: ['test/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 };
const postgres = process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    projects: [
      { resolve, test: { ...shared, name: 'pglite', env: { TEST_DATABASE_URL: '' } } },
      ...(postgres ? [{ resolve, test: { ...shared, name: 'postgres', env: { TEST_DATABASE_URL: postgres } } }] : []),
    ],
  },
});
