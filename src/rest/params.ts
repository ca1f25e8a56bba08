/**
 * REST parameters to GraphQL variables: `per_page` fills `$perPage`, values are coerced by the variable's
 * declared type the way GitLab's Grape does (`"true"`, `scopes[]=api`, enum values, snake_case input keys),
 * and every failure is reported in Grape's words (`name is missing, scopes is invalid`).
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  getNullableType,
  type GraphQLInputType,
} from 'graphql';
import { invalidParams } from '../errors.js';
import { globalIdModel, restGlobalId } from '../graphql/global-ids.js';
import { paramText } from '../http/params.js';
import type { VariablePlan } from './compile.js';

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Input objects of `{name, value}` whose lists REST takes as one hash (GitLab's `inputs`: `{"env": "prod"}`). */
const NAME_VALUE_LISTS = new Set(['CiInputsInput']);

const INVALID = Symbol('invalid');
type Coerced = unknown | typeof INVALID;

/** A global-ID scalar's parameter (CiPipelineID): REST names the record by its numeric id, as GitLab's routes do. */
function globalIdParam(type: GraphQLScalarType, model: string, raw: unknown): Coerced {
  const text = typeof raw === 'boolean' ? undefined : paramText(raw)?.trim();
  if (text === undefined) return INVALID;
  const gid = restGlobalId(model, text);
  try {
    type.parseValue(gid);
    return gid;
  } catch {
    return INVALID;
  }
}

function coerceScalar(type: GraphQLScalarType, raw: unknown, required: boolean): Coerced {
  const model = globalIdModel(type);
  if (model) return globalIdParam(type, model, raw);
  switch (type.name) {
    case 'Int': {
      const text = typeof raw === 'boolean' ? '' : (paramText(raw)?.trim() ?? '');
      if (!/^-?\d{1,10}$/.test(text) || Math.abs(Number(text)) > 2147483647) return INVALID;
      return Number(text);
    }
    case 'Float': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      return Number.isFinite(n) ? n : INVALID;
    }
    case 'Boolean': {
      if (typeof raw === 'boolean') return raw;
      const text = paramText(raw)?.toLowerCase() ?? '';
      return TRUE.has(text) ? true : FALSE.has(text) ? false : INVALID;
    }
    case 'String':
    case 'ID':
      return typeof raw === 'boolean' ? INVALID : (paramText(raw) ?? INVALID);
    case 'JSON':
      return raw;
    default:
      // Other custom scalars (Time, Date, Upload) validate with their own parser; the adapter passes the raw value on. A
      // blank one is no value where one is required.
      if (raw === '' && required) return INVALID;
      try {
        type.parseValue(raw);
        return raw;
      } catch {
        return INVALID;
      }
  }
}

