/**
 * `include:` (GitLab's Config::External::Processor and Mapper): each entry normalised (a string is a local path,
 * or a remote URL), filtered by its `rules:`, local wildcards expanded, variables expanded, then read, parsed and
 * expanded in turn (nested includes), and deep-merged in order under the including file. Files of the pipeline's
 * repository (`local:`), files of another project the pipeline's user may download (`project:`, whose own nested
 * `local:` includes are files of that project, as GitLab's context switches), and in a child pipeline files of its
 * parent's job artifacts (`artifact:`) can be read, and CI/CD components of this instance's projects (`component:
 * <host>/<project>/<name>@<version>`, GitLab's Components::InstancePath: `templates/<name>.yml` or
 * `templates/<name>/template.yml` at a tag, branch or commit); `remote:` and `template:` are refused by name. Each
 * file's `spec: inputs` take the include's `inputs:` (src/ci/config/inputs.ts).
 * At most 150 files, 8 MiB in all.
 */
import { clausesMatch, RuleParseError, type RepositoryProbe } from './conditions.js';
import { readRules } from './conditions-entries.js';
import { wildcardPathMatcher } from './glob.js';
import { Problems } from './problems.js';
import type { CiContext, ConfigMap, IncludedProject, PlannedInclude, Value } from './types.js';
import { deepMerge, isBlank, isMap, isString, toPlain } from './values.js';
import { expandVariables } from './variables.js';
import { interpolate } from './inputs.js';
import { parseYaml, type ValueBudget } from './yaml.js';

export class IncludeError extends Error {}

/** GitLab's `ci_max_includes` default. */
const MAX_INCLUDES = 150;
/** Our bound on all included files together (GitLab's `ci_max_total_yaml_size_bytes`). */
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;

const ACCESSORS = ['local', 'project', 'remote', 'template', 'artifact', 'component'] as const;
type Accessor = (typeof ACCESSORS)[number];
const UNSUPPORTED: Readonly<Record<Exclude<Accessor, 'local' | 'artifact'>, string>> = {
  project: 'Project',
  remote: 'Remote',
  template: 'Template',
  component: 'Component',
};

/** GitLab's Components::InstancePath::SHORTHAND_SEMVER_PATTERN and `~latest`: versions of catalog resources only. */
const SHORTHAND_SEMVER = /^\d+(\.\d+)?$/;
const LATEST = '~latest';

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

/**
 * Where an included file's own `local:` includes are read from (GitLab's External::Context): the pipeline's
 * repository at its commit, or the project a `project:` include read the file from, at that include's commit.
 */
interface Source {
  fullPath: string | null;
  url: string | null;
  sha: string | null;
  read(path: string): Promise<string | null>;
  files(): Promise<readonly string[]>;
}

/** Ruby's `to_json` of an include entry, as GitLab quotes it in its errors. */
const asJson = (value: Value) => JSON.stringify(toPlain(value));

export class IncludeExpander {
  /** Every file included so far, nested ones too (GitLab's `expandset`), as the lint API lists them. */
  readonly includes: PlannedInclude[] = [];
  private bytes = 0;

  /** The pipeline's own repository, where the configuration file and its `local:` includes are. */
  private readonly home: Source;

  constructor(
    private readonly ctx: CiContext,
    private readonly probe: RepositoryProbe,
    private readonly budget: ValueBudget,
  ) {
    const v = ctx.variables;
    this.home = {
      fullPath: v.CI_PROJECT_PATH ?? null,
      url: v.CI_PROJECT_URL ?? null,
      sha: v.CI_COMMIT_SHA ?? null,
      read: (path) => ctx.readLocal(path),
      files: () => probe.files(),
    };
  }

