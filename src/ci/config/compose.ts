/**
 * The steps that turn the included configuration into GitLab's merged configuration: `extends:` (GitLab's
 * Config::Extendable: bases deep-merged in order, then the entry itself over them, at most 10 levels, cycles
 * refused), `!reference` tags (Config::Yaml::Tags::Resolver), and `.pre`/`.post` around declared stages
 * (EdgeStagesInjector). Each step fails with GitLab's message for the first problem it meets.
 */
import { Reference, type ConfigMap, type Value } from './types.js';
import { deepMerge, isMap, isString, isStringArray, rubyInspect } from './values.js';

export class ComposeError extends Error {}

/** GitLab's Extendable::Entry::MAX_NESTING_LEVELS. */
const MAX_NESTING = 10;

function extendsKeys(value: Value): string[] | null {
  if (!isMap(value) || !value.has('extends')) return null;
  const keys = value.get('extends');
  return isString(keys) ? [keys] : isStringArray(keys) ? keys : null;
}

/** Applies every `extends:` of the configuration. */
export function applyExtends(config: ConfigMap): ConfigMap {
  const hash: ConfigMap = new Map(config);
  const done = new Set<string>();
  /** Extensible entries along the longest chain starting at a finished key (itself included). */
  const height = new Map<string, number>();
  const path: string[] = [];

  const extend = (key: string): Value => {
    const value = hash.get(key) ?? null;
    const bases = extendsKeys(value);
    if (!bases) return value;
    const depth = path.length;
    const unknown = bases.filter((base) => !hash.has(base));
    if (unknown.length) throw new ComposeError(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`);
    const invalid = bases.filter((base) => !isMap(hash.get(base)));
    if (invalid.length) throw new ComposeError(`${key}: invalid base hashes in \`extends\` (${invalid.join(', ')})`);
    if (depth > MAX_NESTING) throw new ComposeError(`${key}: nesting too deep in \`extends\``);
    if (path.includes(key)) throw new ComposeError(`${key}: circular dependency detected in \`extends\``);
    if (done.has(key)) {
      if (depth + height.get(key)! - 1 > MAX_NESTING) throw new ComposeError(`${tooDeepBelow(key, depth)}: nesting too deep in \`extends\``);
      return value;
    }
    path.push(key);
    let merged: ConfigMap = new Map();
    let tallest = 0;
    for (const base of bases) {
      merged = deepMerge(merged, extend(base) as ConfigMap);
      tallest = Math.max(tallest, height.get(base) ?? 0);
    }
    path.pop();
    const result = deepMerge(merged, value as ConfigMap);
    hash.set(key, result);
    done.add(key);
    height.set(key, tallest + 1);
    return result;
  };

  /** The first entry, depth first, that a chain from `key` reaches beyond the nesting limit. */
  const tooDeepBelow = (key: string, depth: number): string => {
    let current = key;
    for (let d = depth; d < MAX_NESTING + 1; d++) {
      const next = (extendsKeys(hash.get(current) ?? null) ?? []).find((base) => d + 1 + (height.get(base) ?? 0) - 1 > MAX_NESTING);
      if (!next) break;
      current = next;
    }
    return current;
  };

  for (const key of [...hash.keys()]) extend(key);
  return hash;
}

/** Resolves every `!reference [key, …]` against the configuration after `extends`. */
export function resolveReferences(config: ConfigMap): ConfigMap {
  const state = new Map<Reference, 'resolving' | Value>();

  const deep = (value: Value): Value => {
    if (value instanceof Reference) return resolve(value);
    if (Array.isArray(value)) return value.map(deep);
    if (isMap(value)) {
      const out: ConfigMap = new Map();
      for (const [k, v] of value) out.set(k, deep(v));
      return out;
    }
    return value;
  };

  const resolve = (tag: Reference): Value => {
    const data = tag.path;
    if (!isStringArray(data) || data.length === 0) throw new ComposeError(`!reference ${rubyInspect(data)} is not valid`);
    const known = state.get(tag);
    if (known === 'resolving') throw new ComposeError(`!reference ${rubyInspect(data)} is part of a circular chain`);
    if (known !== undefined) return known;
    state.set(tag, 'resolving');
    let target: Value | undefined = config;
    for (const key of data) target = isMap(target) ? target.get(key) : undefined;
    const value = target === undefined ? null : deep(target);
    if (value === null || value === false) throw new ComposeError(`!reference ${rubyInspect(data)} could not be found`);
    state.set(tag, value);
    return value;
  };

  return deep(config) as ConfigMap;
}

/** `.pre` first and `.post` last in a declared `stages:` list (GitLab's EdgeStagesInjector). */
export function injectEdgeStages(config: ConfigMap): ConfigMap {
  const stages = config.get('stages');
  if (!Array.isArray(stages) || stages.length === 0) return config;
  const out: ConfigMap = new Map(config);
  out.set('stages', ['.pre', ...stages.filter((s) => s !== '.pre' && s !== '.post'), '.post']);
  return out;
}
