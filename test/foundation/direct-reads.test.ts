/**
 * Hot-path reads go past Prisma's client to the lane's driver adapter (src/db/direct-reads.ts). Their rows must be
 * the very values `$queryRaw` gives, type for type, or every answer built on them drifts unnoticed; a transaction's
 * reads must stay in it; the database's failures must reach src/errors.ts as Prisma's do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../src/db/database.js';
import { queryRows } from '../../src/db/direct-reads.js';
import { fromDatabase } from '../../src/errors.js';
import { freshDatabase, type FreshDatabase } from '../support/db.js';

let fresh: FreshDatabase;
const statements: string[] = [];
beforeAll(async () => {
  fresh = await freshDatabase('direct_reads', { onQuery: (sql) => statements.push(sql) });
});
afterAll(() => fresh?.cleanup());

/** One column of every type PostgreSQL hands Prisma's adapters, each also as an array, and NULLs of each. */
const EVERY_TYPE = (id: number, when: Date, tags: string[]) => Prisma.sql`
  SELECT ${id}::int AS "int4", 2::smallint AS "int2", 9007199254740993::bigint AS "int8", 1.5::real AS "float4",
         2.25::float8 AS "float8", 12345.678901234567890::numeric AS "numeric", true AS "bool", false AS "boolFalse",
         'x'::char(3) AS "char", 'text é'::text AS "text", 'v'::varchar AS "varchar", ${when}::timestamp(3) AS "timestamp",
         ${when}::timestamptz AS "timestamptz", '2026-11-24'::date AS "date", '13:14:15.5'::time AS "time",
         '{"a": [1, {"b": null}]}'::json AS "json", '{"c": "d"}'::jsonb AS "jsonb", '\\x00ff10'::bytea AS "bytea",
         'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS "uuid", '1.5'::money AS "money",
         ARRAY[1, NULL, 3]::int[] AS "int4s", ARRAY[9007199254740993]::bigint[] AS "int8s", ARRAY[1.5]::numeric[] AS "numerics",
         ARRAY[true, false]::bool[] AS "bools", ${tags}::text[] AS "texts", ARRAY[${when}::timestamp(3), NULL] AS "timestamps",
         ARRAY['2026-01-02'::date] AS "dates", ARRAY['{"e": 1}'::jsonb] AS "jsonbs", ARRAY['\\x01'::bytea] AS "byteas",
         NULL::int AS "nullInt", NULL::bigint AS "nullInt8", NULL::timestamp AS "nullTimestamp", NULL::jsonb AS "nullJson",
         NULL::text[] AS "nullTexts", count(*) AS "count", 1 AS "same", 2 AS "same"`;

describe('direct reads', () => {
  it('give every column type exactly as $queryRaw does', async () => {
    const prisma = fresh.db.readPrisma;
    const when = new Date('2026-11-24T08:09:10.123Z');
    const sql = EVERY_TYPE(7, when, ['a', 'b,c', 'd"e']);
    const [direct] = await queryRows<Record<string, unknown>>(prisma, sql);
    const [viaPrisma] = await prisma.$queryRaw<Record<string, unknown>[]>(sql);
    expect(direct).toEqual(viaPrisma);
    expect(Object.keys(direct)).toEqual(Object.keys(viaPrisma));
    for (const key of Object.keys(viaPrisma)) expect([key, direct[key]?.constructor]).toEqual([key, viaPrisma[key]?.constructor]);
    // What toEqual might gloss over, spelled out.
    expect(direct.int8).toBe(9007199254740993n);
    expect(direct.timestamp).toEqual(when);
    expect(direct.numeric).toBeInstanceOf(Prisma.Decimal);
    expect(String(direct.numeric)).toBe(String(viaPrisma.numeric));
    expect(direct.bytea).toBeInstanceOf(Uint8Array);
    expect([...(direct.bytea as Uint8Array)]).toEqual([0, 255, 16]);
    expect(direct.texts).toEqual(['a', 'b,c', 'd"e']);
    expect(direct.same).toBe(2);
  });

  it('carry parameters as Prisma does: lists, dates, big integers, decimals, bytes, NULL', async () => {
    const prisma = fresh.db.prisma;
    const when = new Date('2001-02-03T04:05:06.789Z');
    const sql = Prisma.sql`SELECT ${[1, 2, 3]}::int[] AS "ids", ${[when]}::timestamp(3)[] AS "whens", ${when}::timestamp(3) AS "when",
      ${12345678901234567890n}::numeric AS "big", ${new Prisma.Decimal('1.25')}::numeric AS "dec", ${Buffer.from([1, 2])}::bytea AS "buf",
      ${null}::text AS "nothing", ${"it's"}::text AS "quote", ${true}::bool AS "yes"`;
    const [direct] = await queryRows<Record<string, unknown>>(prisma, sql);
    expect(direct).toEqual(await prisma.$queryRaw<Record<string, unknown>[]>(sql).then((rows) => rows[0]));
    expect(direct.whens).toEqual([when]);
    expect(String(direct.big)).toBe('12345678901234567890');
  });

  it('are heard by the query log, as Prisma’s statements are', async () => {
    const before = statements.length;
    await queryRows(fresh.db.readPrisma, Prisma.sql`SELECT ${'heard'}::text AS "x"`);
    expect(statements.slice(before)).toEqual([expect.stringContaining('SELECT $1::text AS "x"')]);
  });

  it('inside a transaction, run in it and see its writes', async () => {
    const prisma = fresh.db.prisma;
    const path = `direct-${Date.now()}`;
    const seen = await prisma
      .$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO "namespaces" ("name", "path", "fullPath", "fullName", "kind", "updatedAt") VALUES (${path}, ${path}, ${path}, ${path}, 'group', now())`;
        const rows = await queryRows<{ path: string }>(tx, Prisma.sql`SELECT "path" FROM "namespaces" WHERE "path" = ${path}`);
        throw Object.assign(new Error('roll back'), { rows });
      })
      .catch((err: { rows?: unknown }) => err.rows);
    expect(seen).toEqual([{ path }]);
    expect(await queryRows(prisma, Prisma.sql`SELECT 1 FROM "namespaces" WHERE "path" = ${path}`)).toEqual([]);
  });

  it('fail as Prisma’s statements do, for src/errors.ts to map', async () => {
    const prisma = fresh.db.prisma;
    const path = `direct-dup-${Date.now()}`;
    const insert = Prisma.sql`INSERT INTO "namespaces" ("name", "path", "fullPath", "fullName", "kind", "updatedAt")
      VALUES (${path}, ${path}, ${path}, ${path}, 'group', now()) RETURNING "id"`;
    await queryRows(prisma, insert);
    const direct = await queryRows(prisma, insert).catch((err: unknown) => err);
    const viaPrisma = await prisma.$queryRaw(insert).catch((err: unknown) => err);
    expect(fromDatabase(viaPrisma)?.extensions.code).toBeDefined();
    expect(fromDatabase(direct)?.extensions).toEqual(fromDatabase(viaPrisma)?.extensions);
    expect(fromDatabase(direct)?.message).toBe(fromDatabase(viaPrisma)?.message);
  });
});
