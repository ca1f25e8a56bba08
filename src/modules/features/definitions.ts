/**
 * Feature flag definitions, one YAML file per flag as GitLab keeps `config/feature_flags/<type>/*.yml`
 * (GitLab's Feature::Definition). The experiments are the files of `experiments/` next to this module's source,
 * read once when the server starts: a file that does not parse, or whose name or type disagrees with it, stops the
 * start, as GitLab's definitions check does in development.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../paths.js';

/** A flag's definition, with GitLab's keys. */
export interface FeatureDefinition {
  name: string;
  introducedByUrl: string | null;
  rolloutIssueUrl: string | null;
  milestone: string | null;
  type: string;
  group: string | null;
  defaultEnabled: boolean;
}

/** Where the experiment definitions live (the source tree, which `npm start` runs from as well). */
export const EXPERIMENTS_DIR = join(ROOT, 'src', 'modules', 'features', 'experiments');

const text = (value: unknown): string | null => (value === undefined || value === null ? null : String(value));

/** One definition file, checked as GitLab's Feature::Definition#validate! checks it. */
export function readDefinition(file: string, type: string): FeatureDefinition {
  const data: unknown = parse(readFileSync(file, 'utf8'));
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error(`Feature flag definition ${file} is not a mapping`);
  const yaml = data as Record<string, unknown>;
  const name = basename(file, '.yml');
  if (yaml.name !== name) throw new Error(`Feature flag '${String(yaml.name)}' has an invalid path: '${file}'. Ensure that name and path match.`);
  if (yaml.type !== type) throw new Error(`Feature flag '${name}' has an invalid type '${String(yaml.type)}': it must be '${type}'`);
  if (typeof yaml.default_enabled !== 'boolean') throw new Error(`Feature flag '${name}' has an invalid default_enabled: it must be true or false`);
  return {
    name,
    introducedByUrl: text(yaml.introduced_by_url),
    rolloutIssueUrl: text(yaml.rollout_issue_url),
    milestone: text(yaml.milestone),
    type,
    group: text(yaml.group),
    defaultEnabled: yaml.default_enabled,
  };
}

function readDefinitions(dir: string, type: string): FeatureDefinition[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yml'))
    .sort()
    .map((file) => readDefinition(join(dir, file), type));
}

/** Every definition by name, in file-name order (GitLab's `Feature::Definition.definitions`). */
export const DEFINITIONS: ReadonlyMap<string, FeatureDefinition> = new Map(readDefinitions(EXPERIMENTS_DIR, 'experiment').map((d) => [d.name, d]));
