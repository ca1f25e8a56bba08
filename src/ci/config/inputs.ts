/**
 * `spec: inputs` and `$[[ inputs.name ]]` (GitLab's Config::Interpolation::Interpolator): a file whose first YAML
 * document is a `spec:` header declares inputs (type string, number, boolean or array; `default`, `options`,
 * `regex`, `description`); the arguments given (`include: inputs:`, none for the pipeline's own file) are checked
 * against it, then every `$[[ … ]]` block in the second document's keys and values is replaced: a block that is the
 * whole value keeps the input's type, one inside a text becomes text. Blocks may pipe the value through up to three
 * functions (`expand_vars`, `truncate(offset, length)`, `posix_escape`). Errors are GitLab's, the first three joined.
 */
import { Problems, unknownKeys } from './problems.js';
import { safeRegexp } from './regexp.js';
import type { ConfigMap, Value } from './types.js';
import { isBoolean, isMap, isString, rubyInspect } from './values.js';
import { expandVariables } from './variables.js';

/** GitLab's Interpolation::Template block pattern, and its limits. */
const BLOCK = /\$\[\[\s*(\S.*?\S)\s*\]\]/g;
const MAX_BLOCKS = 10_000;
const MAX_FUNCTIONS = 3;
const MAX_ACCESS_OBJECTS = 5;
const MAX_ACCESS_BYTES = 1024;

const INPUT_KEYS = ['default', 'description', 'options', 'regex', 'type', 'rules'];
const TYPES = ['array', 'boolean', 'number', 'string'] as const;
type InputType = (typeof TYPES)[number];

class InterpolationError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.slice(0, 3).join(', '));
  }
}

const article = (type: InputType) => (type === 'array' ? 'an' : 'a');

function matchesType(type: InputType, value: Value): boolean {
  if (type === 'array') return Array.isArray(value);
  if (type === 'boolean') return isBoolean(value);
  if (type === 'number') return typeof value === 'number';
  return isString(value);
}

/** Ruby's `to_s` of an input's value, as a block inside a text shows it. */
function rubyToS(value: Value): string {
  if (value === null) return '';
  if (isString(value) || typeof value === 'number' || isBoolean(value)) return String(value);
  return rubyInspect(value);
}

/** The `spec:` header's inputs, checked as GitLab's Header::Root entry checks them. */
function readSpec(header: ConfigMap): Map<string, ConfigMap> {
  const p = new Problems();
  unknownKeys(p, 'header', header.keys(), ['spec']);
  const spec = header.get('spec');
  const inputs = new Map<string, ConfigMap>();
  if (!isMap(spec)) p.add('header:spec', 'config should be a hash');
  else {
    unknownKeys(p, 'header:spec', spec.keys(), ['inputs', 'component', 'include']);
    const declared = spec.get('inputs') ?? null;
    if (declared !== null && !isMap(declared)) p.add('header:spec:inputs', 'config should be a hash');
    for (const [name, input] of isMap(declared) ? declared : []) {
      if (input !== null && !isMap(input)) p.add(`header:spec:inputs:${name}`, 'config should be a hash');
      else {
        const entry = input ?? new Map<string, Value>();
        unknownKeys(p, `header:spec:inputs:${name}`, entry.keys(), INPUT_KEYS);
        inputs.set(name, entry);
      }
    }
  }
  if (p.errors.length) throw new InterpolationError(p.errors);
  return inputs;
}

/** The arguments checked against the spec (GitLab's Interpolation::Inputs and its input types): name → value. */
function inputValues(specs: Map<string, ConfigMap>, args: ConfigMap): Map<string, Value> {
  const errors: string[] = [];
  const unknown = [...args.keys()].filter((name) => !specs.has(name));
  if (unknown.length) errors.push(`unknown input arguments: ${unknown.join(', ')}`);
  const values = new Map<string, Value>();
  for (const [name, spec] of specs) {
    const written = spec.get('type');
    const type = (written === undefined || written === null ? 'string' : written) as InputType;
    if (!TYPES.includes(type)) {
      errors.push(`unknown input specification for \`${name}\` (valid types: ${TYPES.join(', ')})`);
      continue;
    }
    const error = (message: string) => errors.push(`\`${name}\` input: ${message}`);
    const given = args.has(name) ? (args.get(name) ?? null) : null;
    const required = !spec.has('default');
    if (required && given === null) {
      error('required value has not been provided');
      continue;
    }
    const options = spec.get('options') ?? null;
    const check = (value: Value, isDefault: boolean) => {
      const which = isDefault ? 'default' : 'provided';
      if (!matchesType(type, value)) error(`${which} value is not ${article(type)} ${type}`);
      if (options !== null) {
        if (type !== 'string' && type !== 'number') error('Options can only be used with string and number inputs');
        else if (value !== null && !(Array.isArray(options) && options.some((option) => option === value))) {
          error(`\`${rubyToS(value)}\` cannot be used because it is not in the list of ${type === 'number' ? 'the ' : ''}allowed options`);
        }
      }
      if (spec.has('regex')) {
        if (type !== 'string') error('RegEx validation can only be used with string inputs');
        else if (isString(value)) {
          const pattern = spec.get('regex');
          const regexp = isString(pattern) ? safeRegexp(pattern, {}) : null;
          if (!regexp) error('invalid regular expression');
          else if (!regexp.test(value)) error(`${which} value does not match required RegEx pattern`);
        }
      }
    };
    if (!required) check(spec.get('default') ?? null, true);
    if (given !== null) check(given, false);
    values.set(name, given ?? spec.get('default') ?? null);
  }
  if (errors.length) throw new InterpolationError(errors);
  return values;
}

