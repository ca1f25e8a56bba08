/** `npm run db:migrate` applies the committed migrations; `npm run db:migration -- <name>` writes a new one from schema.prisma. */
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { loadConfig } from '../config.js';
import { databaseBounds, openMigratedDatabase } from './database.js';
import { createMigration } from './engine.js';

const [command, name] = process.argv.slice(2);

if (command === 'migrate') {
  const config = loadConfig();
  const { db, applied } = await openMigratedDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteWorker: config.pgliteWorker, bounds: databaseBounds(config) });
  await db.close();
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} else if (command === 'migration') {
  if (!name) {
    console.error('usage: npm run db:migration -- <name>');
    process.exit(2);
  }
  // The diff replays the migrations on a scratch in-memory database, so no server is needed.
  const scratch = await PGlite.create();
  const dir = await createMigration(new PrismaPGlite(scratch), name);
  await scratch.close();
  console.log(dir ? `created prisma/migrations/${dir}` : 'schema.prisma and the migrations agree: nothing to do');
} else {
  console.error('usage: db/cli.ts migrate | migration <name>');
  process.exit(2);
}
