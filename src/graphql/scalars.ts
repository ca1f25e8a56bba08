/** Time (ISO 8601 UTC with milliseconds), Date (YYYY-MM-DD), Duration (seconds), BigInt, JSON and Upload scalars; a bad value fails variable coercion. */
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { UploadedFile } from '../uploads/storage.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** An ISO 8601 time with a numeric UTC offset. */
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?[+-]\d{2}:\d{2}$/;

/** A refused value as a message shows it: a string as is, anything else as JSON (an object may have no usable toString). */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

function parseTime(value: unknown): Date {
  const date = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new TypeError(`${shown(value)} is not a valid time`);
  return date;
}

function parseDate(value: unknown): Date {
  const match = typeof value === 'string' ? DATE.exec(value.trim()) : null;
  const date = match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3])) : new Date(NaN);
  if (!match || Number.isNaN(date.getTime()) || date.getUTCDate() !== +match[3]) {
    throw new TypeError(`${shown(value)} is not a valid date`);
  }
  return date;
}

function literal(ast: ValueNode): unknown {
  return ast.kind === Kind.STRING ? ast.value : undefined;
}

// Descriptions repeat graphql/base.graphql: a resolver-provided scalar replaces the SDL one, description included.
export const Time = new GraphQLScalarType({
  name: 'Time',
  description: 'An ISO 8601 date-time in UTC with milliseconds, for example `2026-11-21T10:15:30.123Z`.',
  serialize: (value) => {
    if (value instanceof Date) return value.toISOString();
    // A time kept with its zone (a commit's author date, as git recorded it) keeps it, as GitLab's `iso8601` does.
    if (typeof value === 'string' && ZONED.test(value)) return parseTime(value) && value;
    return parseTime(value).toISOString();
  },
  parseValue: parseTime,
  parseLiteral: (ast) => parseTime(literal(ast)),
});

export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  description: 'A calendar date, `YYYY-MM-DD`.',
  serialize: (value) => (value instanceof Date ? value : parseDate(value)).toISOString().slice(0, 10),
  parseValue: parseDate,
  parseLiteral: (ast) => parseDate(literal(ast)),
});

/** GitLab's ISO8601Date: the same calendar date under the name some of GitLab's fields give it. */
export const ISO8601DateScalar = new GraphQLScalarType({ ...DateScalar.toConfig(), name: 'ISO8601Date', description: 'An ISO 8601-encoded date' });

function parseDuration(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${shown(value)} is not a valid duration`);
  return value;
}

/** GitLab's Duration: seconds, fractional. */
export const Duration = new GraphQLScalarType({
  name: 'Duration',
  description: 'Duration between two instants, represented as a fractional number of seconds. For example: 12.3334.',
  serialize: (value) => parseDuration(typeof value === 'string' ? Number(value) : value),
  parseValue: parseDuration,
  parseLiteral: (ast) => parseDuration(ast.kind === Kind.FLOAT || ast.kind === Kind.INT ? Number(ast.value) : undefined),
});

function parseBigInt(value: unknown): bigint {
  if ((typeof value === 'string' && /^-?\d{1,19}$/.test(value)) || (typeof value === 'number' && Number.isSafeInteger(value))) return BigInt(value);
  throw new TypeError(`${String(value)} is not a valid BigInt`);
}

/** GitLab's BigInt: an integer that may exceed 32 bits, serialised as a string (as GitLab does); REST answers it as a number. */
export const BigIntScalar = new GraphQLScalarType({
  name: 'BigInt',
  description: 'Represents non-fractional signed whole numeric values. Since the value may exceed the size of a 32-bit integer, it\'s encoded as a string.',
  serialize: (value) => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return value;
    throw new TypeError(`${String(value)} is not a valid BigInt`);
  },
  parseValue: parseBigInt,
  parseLiteral: (ast) => parseBigInt(ast.kind === Kind.STRING || ast.kind === Kind.INT ? ast.value : undefined),
});

function jsonLiteral(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.LIST:
      return ast.values.map(jsonLiteral);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, jsonLiteral(f.value)]));
    default:
      return null;
  }
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: jsonLiteral,
});

/**
 * A file of a multipart request body (src/http/multipart.ts); nothing else, so a JSON value can never name a file.
 * An empty string is UploadedFile.BLANK, GitLab's way of removing an avatar (`avatar=`).
 */
export const UploadScalar = new GraphQLScalarType({
  name: 'Upload',
  description: 'A file sent as a part of a `multipart/form-data` request; an empty string is a blank one, which removes an avatar.',
  serialize: () => {
    throw new TypeError('Upload is an input type');
  },
  parseValue: (value) => {
    if (value instanceof UploadedFile) return value;
    if (value === '') return UploadedFile.BLANK;
    throw new TypeError('is not a file');
  },
  parseLiteral: () => {
    throw new TypeError('is not a file');
  },
});