/** One `$[[ access | function … ]]` block's value (GitLab's Interpolation::Block, Access and FunctionsStack). */
function blockValue(data: string, inputs: Map<string, Value>, variables: Record<string, string>): Value {
  const [access, ...functions] = data.split('|').map((part) => part.trim());
  const objects = splitLimit(access, '.', MAX_ACCESS_OBJECTS);
  const errors: string[] = [];
  if (objects.length <= 1) errors.push('invalid interpolation access pattern');
  if (Buffer.byteLength(access, 'utf8') > MAX_ACCESS_BYTES) errors.push('maximum interpolation expression size exceeded');
  if (errors.length) throw new InterpolationError(errors);
  let value: Value | Map<string, Value> = new Map<string, Value>([['inputs', inputs as unknown as Value]]);
  for (const key of objects) {
    if (!isMap(value) || !value.has(key)) throw new InterpolationError([`unknown interpolation key: \`${key}\``]);
    value = value.get(key) ?? null;
  }
  if (functions.length > MAX_FUNCTIONS) throw new InterpolationError(['too many functions in interpolation block']);
  for (const expression of functions) value = applyFunction(expression, value as Value, variables);
  return value as Value;
}

/** Ruby's `split(separator, limit)`. */
function splitLimit(text: string, separator: string, limit: number): string[] {
  const parts = text.split(separator);
  return parts.length <= limit ? parts : [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(separator)];
}

const TRUNCATE = /^truncate\(\s*(\d+)\s*,\s*(\d+)\s*\)?$/;

function applyFunction(expression: string, value: Value, variables: Record<string, string>): Value {
  const fail = (name: string, message: string) => new InterpolationError([`error in \`${name}\` function: ${message}`]);
  const truncate = TRUNCATE.exec(expression);
  if (truncate) {
    if (!isString(value)) throw fail('truncate', 'invalid input type: truncate can only be used with string inputs');
    const offset = Number(truncate[1]);
    // Ruby's `string[offset, length]`: nil (then '') past the end.
    return offset > value.length ? '' : [...value].slice(offset, offset + Number(truncate[2])).join('');
  }
  if (expression === 'expand_vars') {
    if (!isString(value)) throw fail('expand_vars', 'invalid input type: expand_vars can only be used with string inputs');
    return expandVariables(value, variables, true);
  }
  if (expression === 'posix_escape') {
    if (!isString(value)) throw fail('posix_escape', 'invalid input type: posix_escape can only be used with string inputs');
    // Ruby's Shellwords.escape.
    return value === '' ? "''" : value.replace(/[^A-Za-z0-9_\-.,:+/@\n]/g, '\\$&').replace(/\n/g, "'\n'");
  }
  throw new InterpolationError([`no function matching \`${expression}\`: check that the function name, arguments, and types are correct`]);
}

/** Replaces the blocks of every key and value (GitLab's Interpolation::Template). */
function interpolateTemplate(content: Value, inputs: Map<string, Value>, variables: Record<string, string>): Value {
  const seen = new Map<string, Value>();
  const node = (value: Value): Value => {
    if (Array.isArray(value)) return value.map(node);
    if (isMap(value)) {
      const out: ConfigMap = new Map();
      for (const [key, item] of value) {
        const replaced = node(key);
        out.set(isString(replaced) ? replaced : rubyToS(replaced), node(item));
      }
      return out;
    }
    if (!isString(value) || !value.includes('$[[')) return value;
    const matches = [...value.matchAll(BLOCK)];
    if (matches.length === 0) return value;
    const values = matches.map(([block, data]) => {
      if (!seen.has(block)) {
        seen.set(block, blockValue(data, inputs, variables));
        if (seen.size > MAX_BLOCKS) throw new InterpolationError(['too many interpolation blocks']);
      }
      return seen.get(block)!;
    });
    // A block that is the whole value keeps its type; blocks inside a text become text.
    if (matches.length === 1 && matches[0][0].length === value.length) return values[0];
    return matches.reduce((text, [block], i) => text.split(block).join(rubyToS(values[i])), value);
  };
  return node(content);
}

/**
 * The file's configuration with its inputs interpolated: `header` is its `spec:` document (null when it has none),
 * `args` the inputs given to it. An error in GitLab's words when the arguments or blocks are wrong.
 */
export function interpolate(content: Value, header: Value | null, args: ConfigMap | null, variables: Record<string, string>): { ok: true; value: Value } | { ok: false; error: string } {
  const given = args ?? new Map<string, Value>();
  if (header === null) return given.size > 0 ? { ok: false, error: 'Given inputs not defined in the `spec` section of the included configuration file' } : { ok: true, value: content };
  try {
    const values = inputValues(readSpec(header as ConfigMap), given);
    return { ok: true, value: interpolateTemplate(content, values, variables) };
  } catch (error) {
    if (error instanceof InterpolationError) return { ok: false, error: error.message };
    throw error;
  }
}