  /** GitLab's `metadata` of an included file: where it is, and the project and commit it was included from. */
  private metadata(source: Source, location: string, kind: { job: string } | { project: string; ref: string; from: Source } | null): PlannedInclude {
    const context = { context_project: source.fullPath, context_sha: source.sha };
    if (kind && 'job' in kind) return { type: 'artifact', location, blob: null, raw: null, extra: { job_name: kind.job }, ...context };
    const at = kind ? kind.from : source;
    const links = at.url && at.sha ? { blob: `${at.url}/-/blob/${at.sha}/${location}`, raw: `${at.url}/-/raw/${at.sha}/${location}` } : { blob: null, raw: null };
    return { type: kind ? 'file' : 'local', location, ...links, extra: kind ? { project: kind.project, ref: kind.ref } : {}, ...context };
  }

  /**
   * The file's configuration with its `include:` replaced by what it includes; `parent` is the file's own path when
   * it is a local include of `source` (a wildcard does not include it again: GitLab's LocationExpander).
   */
  async expand(values: ConfigMap, source: Source = this.home, parent: string | null = null): Promise<ConfigMap> {
    const raw = values.get('include');
    const entries = (raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw]).filter((e) => e !== null);
    if (entries.length === 0) return values;
    const locations: ConfigMap[] = [];
    for (const entry of entries) {
      const location = this.normalize(entry);
      if (await this.passesRules(location)) locations.push(...(await this.expandWildcards(location, source, parent)));
    }
    let merged: ConfigMap = new Map();
    for (const location of locations) merged = deepMerge(merged, await this.load(location, source));
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

  /** A local file of the source's repository (GitLab's error wordings). */
  private async readLocal(source: Source, path: string): Promise<string> {
    const content = await source.read(path);
    if (content === null) throw new IncludeError(`Local file \`${path}\` does not exist!`);
    if (content.trim() === '') throw new IncludeError(`Local file \`${path}\` is empty!`);
    return content;
  }

  /** A file of a parent job's artifacts (GitLab's error wordings). */
  private async readArtifact(job: string, path: string): Promise<string> {
    if (!job) throw new IncludeError('Job must be provided when including configs from artifacts');
    const found = await this.ctx.readArtifact!(job, path);
    if (!found.job) throw new IncludeError(`Job \`${job}\` not found in parent pipeline or does not have artifacts!`);
    if (found.content === null) throw new IncludeError(`Path \`${path}\` does not exist inside the \`${job}\` artifacts archive!`);
    if (found.content.trim() === '') throw new IncludeError(`File \`${path}\` is empty!`);
    return found.content;
  }

  /** Another project's file at a ref (GitLab's External::File::Project, with its error wordings). */
  private async readProject(name: string, ref: string | null, path: string): Promise<{ content: string; project: IncludedProject }> {
    const project = await this.ctx.readProject!(name, ref);
    if (!project) throw new IncludeError(`Project \`${name}\` not found or access denied! Make sure any includes in the pipeline configuration are correctly defined.`);
    if (project.sha === null) throw new IncludeError(`Project \`${name}\` reference \`${ref ?? 'HEAD'}\` does not exist!`);
    const content = await project.read(path);
    if (content === null) throw new IncludeError(`Project \`${name}\` file \`${path}\` does not exist!`);
    if (content.trim() === '') throw new IncludeError(`Project \`${name}\` file \`${path}\` is empty!`);
    return { content, project };
  }

  private async passesRules(location: ConfigMap): Promise<boolean> {
    if (!location.has('rules')) return true;
    const p = new Problems();
    const rules = readRules(location.get('rules') ?? null, 'include', 'include', p);
    if (!rules) throw new IncludeError(p.errors[0]);
    for (const rule of rules) {
      const matches = await clausesMatch(rule, this.ctx.variables, this.ctx, this.probe).catch((error: unknown) => {
        if (error instanceof RuleParseError) throw new IncludeError(error.message);
        throw error;
      });
      if (matches) return rule.when !== 'never';
    }
    return false;
  }

