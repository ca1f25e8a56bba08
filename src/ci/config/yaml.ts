/**
 * YAML in and out as GitLab's Ruby reads and writes it (Psych's `safe_load` with aliases, and `to_yaml`), bounded as
 * GitLab's Gitlab::Config::Loader::Yaml bounds it: the text of a file (`max_yaml_size_bytes`), then the parsed data's
 * size and depth (Gitlab::Utils::DeepSize: `max_yaml_size_bytes` of Ruby objects, `max_yaml_depth` levels). As in
 * Psych, an alias is the very value its anchor made, not a copy, so parsing is linear in the text; the size is then
 * measured with each shared value counted every time it appears, stopping as soon as the bound is passed, before any
 * later step copies it. An alias bomb, a merge-key bomb or deep anchors cost the walk up to the bound, never their
 * expansion. Scalars are resolved here, by Psych's rules (YAML 1.1: `yes`, `off`, `0x1F`, `010`, `1:30`), not by the
 * parser's schema; the only custom tag is `!reference`, kept as data.
 */
import { Document, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, visit, type Alias, type Node as YamlNode, type Scalar } from 'yaml';
import { Reference, type ConfigMap, type Value } from './types.js';

/** Largest file read from a repository, in bytes (beyond GitLab's limit, so that a larger file gets its error). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** GitLab's `max_yaml_size_bytes` default (2 MB since GitLab 17.3): a file's text, and its parsed data. */
export const MAX_YAML_SIZE_BYTES = 2 * 1024 * 1024;
/** GitLab's `max_yaml_depth` default. */
const MAX_DEPTH = 100;
/** Parsed data all the files of one configuration may hold together (four files at GitLab's limit). */
const MAX_TOTAL_PARSED_BYTES = 4 * MAX_YAML_SIZE_BYTES;

/** How much more parsed data the files of one configuration may hold (shared by the root file and its includes). */
export class ValueBudget {
  constructor(public left = MAX_TOTAL_PARSED_BYTES) {}
}
/** GitLab reads at most two documents: an optional `spec:` header, then the configuration. */
const MAX_DOCUMENTS = 2;

export const TOO_BIG = 'The parsed YAML is too big';
/** GitLab's refusal of a text beyond `max_yaml_size_bytes`, before parsing it. */
export const TEXT_TOO_BIG = 'The provided YAML is too big';

/** A file's configuration document, and its `spec:` header document when it has one (null otherwise). */
type Parsed = { ok: true; value: Value; header: Value | null } | { ok: false; error: string };

class YamlError extends Error {}

/** Psych's integer forms: binary, octal (leading 0), decimal, hexadecimal; `_` and `,` are ignored. */
const INTEGER = /^[-+]?(?:0b[01_,]+|0[0-7_,]+|(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)|0x[0-9a-fA-F_,]+)$/;
const FLOAT = /^[-+]?(?:[0-9][0-9_,]*)?\.[0-9]*(?:[eE][-+][0-9]+)?$/;
const SEXAGESIMAL = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9]){1,2}(?:\.[0-9_]*)?$/;
const DATE = /^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$/;
const TIME = /^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$/;
const WORDISH = /^[^\d.:-]?[\p{L}_\s!@#$%^&*(){}<>|/\\~;=]+/u;

function parseInteger(text: string): number {
  const clean = text.replace(/[_,]/g, '');
  const sign = clean.startsWith('-') ? -1 : 1;
  const digits = clean.replace(/^[-+]/, '');
  if (/^0b/i.test(digits)) return sign * parseInt(digits.slice(2), 2);
  if (/^0x/i.test(digits)) return sign * parseInt(digits.slice(2), 16);
  if (/^0[0-7]+$/.test(digits)) return sign * parseInt(digits.slice(1), 8);
  return sign * Number(digits);
}

function sexagesimal(text: string): number {
  const sign = text.startsWith('-') ? -1 : 1;
  const parts = text.replace(/^[-+]/, '').replace(/_/g, '').split(':');
  return sign * parts.reduce((total, part) => total * 60 + Number(part), 0);
}

/** What Psych makes of a plain (unquoted) scalar. Dates and times are classes `safe_load` refuses. */
function plainScalar(text: string): Value {
  if (text === '' || text === '~' || /^null$/i.test(text)) return null;
  if (WORDISH.test(text) || text.includes('\n')) {
    if (text.length > 5 || /^[^ytonf~]/i.test(text)) return text;
    if (/^(?:yes|true|on)$/i.test(text)) return true;
    if (/^(?:no|false|off)$/i.test(text)) return false;
    return text;
  }
  if (TIME.test(text)) throw new YamlError('Tried to load unspecified class: Time');
  if (DATE.test(text)) throw new YamlError('Tried to load unspecified class: Date');
  if (/^\+?\.inf$/i.test(text)) return Infinity;
  if (/^-\.inf$/i.test(text)) return -Infinity;
  if (/^\.nan$/i.test(text)) return NaN;
  if (SEXAGESIMAL.test(text)) return sexagesimal(text);
  if (FLOAT.test(text)) return /^[-+]?\.$/.test(text) ? text : Number(text.replace(/[_,]/g, '').replace(/\.(?=[eE]|$)/, ''));
  if (INTEGER.test(text)) return parseInteger(text);
  return text;
}

/** A scalar with an explicit core tag (`!!str 1`, `!!int "5"`); any other tag leaves the value as written. */
function taggedScalar(tag: string, text: string): Value {
  switch (tag) {
    case 'tag:yaml.org,2002:str':
      return text;
    case 'tag:yaml.org,2002:int':
    case 'tag:yaml.org,2002:float': {
      const n = plainScalar(text);
      return typeof n === 'number' ? n : text;
    }
    case 'tag:yaml.org,2002:bool': {
      const b = plainScalar(text);
      return typeof b === 'boolean' ? b : text;
    }
    case 'tag:yaml.org,2002:null':
      return null;
    default:
      return plainScalar(text);
  }
}

/** A mapping key as GitLab sees it after `deep_symbolize_keys` and `deep_stringify_keys`: `:name` is `name`. */
function keyText(key: Value): string {
  if (typeof key === 'string') return /^:[^\s]/.test(key) ? key.slice(1).replace(/^(["'])(.*)\1$/, '$2') : key;
  if (key === null) return '';
  if (typeof key === 'number' || typeof key === 'boolean') return String(key);
  return JSON.stringify(key instanceof Map ? Object.fromEntries(key) : key);
}

/** Each alias's anchored node: the last node with that anchor before it, in document order (YAML's and Psych's rule). */
function anchorTargets(doc: Document.Parsed): Map<Alias, unknown> {
  const anchors = new Map<string, unknown>();
  const targets = new Map<Alias, unknown>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        if (anchors.has(node.source)) targets.set(node, anchors.get(node.source));
      } else if (node.anchor) {
        anchors.set(node.anchor, node);
      }
    },
  });
  return targets;
}