function coerce(type: GraphQLInputType, raw: unknown, param: string, errors: string[]): unknown {
  const nullable = type instanceof GraphQLNonNull ? type.ofType : type;
  if (raw === null || raw === undefined) return null;
  if (nullable instanceof GraphQLList) {
    // Lists of IDs also come comma-separated in one value (GitLab's CommaSeparatedToIntegerArray: skip_groups=8,9).
    const item = getNullableType(nullable.ofType);
    // A Grape `type: Hash` of name → value whose GraphQL argument is GitLab's list of `{name, value}` (`inputs` of a
    // pipeline); a schedule's `inputs` come as that list itself (an Array of `name`, `value` and `destroy`), where
    // Grape asks for no value of an input being destroyed (the GraphQL type requires one; a removal ignores it).
    if (item instanceof GraphQLInputObjectType && NAME_VALUE_LISTS.has(item.name)) {
      if (Array.isArray(raw)) {
        const removals = raw.map((entry) => (entry && typeof entry === 'object' && !Array.isArray(entry) && TRUE.has(String((entry as Record<string, unknown>).destroy)) ? { value: false, ...entry } : entry));
        return removals.map((entry, i) => coerce(nullable.ofType, entry, `${param}[${i}]`, errors));
      }
      if (typeof raw !== 'object') {
        errors.push(`${param} is invalid`);
        return null;
      }
      return Object.entries(raw as Record<string, unknown>).map(([name, value]) => ({ name, value }));
    }
    // An array of hashes (`variables`) is never made of a lone scalar: Grape finds `variables=x` invalid as a whole.
    if (item instanceof GraphQLInputObjectType && typeof raw !== 'object' && raw !== '') {
      errors.push(`${param} is invalid`);
      return null;
    }
    const commaSeparated = typeof raw === 'string' && item instanceof GraphQLScalarType && (item.name === 'Int' || item.name === 'ID');
    const items = Array.isArray(raw) ? raw : raw === '' ? [] : commaSeparated ? raw.split(',') : typeof raw === 'object' ? Object.values(raw) : [raw];
    // A null item where the list takes none (`"scopes": [null]`) is the list's fault, as Grape reads it.
    if (nullable.ofType instanceof GraphQLNonNull && items.some((item) => item === null || item === undefined)) {
      errors.push(`${param} is invalid`);
      return null;
    }
    return items.map((item, i) => coerce(nullable.ofType, item, `${param}[${i}]`, errors));
  }
  if (nullable instanceof GraphQLInputObjectType) {
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      errors.push(`${param} is invalid`);
      return null;
    }
    const source = raw as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const field of Object.values(nullable.getFields())) {
      const value = source[snakeCase(field.name)] ?? source[field.name];
      const key = param ? `${param}[${snakeCase(field.name)}]` : snakeCase(field.name);
      if (value === undefined || value === null) {
        if (field.type instanceof GraphQLNonNull && field.defaultValue === undefined) errors.push(`${key} is missing`);
        continue;
      }
      out[field.name] = coerce(field.type, value, key, errors);
    }
    return out;
  }
  if (nullable instanceof GraphQLEnumType) {
    const text = paramText(raw);
    if (text === undefined) {
      errors.push(`${param} is invalid`);
      return null;
    }
    // An enum of numbers is an Integer parameter with `values:` in Grape: a non-integer is invalid, not out of range.
    if (nullable.getValues().every((v) => typeof v.value === 'number') && !/^\d+$/.test(text)) {
      errors.push(`${param} is invalid`);
      return null;
    }
    // By name in any case (`DESC`, `desc`), or by internal value (`access_level=30`).
    const match = nullable.getValues().find((v) => v.name.toLowerCase() === text.toLowerCase() || String(v.value) === text);
    if (!match) errors.push(`${param} does not have a valid value`);
    return match?.name ?? null;
  }
  const value = coerceScalar(nullable as GraphQLScalarType, raw, type instanceof GraphQLNonNull);
  if (value === INVALID) {
    errors.push(`${param} is invalid`);
    return null;
  }
  return value;
}

/** The variable of a wide route (architecture.md): one input object filled from the request's parameters. */
const WIDE_INPUT = 'input';

function isInputObject(type: GraphQLInputType): boolean {
  return (type instanceof GraphQLNonNull ? type.ofType : type) instanceof GraphQLInputObjectType;
}

/** Variables for an operation from merged request parameters; throws BAD_USER_INPUT listing every problem. */
export function variablesFromParams(variables: VariablePlan[], params: Record<string, unknown>, fixed: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const errors: string[] = [];
  const out: Record<string, unknown> = {};
  for (const v of variables) {
    if (Object.hasOwn(fixed, v.name)) {
      out[v.name] = fixed[v.name];
      continue;
    }
    const param = v.param;
    // A wide route's `$input` object is filled from the request's own parameters, named as its fields are.
    if (v.name === WIDE_INPUT && params[param] === undefined && isInputObject(v.type)) {
      out[v.name] = coerce(v.type, params, '', errors);
      continue;
    }
    let raw = params[param] === null && v.clearable ? null : (params[param] ?? params[v.name]);
    const nullable = v.type instanceof GraphQLNonNull ? v.type.ofType : v.type;
    // Grape passes an empty string through for strings and lists; for other optional types it means "not given",
    // but for files: a blank avatar removes it (GitLab's Projects and Groups APIs).
    const keepsEmpty = nullable instanceof GraphQLList || (nullable instanceof GraphQLScalarType && (nullable.name === 'String' || nullable.name === 'Upload'));
    if (raw === '' && !(v.type instanceof GraphQLNonNull) && !keepsEmpty) raw = v.clearable ? null : undefined;
    if (raw === null && v.clearable) {
      out[v.name] = null;
      continue;
    }
    if (raw === undefined || raw === null) {
      if (v.type instanceof GraphQLNonNull && !v.hasDefault) errors.push(`${param} is missing`);
      continue;
    }
    out[v.name] = coerce(v.type, raw, param, errors);
  }
  if (errors.length) throw invalidParams([...new Set(errors)]);
  return out;
}