  /** Local wildcards become one location per matching file of the source; a project's `file:` list one per file. */
  private async expandWildcards(location: ConfigMap, source: Source, parent: string | null): Promise<ConfigMap[]> {
    const files = location.get('file');
    if (!isBlank(location.get('project')) && Array.isArray(files)) return files.map((file) => new Map([...location, ['file', file]]));
    const local = location.get('local');
    if (!isString(local) || !local.includes('*')) return [location];
    const pattern = expandVariables(local, this.ctx.variables, true).replace(/^\/+/, '');
    const matches = wildcardPathMatcher(pattern);
    const matching = (await source.files()).filter((file) => matches(file) && file !== parent).sort();
    // Each match keeps the entry's other keys (its `inputs:` among them), as `location.merge(local: path)`.
    return matching.map((file) => new Map([...location, ['local', file]]));
  }

  private accessor(location: ConfigMap): Accessor {
    // GitLab's `matching?`: an artifact needs its job, a project its file.
    const needs: Partial<Record<Accessor, string>> = { artifact: 'job', project: 'file' };
    const present = ACCESSORS.filter((key) => !isBlank(location.get(key)) && (needs[key] === undefined || !isBlank(location.get(needs[key]))));
    if (present.length === 1) return present[0];
    const subkeys = `\`${ACCESSORS.join('`, `')}\``;
    if (present.length === 0) throw new IncludeError(`\`${asJson(location)}\` does not have a valid subkey for include. Valid subkeys are: ${subkeys}`);
    throw new IncludeError(`Each include must use only one of: ${subkeys}`);
  }

  private async load(location: ConfigMap, source: Source): Promise<ConfigMap> {
    const accessor = this.accessor(location);
    const expand = (value: Value | undefined) => expandVariables(isString(value) ? value : asJson(value ?? null), this.ctx.variables, true);
    if (accessor === 'artifact' && !this.ctx.readArtifact) throw new IncludeError('Including configs from artifacts is only allowed when triggering child pipelines');
    const readsProjects = (accessor === 'project' || accessor === 'component') && this.ctx.readProject;
    if (accessor !== 'local' && accessor !== 'artifact' && !readsProjects) {
      throw new IncludeError(`${UNSUPPORTED[accessor]} include \`${expand(location.get(accessor))}\` is not supported: only local files, files of other projects and artifacts of a parent pipeline's jobs can be included`);
    }
    if (this.includes.length >= MAX_INCLUDES) throw new IncludeError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
    const target = location.get(accessor === 'project' ? 'file' : accessor) ?? null;
    const job = accessor === 'artifact' ? expand(location.get('job')) : undefined;
    const project = accessor === 'project' ? expand(location.get('project')) : undefined;
    const ref = accessor === 'project' && !isBlank(location.get('ref')) ? expand(location.get('ref')) : null;
    if (!isString(target)) {
      this.includes.push(this.metadata(source, asJson(target), job === undefined ? null : { job }));
      throw new IncludeError(`Included file \`${asJson(target)}\` needs to be a string`);
    }
    const args = location.get('inputs') ?? location.get('with') ?? null;
    if (args !== null && !isMap(args)) throw new IncludeError(`Included file \`${target}\` inputs should be a hash`);
    if (accessor === 'component') return this.loadComponent(expandVariables(target, this.ctx.variables, true), args, source);
    const path = expandVariables(target, this.ctx.variables, true).replace(/^\/+/, '');
    const index = this.includes.push(this.metadata(source, path, job === undefined ? null : { job })) - 1;
    if (!YAML_EXTENSION.test(path.split('/').pop() ?? '')) throw new IncludeError(`Included file \`${path}\` does not have YAML extension!`);
    let content: string;
    let nested = source;
    if (project !== undefined) {
      const found = await this.readProject(project, ref, path);
      nested = { fullPath: found.project.fullPath, url: found.project.url, sha: found.project.sha, read: (p) => found.project.read(p), files: () => found.project.files() };
      this.includes[index] = this.metadata(source, path, { project, ref: ref ?? 'HEAD', from: nested });
      content = found.content;
    } else {
      content = job === undefined ? await this.readLocal(source, path) : await this.readArtifact(job, path);
    }
    return this.parse(path, content, args, nested, project === undefined && job === undefined ? path : null);
  }

