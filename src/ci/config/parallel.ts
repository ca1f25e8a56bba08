/**
 * `parallel:` jobs: `parallel: 3` runs `rspec 1/3`, `rspec 2/3`, `rspec 3/3`; `parallel: matrix:` runs one job per
 * combination, named `deploy: [aws, us-east]` with each combination's variables. Needs and dependencies naming the
 * parallel job name every instance, as GitLab's Config::Normalizer expands them.
 */
import { Problems, unknownKeys } from './problems.js';
import type { Value } from './types.js';
import { isInteger, isMap, isString, isStringArray, rubyString } from './values.js';

/** GitLab's limit of jobs one `parallel:` makes. */
const MAX_PARALLEL = 200;

export interface ParallelInstance {
  name: string;
  /** The matrix combination's variables (none for `parallel: N`). */
  variables: [string, string][];
}

/** The instances a job's `parallel:` makes (`jobName` itself when it has none), or null with errors. */
export function readParallel(value: Value, jobName: string, location: string, p: Problems): ParallelInstance[] | null {
  if (isInteger(value)) {
    if (value < 1) p.add(location, 'config must be greater than or equal to 1');
    else if (value > MAX_PARALLEL) p.add(location, `config must be less than or equal to ${MAX_PARALLEL}`);
    else return Array.from({ length: value }, (_, i) => ({ name: `${jobName} ${i + 1}/${value}`, variables: [] }));
    return null;
  }
  if (!isMap(value)) {
    p.add(location, 'should be an integer or a hash');
    return null;
  }
  const matrix = value.get('matrix');
  const ok = p.clean(() => {
    unknownKeys(p, location, value.keys(), ['matrix']);
    if (!Array.isArray(matrix) || !matrix.every(isMap) || matrix.length === 0) p.add(`${location}:matrix`, 'config should be an array of hashes');
  });
  if (!ok) return null;
  const combinations: [string, string][][] = [];
  for (const entry of matrix as Map<string, Value>[]) {
    let partial: [string, string][][] = [[]];
    for (const [key, values] of entry) {
      const list = Array.isArray(values) ? values : [values];
      if (!list.every((v) => isString(v) || typeof v === 'number') || (Array.isArray(values) && !isStringArray(values.map(rubyString)))) {
        p.add(`${location}:matrix:variables_matrix`, 'config should be a hash of key value pairs, value can be an array');
        return null;
      }
      partial = partial.flatMap((combo) => list.map((v): [string, string][] => [...combo, [key, rubyString(v)]]));
      if (partial.length + combinations.length > MAX_PARALLEL) {
        p.add(`${location}:matrix`, `config generates too many jobs (maximum is ${MAX_PARALLEL})`);
        return null;
      }
    }
    combinations.push(...partial);
  }
  return combinations.map((variables) => ({ name: `${jobName}: [${variables.map(([, v]) => v).join(', ')}]`, variables }));
}
