/**
 * `include:` (GitLab's Config::External::Processor and Mapper): each entry normalised (a string is a local path,
 * or a remote URL), filtered by its `rules:`, local wildcards expanded, variables expanded, then read, parsed and
 * expanded in turn (nested includes), and deep-merged in order under the including file. Files of the pipeline's
 * repository (`local:`) can be read, and in a child pipeline files of its parent's job artifacts (`artifact:`);
 * the other kinds are refused by name. At most 150 files, 8 MiB in all.
 */
import { clausesMatch, type RepositoryProbe } from './conditions.js';
import { readRules } from './conditions-entries.js';
import { fnmatch } from './glob.js';
import { Problems } from './problems.js';
import type { CiContext, ConfigMap, PlannedInclude, Value } from './types.js';
import { deepMerge, isBlank, isMap, isString, toPlain } from './values.js';
import { expandVariables } from './variables.js';
import { parseYaml, type ValueBudget } from './yaml.js';

export class IncludeError extends Error {}

/** GitLab's `ci_max_includes` default. */
const MAX_INCLUDES = 150;
/** Our bound on all included files together (GitLab's `ci_max_total_yaml_size_bytes`). */
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;

const ACCESSORS = ['local', 'project', 'remote', 'template', 'artifact', 'component'] as const;
type Accessor = (typeof ACCESSORS)[number];
const UNSUPPORTED: Readonly<Record<Exclude<Accessor, 'local'>, string>> = {
  project: 'Project',
  remote: 'Remote',
  template: 'Template',
  artifact: 'Artifact',
  component: 'Component',
};

const YAML_EXTENSION = /.+\.(yml|yaml)$/i;

/** Whether a string is a URL GitLab would fetch (`include: 'https://…'` means `remote:`). */
function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Ruby's `to_json` of an include entry, as GitLab quotes it in its errors. */
const asJson = (value: Value) => JSON.stringify(toPlain(value));

export class IncludeExpander {
  /** Every file included so far, nested ones too (GitLab's `expandset`), as the lint API lists them. */
  readonly includes: PlannedInclude[] = [];
  private bytes = 0;

  constructor(
    private readonly ctx: CiContext,
    private readonly probe: RepositoryProbe,
    private readonly budget: ValueBudget,
  ) {}

  private metadata(location: string, job?: string): PlannedInclude {
    const v = this.ctx.variables;
    const url = v.CI_PROJECT_URL;
    const sha = v.CI_COMMIT_SHA;
    const local = job === undefined;
    return {
      type: local ? 'local' : 'artifact',
      location,
      blob: local && url && sha ? `${url}/-/blob/${sha}/${location}` : null,
      raw: local && url && sha ? `${url}/-/raw/${sha}/${location}` : null,
      extra: local ? {} : { job_name: job },
      context_project: v.CI_PROJECT_PATH ?? null,
      context_sha: sha ?? null,
    };
  }

