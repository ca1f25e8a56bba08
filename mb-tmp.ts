import { openDatabase, Prisma } from './src/db/database.js';
import { WITH_NAMESPACE } from './src/modules/projects/loaders.js';
const url = 'postgresql://postgres@127.0.0.1:5432/prof';
const db = await openDatabase({ databaseUrl: url });
const p = db.readPrisma;
const cols = (alias: string, fields: object, prefix: string) => Object.values(fields).map((f) => `${alias}."${f}" AS "${prefix}${f}"`).join(', ');
const sql = `SELECT ${cols('p', Prisma.ProjectScalarFieldEnum, '')}, ${cols('n', Prisma.NamespaceScalarFieldEnum, 'n.')}, ${cols('o', Prisma.UserScalarFieldEnum, 'o.')} FROM projects p JOIN namespaces n ON n.id = p."namespaceId" LEFT JOIN users o ON o.id = n."ownerId" WHERE p.id = ANY($1::int[])`;
const N = 4000, C = 10;
async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 500; i++) await fn();
  const t0 = performance.now(); let i = 0;
  await Promise.all(Array.from({ length: C }, async () => { while (i++ < N) await fn(); }));
  const ms = performance.now() - t0; console.log(name.padEnd(40), (N / ms * 1000).toFixed(0), 'ops/s', (ms * 1000 / N).toFixed(0), 'µs/op');
}
for (let r = 0; r < 2; r++) {
await time('prisma findMany join include', () => p.project.findMany({ where: { id: { in: [1] } }, ...WITH_NAMESPACE }));
await time('prisma $queryRawUnsafe aliased', () => p.$queryRawUnsafe(sql, [1]));
await time('prisma findMany query strategy', () => p.project.findMany({ where: { id: { in: [1] } }, include: WITH_NAMESPACE.include }));
}
console.log(await p.$queryRawUnsafe(sql, [1]));
await db.close();