/**
 * Turns one document's nodes into values, once each: an alias gives the value its anchor made (Psych's shared
 * object), so the work is linear in the text whatever the aliases would expand to; `<<` merges as Psych merges.
 */
class Converter {
  private readonly targets: Map<Alias, unknown>;
  /** The value of each anchored node, known before its children are read (a recursive alias finds it, as in Psych). */
  private readonly made = new Map<unknown, Value>();

  constructor(doc: Document.Parsed) {
    this.targets = anchorTargets(doc);
  }

  /** `depth` counts the text's own nesting, which can only be below the data's (measured later). */
  convert(node: unknown, depth: number): Value {
    if (depth > MAX_DEPTH) throw new YamlError(TOO_BIG);
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = this.targets.get(node);
      if (target === undefined) throw new YamlError(`An alias referenced an unknown anchor: ${node.source}`);
      return this.made.has(target) ? (this.made.get(target) as Value) : this.convert(target, depth);
    }
    if (isScalar(node)) return this.remember(node, this.scalar(node));
    if (isSeq(node)) {
      const items: Value[] = [];
      const value = this.remember(node, node.tag === '!reference' ? new Reference(items) : items);
      for (const item of node.items) items.push(this.convert(item, depth + 1));
      return value;
    }
    if (isMap(node)) return this.mapping(node, depth);
    throw new YamlError('Invalid configuration format');
  }

  private remember<V extends Value>(node: YamlNode, value: V): V {
    if (node.anchor) this.made.set(node, value);
    return value;
  }

  private scalar(node: Scalar): Value {
    const text = String(node.value ?? '');
    if (node.tag === '!reference') return new Reference(text);
    if (node.tag) return taggedScalar(node.tag, text);
    return node.type === 'PLAIN' ? plainScalar(text) : text;
  }

  private mapping(node: YamlNode & { items: readonly unknown[] }, depth: number): ConfigMap {
    const map = this.remember(node, new Map() as ConfigMap);
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      if (isScalar(keyNode) && keyNode.type === 'PLAIN' && !keyNode.tag && keyNode.value === '<<') {
        this.merge(map, this.convert(pair.value, depth + 1));
        continue;
      }
      map.set(keyText(this.convert(keyNode, depth + 1)), this.convert(pair.value, depth + 1));
    }
    return map;
  }

  /** Psych's `<<`: a mapping's keys are written over the ones so far; of a list of mappings, the first wins. */
  private merge(map: ConfigMap, value: Value): void {
    if (value instanceof Map) {
      for (const [k, v] of value) map.set(k, v);
    } else if (Array.isArray(value) && value.every((v) => v instanceof Map)) {
      const merged: ConfigMap = new Map();
      for (const source of [...value].reverse()) for (const [k, v] of source as ConfigMap) merged.set(k, v);
      for (const [k, v] of merged) map.set(k, v);
    } else {
      map.set('<<', value);
    }
  }
}

