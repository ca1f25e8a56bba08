/**
 * Raw reads on a hot path, past Prisma's client: the statement goes straight to the lane's driver adapter (the same
 * `pg` pool or PGlite that Prisma uses), and its rows come back exactly as `$queryRaw` gives them, value for value
 * (test/db/direct-reads.test.ts holds the two equal for every column type).
 *
 * Measured on `GET /projects/:id` (PostgreSQL, autocannon -c 10 against `npm start`): Prisma's client spends about
 * 9% of the server's CPU on one `$queryRaw` (its request pipeline, query interpreter and two passes of value
 * conversion); reading past it raised throughput by about 15%. Use it only where a profile shows the difference.
 *
 * Inside an interactive transaction there is no lane client to go past: `queryRows` is given the transaction's
 * client and runs the statement through it, so a transaction's reads stay in the transaction.
 */
import { ColumnTypeEnum, type ArgType, type ColumnType, type SqlDriverAdapterFactory, type SqlQueryable } from '@prisma/driver-adapter-utils';
import { Prisma } from '../generated/prisma/client.js';
import type { RawQuerier } from './database.js';

/** A lane client's own adapter, connected on first use. */
interface DirectLane {
  adapter: () => Promise<SqlQueryable>;
  onQuery?: (sql: string) => void;
}

const lanes = new WeakMap<object, DirectLane>();

/**
 * Gives a lane's Prisma client a direct path to the adapter factory it was made with; `onQuery` hears each statement
 * run that way, as Prisma's query log would. Returns what closes it.
 */
export function attachDirectReads(client: object, factory: SqlDriverAdapterFactory, onQuery?: (sql: string) => void): () => Promise<void> {
  let connected: ReturnType<SqlDriverAdapterFactory['connect']> | undefined;
  lanes.set(client, { adapter: () => (connected ??= factory.connect()), onQuery });
  return async () => {
    lanes.delete(client);
    const adapter = await connected?.catch(() => undefined);
    await adapter?.dispose().catch(() => {});
  };
}

/** The rows of a raw read, as `db.$queryRaw` would give them; past Prisma's client when `db` is a lane's client. */
export async function queryRows<T>(db: RawQuerier, sql: Prisma.Sql): Promise<T[]> {
  const lane = lanes.get(db);
  if (!lane) return db.$queryRaw<T[]>(sql);
  const args = sql.values.map(arg);
  const query = { sql: sql.text, args: args.map((a) => a[0]), argTypes: args.map((a) => a[1]) };
  const result = await (await lane.adapter()).queryRaw(query);
  lane.onQuery?.(sql.text);
  const { columnNames, columnTypes, rows } = result;
  const out = new Array<T>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r];
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columnNames.length; c++) row[columnNames[c]] = fromColumn(columnTypes[c], values[c]);
    out[r] = row as T;
  }
  return out;
}

const SCALAR: ArgType = { scalarType: 'unknown', arity: 'scalar' };
const LIST: ArgType = { scalarType: 'unknown', arity: 'list' };

/** A parameter as Prisma hands it to the adapter: the adapter formats dates and bytes; numbers it cannot carry go as text. */
function arg(value: unknown): [unknown, ArgType] {
  if (Array.isArray(value)) return [value.map((v) => arg(v)[0]), LIST];
  if (typeof value === 'bigint' || Prisma.Decimal.isDecimal(value)) return [String(value), SCALAR];
  return [value, SCALAR];
}

const int32 = (v: unknown) => Math.trunc(Number(v));
const int64 = (v: unknown) => BigInt(typeof v === 'number' ? Math.trunc(v) : (v as string));
const bool = (v: unknown) => (typeof v === 'string' ? v === 'true' || v === '1' : typeof v === 'number' ? v === 1 : v);
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
const date = (v: unknown) => new Date(v as string);
const time = (v: unknown) => new Date(`1970-01-01T${v as string}Z`);
const bytes = (v: unknown) => new Uint8Array(typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.from(v as Uint8Array));
const decimal = (v: unknown) => new Prisma.Decimal(v as string);

/** Each column type's conversion, as Prisma's raw path makes it (its serialiser, then its deserialiser). */
const CONVERT: Partial<Record<ColumnType, (v: unknown) => unknown>> = {
  [ColumnTypeEnum.Int32]: int32,
  [ColumnTypeEnum.Int64]: int64,
  [ColumnTypeEnum.Numeric]: decimal,
  [ColumnTypeEnum.Boolean]: bool,
  [ColumnTypeEnum.Json]: json,
  [ColumnTypeEnum.Date]: date,
  [ColumnTypeEnum.DateTime]: date,
  [ColumnTypeEnum.Time]: time,
  [ColumnTypeEnum.Bytes]: bytes,
};
const ARRAYS: [ColumnType, ColumnType][] = [
  [ColumnTypeEnum.Int32Array, ColumnTypeEnum.Int32],
  [ColumnTypeEnum.Int64Array, ColumnTypeEnum.Int64],
  [ColumnTypeEnum.NumericArray, ColumnTypeEnum.Numeric],
  [ColumnTypeEnum.BooleanArray, ColumnTypeEnum.Boolean],
  [ColumnTypeEnum.JsonArray, ColumnTypeEnum.Json],
  [ColumnTypeEnum.DateArray, ColumnTypeEnum.Date],
  [ColumnTypeEnum.DateTimeArray, ColumnTypeEnum.DateTime],
  [ColumnTypeEnum.TimeArray, ColumnTypeEnum.Time],
  [ColumnTypeEnum.BytesArray, ColumnTypeEnum.Bytes],
];
for (const [array, element] of ARRAYS) {
  const one = CONVERT[element] as (v: unknown) => unknown;
  CONVERT[array] = (v) => (v as unknown[]).map((e) => (e === null ? null : one(e)));
}

function fromColumn(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const convert = CONVERT[type];
  return convert ? convert(value) : value;
}