  /** An included file's text as configuration: parsed, its inputs interpolated, its own includes expanded. */
  private async parse(path: string, content: string, args: ConfigMap | null, nested: Source, localParent: string | null = null): Promise<ConfigMap> {
    this.bytes += Buffer.byteLength(content, 'utf8');
    if (this.bytes > MAX_TOTAL_BYTES) throw new IncludeError('Total size of combined CI/CD configuration is too big');
    const read = parseYaml(content, this.budget);
    if (!read.ok) throw new IncludeError(`\`${path}\`: ${read.error}`);
    const parsed = interpolate(read.value, read.header, args, this.ctx.variables);
    if (!parsed.ok) throw new IncludeError(`\`${path}\`: ${parsed.error}`);
    if (!isMap(parsed.value)) throw new IncludeError(`\`${path}\`: Invalid configuration format`);
    if (parsed.value.size === 0) throw new IncludeError(`Included file \`${path}\` does not have valid YAML syntax!`);
    return this.expand(parsed.value, nested, localParent);
  }

  /**
   * A CI/CD component of a project of this instance (GitLab's Ci::Components::FetchService and InstancePath): the
   * address is `<server FQDN>/<project path>/<component>@<version>`, the version a released tag, a branch or a
   * commit (`~latest` and partial versions name catalog releases, which this server's projects have none of).
   */
  private async loadComponent(address: string, args: ConfigMap | null, source: Source): Promise<ConfigMap> {
    const prefix = `Component '${address}' -`;
    const fqdn = this.ctx.variables.CI_SERVER_FQDN ?? this.ctx.variables.CI_SERVER_HOST ?? '';
    const index = this.includes.push({ type: 'component', location: address, blob: null, raw: null, extra: {}, context_project: source.fullPath, context_sha: source.sha }) - 1;
    if (!address.includes('@') || !address.startsWith(`${fqdn}/`)) throw new IncludeError(`${prefix} the component path is not supported`);
    const at = address.indexOf('@');
    const path = address.slice(fqdn.length + 1, at);
    const version = address.slice(at + 1);
    const slash = path.lastIndexOf('/');
    const projectPath = path.startsWith('/') || slash < 0 ? null : path.slice(0, slash);
    const name = slash < 0 ? '' : path.slice(slash + 1);
    const project = projectPath && version !== '' ? await this.ctx.readProject!(projectPath, version === LATEST || SHORTHAND_SEMVER.test(version) ? null : version) : null;
    if (project && (version === LATEST || SHORTHAND_SEMVER.test(version))) {
      throw new IncludeError(
        version === LATEST
          ? `${prefix} The ~latest version reference is not supported for non-catalog resources. Use a tag, branch, or commit SHA instead.`
          : `${prefix} The partial semantic version reference is not supported for non-catalog resources. Use a tag, branch, or commit SHA instead.`,
      );
    }
    let file: string | null = null;
    let content: string | null = null;
    if (project?.sha && name !== '') {
      for (const candidate of [`templates/${name}.yml`, `templates/${name}/template.yml`]) {
        content = await project.read(candidate);
        if (content !== null) {
          file = candidate;
          break;
        }
      }
    }
    if (!project || !project.sha || file === null || content === null || content.trim() === '') throw new IncludeError(`${prefix} content not found`);
    this.includes[index] = { ...this.includes[index], blob: `${project.url}/-/blob/${project.sha}/${file}` };
    const nested: Source = { fullPath: project.fullPath, url: project.url, sha: project.sha, read: (p) => project.read(p), files: () => project.files() };
    return this.parse(address, content, args, nested);
  }
}