/**
 * What Ruby's `ObjectSpace.memsize_of` reports for a value Psych made, on 64-bit Ruby, near enough: 40 bytes an
 * object (immediates such as small integers, true, false and nil take none), plus a string's bytes beyond what fits
 * in the object, an array's item slots beyond three, and a hash's table.
 */
function memsize(value: Value): number {
  if (typeof value === 'string') {
    const bytes = value.length > 7 ? Buffer.byteLength(value, 'utf8') : value.length;
    return bytes > 23 ? 41 + bytes : 40;
  }
  if (Array.isArray(value)) return 40 + (value.length > 3 ? 8 * value.length : 0);
  if (value instanceof Map) return 40 + (value.size === 0 ? 0 : value.size <= 8 ? 160 : 56 + 32 * value.size);
  if (value instanceof Reference) return 40;
  return 0;
}

/**
 * GitLab's Gitlab::Utils::DeepSize: every value reached, shared ones each time they appear, summed until `max` bytes
 * is passed or nesting passes `max_yaml_depth` (a recursive alias does, at once). Stops there, so measuring a bomb
 * costs at most the bound; returns the size.
 */
function deepSize(root: Value, max: number): number {
  let size = 0;
  const add = (value: Value, depth: number): void => {
    size += memsize(value);
    if (size > max) throw new YamlError(TOO_BIG);
    const items = Array.isArray(value) ? value : value instanceof Reference && Array.isArray(value.path) ? value.path : null;
    if (!items && !(value instanceof Map)) return;
    if (depth + 1 > MAX_DEPTH) throw new YamlError(TOO_BIG);
    if (items) for (const item of items) add(item, depth + 1);
    else
      for (const [key, item] of value as ConfigMap) {
        add(key, depth + 1);
        add(item, depth + 1);
      }
  };
  add(root, 0);
  return size;
}

/** Psych's words for a syntax error: `(<unknown>): <problem> at line L column C`. */
function syntaxError(message: string, pos: { line: number; col: number } | undefined): string {
  const problem = message.replace(/\s+at line \d+, column \d+[\s\S]*$/, '').trim();
  return `(<unknown>): ${problem}${pos ? ` at line ${pos.line} column ${pos.col}` : ''}`;
}

/**
 * Parses one file: its configuration document (the second when the first is a `spec:` header), or `{}` when it
 * has none. Never throws: oversized, too deep, binary or malformed input is an error in Psych's or GitLab's words.
 */
export function parseYaml(content: string, budget = new ValueBudget()): Parsed {
  if (Buffer.byteLength(content, 'utf8') > MAX_YAML_SIZE_BYTES) return { ok: false, error: TEXT_TOO_BIG };
  try {
    const lineCounter = new LineCounter();
    const docs = parseAllDocuments(content, { schema: 'failsafe', merge: false, uniqueKeys: false, version: '1.1', lineCounter, prettyErrors: false });
    const all = Array.isArray(docs) ? docs : [];
    for (const doc of all) {
      const error = doc.errors[0];
      // The parser reports its own stack overflow on absurd nesting as a syntax error: it is a size refusal.
      if (error?.message.includes('Maximum call stack size exceeded')) return { ok: false, error: TOO_BIG };
      if (error) return { ok: false, error: syntaxError(error.message, lineCounter.linePos(error.pos[0])) };
    }
    const present = all.filter((doc) => doc.contents !== null).slice(0, MAX_DOCUMENTS);
    const values = present.map((doc) => new Converter(doc).convert(doc.contents, 0));
    // GitLab's bound is per file; ours also holds all the files of one configuration together.
    const allowed = Math.min(MAX_YAML_SIZE_BYTES, budget.left);
    let used = 0;
    for (const value of values) used += deepSize(value, allowed - used);
    budget.left -= used;
    const header = values.length > 1 && values[0] instanceof Map && values[0].has('spec');
    return { ok: true, value: header ? values[1] : (values[0] ?? new Map()), header: header ? values[0] : null };
  } catch (error) {
    if (error instanceof YamlError) return { ok: false, error: error.message };
    // The parser itself can overflow the stack on absurd nesting; that is a refusal, not a crash.
    if (error instanceof RangeError) return { ok: false, error: TOO_BIG };
    throw error;
  }
}

/** Ruby's `to_yaml` of a configuration: a `---` start, block style, sequences not indented under their key. */
export function emitYaml(value: Value): string {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  // YAML 1.1 quoting, so that strings such as `yes`, `on` or `010` stay strings when Ruby reads the text again.
  doc.setSchema('1.1');
  return `---\n${doc.toString({ indentSeq: false, lineWidth: 0, singleQuote: true, nullStr: '' })}`;
}
