/**
 * A job's variables as the runner protocol sends them (GitLab's Gitlab::Ci::Variables::Collection and its items):
 * `{ key, value, public, masked }`, with `file` and `raw` present only when true, as GitLab's
 * `to_runner_variable` drops them otherwise. Values are expanded before they are sent, as GitLab's
 * `sort_and_expand_all(keep_undefined: true, expand_file_refs: false, expand_raw_refs: false)` does. Pure.
 */
import { REFERENCE } from './config/variables.js';

export interface RunnerVariable {
  key: string;
  value: string;
  public: boolean;
  masked: boolean;
  file?: true;
  raw?: true;
}

/**
 * A CI/CD variable of the instance, a group or the project as one job gets it: the seam through which the CI/CD
 * variables module hands them over (`ci_variables.forJob(project, { protectedRef, environment })`).
 */
export interface JobCiVariable {
  key: string;
  value: string;
  masked: boolean;
  file: boolean;
  raw: boolean;
  protected: boolean;
}

export function runnerVariable(key: string, value: string, options: { public?: boolean; masked?: boolean; file?: boolean; raw?: boolean } = {}): RunnerVariable {
  return {
    key,
    value,
    public: options.public ?? true,
    masked: options.masked ?? false,
    ...(options.file ? { file: true as const } : {}),
    ...(options.raw ? { raw: true as const } : {}),
  };
}

/** CI/CD variables of the instance, groups and project: never public, as GitLab sends them. */
export function fromCiVariables(list: readonly JobCiVariable[]): RunnerVariable[] {
  return list.map((v) => runnerVariable(v.key, v.value, { public: false, masked: v.masked, file: v.file, raw: v.raw }));
}


class Cycle extends Error {}

/**
 * Every value with its references replaced by the referenced variable's (expanded) value; the last definition of
 * a key is the one referenced, except that a value naming its own key means the definition before it. References
 * to undefined variables stay as written, and so do references to file and raw variables; raw values are not
 * expanded. A cycle of references leaves every value as written, as GitLab does when it cannot sort them.
 */
export function expandVariables(list: readonly RunnerVariable[]): RunnerVariable[] {
  const last = new Map<string, number>();
  list.forEach((v, i) => last.set(v.key, i));
  const expanded = new Map<number, string>();
  const resolving = new Set<number>();

  const expand = (index: number): string => {
    const done = expanded.get(index);
    if (done !== undefined) return done;
    const item = list[index];
    if (item.raw) return item.value;
    if (resolving.has(index)) throw new Cycle();
    resolving.add(index);
    const value = item.value.replace(REFERENCE, (match: string, a?: string, b?: string, c?: string) => {
      const name = a ?? b ?? c;
      if (name === undefined) return match;
      let target = last.get(name);
      if (name === item.key) target = previousDefinition(list, index);
      if (target === undefined) return match;
      const referenced = list[target];
      if (referenced.file || referenced.raw) return match;
      return expand(target);
    });
    resolving.delete(index);
    expanded.set(index, value);
    return value;
  };

  try {
    return list.map((v, i) => ({ ...v, value: expand(i) }));
  } catch (error) {
    if (error instanceof Cycle) return list.map((v) => ({ ...v }));
    throw error;
  }
}

function previousDefinition(list: readonly RunnerVariable[], index: number): number | undefined {
  for (let i = index - 1; i >= 0; i--) if (list[i].key === list[index].key) return i;
  return undefined;
}
