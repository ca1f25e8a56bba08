import pg from 'pg';
import { openDatabase } from './src/db/database.js';
import { WITH_NAMESPACE } from './src/modules/projects/loaders.js';
const url = 'postgresql://postgres@127.0.0.1:5432/prof';
const db = await openDatabase({ databaseUrl: url });
const p = db.readPrisma;
const pool = new pg.Pool({ connectionString: url, max: 6 });
const N = 4000, C = 10;
async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 300; i++) await fn();
  const t0 = performance.now(); let i = 0;
  await Promise.all(Array.from({ length: C }, async () => { while (i++ < N) await fn(); }));
  const ms = performance.now() - t0; console.log(name.padEnd(40), (N / ms * 1000).toFixed(0), 'ops/s', (ms * 1000 / N).toFixed(0), 'µs/op');
}
await time('pg raw join', () => pool.query('SELECT p.*, n.* FROM projects p JOIN namespaces n ON n.id = p."namespaceId" LEFT JOIN users o ON o.id = n."ownerId" WHERE p.id = $1', [1]));
await time('prisma $queryRaw join', () => p.$queryRaw`SELECT p.*, n.* FROM projects p JOIN namespaces n ON n.id = p."namespaceId" LEFT JOIN users o ON o.id = n."ownerId" WHERE p.id = ${1}`);
await time('prisma findMany join include', () => p.project.findMany({ where: { id: { in: [1] } }, ...WITH_NAMESPACE }));
await time('prisma findMany no include', () => p.project.findMany({ where: { id: { in: [1] } } }));
await time('prisma member findMany', () => p.member.findMany({ where: { userId: 1, OR: [{ expiresAt: null }, { expiresAt: { gte: new Date() } }] }, select: { namespaceId: true, projectId: true, accessLevel: true } }));
await time('pg raw members', () => pool.query('SELECT "namespaceId","projectId","accessLevel" FROM members WHERE "userId" = $1 AND ("expiresAt" IS NULL OR "expiresAt" >= $2)', [1, new Date()]));
await db.close(); await pool.end();
