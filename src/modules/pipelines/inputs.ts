/**
 * A pipeline's inputs from outside its file (GitLab 17.x `inputs`): the API's hash of name → value, GraphQL's and
 * schedules' lists of `{name, value}`, `git push -o ci.input=name=value`. They are checked against the `spec: inputs`
 * of the pipeline's file when it is planned (src/ci/config/inputs.ts), with GitLab's errors.
 */
import { argumentRefused } from '../../errors.js';
import type { PushOptions } from '../../git/push-options.js';

export type PipelineInputs = Record<string, unknown>;

/**
 * A value given as text (a push option, a form parameter) as GitLab's Inputs.parse_params reads it: JSON arrays,
 * numbers and booleans are taken as such (`array=["a","b"]`, `number=1`, `flag=true`), anything else as the text.
 */
export function parseInputValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!/^(\[|-?\d|true$|false$)/.test(text)) return value;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) || typeof parsed === 'number' || typeof parsed === 'boolean' ? parsed : value;
  } catch {
    return value;
  }
}

/** The `ci.input=name=value` push options (split at the first `=`, a later one of a name winning); null when none. */
export function pushOptionInputs(options: PushOptions | null | undefined): PipelineInputs | null {
  const definitions = options?.ci?.input;
  if (!Array.isArray(definitions) || definitions.length === 0) return null;
  const out: PipelineInputs = {};
  for (const definition of definitions) {
    const at = definition.indexOf('=');
    const name = at < 0 ? definition : definition.slice(0, at);
    out[name] = at < 0 ? null : parseInputValue(definition.slice(at + 1));
  }
  return out;
}

/** GraphQL's `[CiInputsInput!]` (and REST's hash, which the adapter hands over as that list) as name → value. */
export function inputsFromList(list: readonly { name: string; value: unknown }[] | null | undefined): PipelineInputs | null {
  if (!list) return null;
  const out: PipelineInputs = {};
  for (const { name, value } of list) out[name] = parseInputValue(value);
  return out;
}

/** A hash parameter (`inputs` of the trigger API): anything but a hash is Grape's `inputs is invalid`. */
export function inputsFromHash(value: unknown): PipelineInputs | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw argumentRefused('inputs', 'is invalid');
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, v]) => [name, parseInputValue(v)]));
}
