/**
 * Generates the Prisma client offline. `prisma generate` only checks that a schema-engine binary exists
 * (it generates with WebAssembly), so point it at a file that exists instead of letting it download one.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate', '--schema', 'prisma/schema.prisma'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
});
process.exit(result.status ?? 1);