  /** The file's configuration with its `include:` replaced by what it includes. */
  async expand(values: ConfigMap): Promise<ConfigMap> {
    const raw = values.get('include');
    const entries = (raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw]).filter((e) => e !== null);
    if (entries.length === 0) return values;
    const locations: ConfigMap[] = [];
    for (const entry of entries) {
      const location = this.normalize(entry);
      if (await this.passesRules(location)) locations.push(...(await this.expandWildcards(location)));
    }
    let merged: ConfigMap = new Map();
    for (const location of locations) merged = deepMerge(merged, await this.load(location));
    merged = deepMerge(merged, values);
    merged.delete('include');
    return merged;
  }

  private normalize(entry: Value): ConfigMap {
    if (isString(entry)) {
      const location = expandVariables(entry, this.ctx.variables, true);
      return new Map([[isUrl(location) ? 'remote' : 'local', location]]);
    }
    if (isMap(entry)) return entry;
    throw new IncludeError('Each include must be a hash or a string');
  }

  /** The included file's text: from the repository, or from a parent job's artifacts (GitLab's error wordings). */
  private async read(path: string, job: string | undefined): Promise<string> {
    if (job === undefined) {
      const content = await this.ctx.readLocal(path);
      if (content === null) throw new IncludeError(`Local file \`${path}\` does not exist!`);
      if (content.trim() === '') throw new IncludeError(`Local file \`${path}\` is empty!`);
      return content;
    }
    if (!job) throw new IncludeError('Job must be provided when including configs from artifacts');
    const found = await this.ctx.readArtifact!(job, path);
    if (!found.job) throw new IncludeError(`Job \`${job}\` not found in parent pipeline or does not have artifacts!`);
    if (found.content === null) throw new IncludeError(`Path \`${path}\` does not exist inside the \`${job}\` artifacts archive!`);
    if (found.content.trim() === '') throw new IncludeError(`File \`${path}\` is empty!`);
    return found.content;
  }

  private async passesRules(location: ConfigMap): Promise<boolean> {
    if (!location.has('rules')) return true;
    const p = new Problems();
    const rules = readRules(location.get('rules') ?? null, 'include', 'include', p);
    if (!rules) throw new IncludeError(p.errors[0]);
    for (const rule of rules) {
      if (await clausesMatch(rule, this.ctx.variables, this.ctx, this.probe)) return rule.when !== 'never';
    }
    return false;
  }

  private async expandWildcards(location: ConfigMap): Promise<ConfigMap[]> {
    const local = location.get('local');
    if (!isString(local) || !local.includes('*')) return [location];
    const pattern = expandVariables(local, this.ctx.variables, true).replace(/^\/+/, '');
    const files = (await this.probe.files()).filter((file) => fnmatch(pattern, file)).sort();
    return files.map((file) => new Map([['local', file]]));
  }

  private accessor(location: ConfigMap): Accessor {
    const present = ACCESSORS.filter((key) => !isBlank(location.get(key)) && (key !== 'artifact' || !isBlank(location.get('job'))));
    if (present.length === 1) return present[0];
    const subkeys = `\`${ACCESSORS.join('`, `')}\``;
    if (present.length === 0) throw new IncludeError(`\`${asJson(location)}\` does not have a valid subkey for include. Valid subkeys are: ${subkeys}`);
    throw new IncludeError(`Each include must use only one of: ${subkeys}`);
  }

  private async load(location: ConfigMap): Promise<ConfigMap> {
    const accessor = this.accessor(location);
    const target = location.get(accessor) ?? null;
    if (accessor === 'artifact' && !this.ctx.readArtifact) throw new IncludeError('Including configs from artifacts is only allowed when triggering child pipelines');
    if (accessor !== 'local' && accessor !== 'artifact') {
      const name = isString(target) ? expandVariables(target, this.ctx.variables, true) : asJson(target);
      throw new IncludeError(`${UNSUPPORTED[accessor]} include \`${name}\` is not supported: only local files of the project's repository and artifacts of a parent pipeline's jobs can be included`);
    }
    if (this.includes.length >= MAX_INCLUDES) throw new IncludeError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
    const job = accessor === 'artifact' ? location.get('job') : undefined;
    const jobName = job === undefined ? undefined : expandVariables(isString(job) ? job : asJson(job ?? null), this.ctx.variables, true);
    if (!isString(target)) {
      this.includes.push(this.metadata(asJson(target), jobName));
      throw new IncludeError(`Included file \`${asJson(target)}\` needs to be a string`);
    }
    const path = expandVariables(target, this.ctx.variables, true).replace(/^\/+/, '');
    this.includes.push(this.metadata(path, jobName));
    if (!YAML_EXTENSION.test(path.split('/').pop() ?? '')) throw new IncludeError(`Included file \`${path}\` does not have YAML extension!`);
    if (location.has('inputs') || location.has('with')) throw new IncludeError(`Included file \`${path}\` has inputs, which are not supported`);
    const content = await this.read(path, jobName);
    this.bytes += Buffer.byteLength(content, 'utf8');
    if (this.bytes > MAX_TOTAL_BYTES) throw new IncludeError('Total size of combined CI/CD configuration is too big');
    const parsed = parseYaml(content, this.budget);
    if (!parsed.ok) throw new IncludeError(`\`${path}\`: ${parsed.error}`);
    if (!isMap(parsed.value)) throw new IncludeError(`\`${path}\`: Invalid configuration format`);
    if (parsed.value.size === 0) throw new IncludeError(`Included file \`${path}\` does not have valid YAML syntax!`);
    return this.expand(parsed.value);
  }
}
