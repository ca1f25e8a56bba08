/** The public shapes of the CI configuration engine, and the values a parsed configuration is made of. */

/** A `!reference [job, key, …]` tag, resolved after includes and `extends`. */
export class Reference {
  constructor(readonly path: Value) {}
}

/** A job's `environment:` as GitLab keeps it, name and url as written (`kubernetes:` is read and dropped: this server deploys nowhere). */
export interface JobEnvironment {
  name: string;
  action?: string;
  onStop?: string;
  url?: string;
  autoStopIn?: string;
  deploymentTier?: string;
}

/** A YAML mapping, in file order (a Map: job names such as `__proto__` or `1` keep their place and meaning). */
export type ConfigMap = Map<string, Value>;

/** What YAML gives: Ruby's scalars (String, Integer/Float, true/false, nil), arrays and hashes, and `!reference` tags. */
export type Value = string | number | boolean | null | Value[] | ConfigMap | Reference;

export interface CiContext {
  /** Variables visible to rules/workflow `if:` (predefined CI_* plus project/pipeline variables), key → value. */
  variables: Record<string, string>;
  /** Values of masked CI/CD variables among them, shown as `[MASKED]` in the plan's errors and include locations. */
  masked?: readonly string[];
  /** Paths changed by the push, for rules:changes; undefined when unknown (GitLab then treats `changes` as true). */
  changes?: readonly string[];
  /**
   * The pipeline's own inputs (the API's `inputs`, `ci.input` push options, a schedule's or a trigger's), name →
   * JSON value, checked against the `spec: inputs` of the pipeline's file; absent or null when none were given.
   */
  inputs?: Readonly<Record<string, unknown>> | null;
  /** Reads a file of the repository at the pipeline's commit, for `include: local` (and `include: 'path'` strings); null if absent. */
  readLocal(path: string): Promise<string | null>;
  /**
   * Every file path of the repository at the pipeline's commit, for `rules:exists` with glob patterns. Without it,
   * `exists` answers literal paths through `readLocal` and glob patterns match nothing.
   */
  listFiles?(): Promise<readonly string[]>;
  /**
   * Only when creating a child pipeline: a file of the archive of the parent pipeline's job named `job`, for
   * `include: artifact:` (dynamic child pipelines). `job: false`: no such job with an archive; `content: null`: no
   * such file in it.
   */
  readArtifact?(job: string, path: string): Promise<{ job: false } | { job: true; content: string | null }>;
  /**
   * `include: project:`: another project's repository at `ref` (its HEAD, the default branch, when null), if the
   * pipeline's user may download its code; null when it is not found or they may not.
   */
  readProject?(path: string, ref: string | null): Promise<IncludedProject | null>;
}

/** Another project's repository at a commit, as `include: project:` reads it. */
export interface IncludedProject {
  fullPath: string;
  /** Its web URL, for the `blob` and `raw` links of the lint API's includes. */
  url: string;
  /** The commit `ref` names; null when it names none. */
  sha: string | null;
  /** A file at that commit; null when there is none. */
  read(path: string): Promise<string | null>;
  /** Every file path at that commit. */
  files(): Promise<readonly string[]>;
}

export interface PlannedNeed {
  name: string;
  artifacts: boolean;
  optional: boolean;
}

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';
type ArtifactsWhen = 'on_success' | 'on_failure' | 'always';

export interface PlannedArtifacts {
  name?: string;
  paths: string[];
  exclude: string[];
  untracked: boolean;
  when: ArtifactsWhen;
  expireIn?: string;
  /** Who may download them (`access`, or `public: false` for developer); absent for everyone who reads the job. */
  access?: ArtifactsAccess;
  /** `expose_as`: the name merge requests show the artifacts under. */
  exposeAs?: string;
  reports: PlannedReports;
}

/**
 * `artifacts:reports` as GitLab keeps them (Entry::Reports#value): each report type's paths, and `coverage_report`
 * as its hash (the runner uploads it as its `coverage_format`).
 */
export interface PlannedReports {
  [type: string]: string[] | { coverage_format: string; path: string } | undefined;
  coverage_report?: { coverage_format: string; path: string };
}

/** GitLab's `artifacts:access` values. */
export type ArtifactsAccess = 'all' | 'developer' | 'maintainer' | 'none';

export interface PlannedService {
  name: string;
  alias?: string;
  entrypoint?: string[];
  command?: string[];
}

export interface PlannedJob {
  name: string;
  stage: string;
  stageIdx: number;
  when: JobWhen;
  allowFailure: boolean;
  allowFailureExitCodes: number[] | null;
  /** null: waits for all earlier stages; an array (maybe empty): waits only for these (DAG). */
  needs: PlannedNeed[] | null;
  script: string[];
  beforeScript: string[];
  afterScript: string[];
  image: { name: string; entrypoint?: string[] } | null;
  services: PlannedService[];
  /** Job variables merged over global `variables:` (global first, job overrides), then the matching rule's. */
  variables: { key: string; value: string }[];
  tags: string[];
  artifacts: PlannedArtifacts | null;
  /** `cache:` entries (key:files unresolved), or empty. */
  cache: import('./cache-entry.js').PlannedCache[];
  dependencies: string[] | null;
  /** The regex source, e.g. "/Coverage: \\d+\\.\\d+/". */
  coverage: string | null;
  retry: { max: number; when: string[]; exitCodes: number[] };
  /** Seconds. */
  timeout: number | null;
  /** Seconds, for when: delayed. */
  startIn: number | null;
  /** `environment:` with its name and url as written (expanded when the pipeline is created). */
  environment: JobEnvironment | null;
  /** `release:` as written (validated), for the runner's release step. */
  release: import('./release-entry.js').PlannedRelease | null;
  interruptible: boolean;
  /** `id_tokens:` (the job's, or `default:`'s): each token's name and audience, variables unexpanded. */
  idTokens: import('./job-keywords.js').PlannedIdTokens | null;
  /** `hooks:` (the job's, or `default:`'s). */
  hooks: import('./job-keywords.js').PlannedHooks | null;
  /** `secrets:`: each variable's provider settings. */
  secrets: import('./job-keywords.js').PlannedSecrets | null;
  /** `manual_confirmation:`, the message shown before a manual job is run. */
  manualConfirmation: string | null;
  /** `pages:` of a Pages job (true for a job named `pages`), null for any other job. */
  pages: import('./job-keywords.js').PlannedPages | null;
  /** `publish:` (the Pages folder), as written. */
  publish: string | null;
  /** `identity:` (GitLab.com's Google Cloud workload identity), as written. */
  identity: string | null;
  /** `dast_configuration:`, as written. */
  dastConfiguration: { site_profile?: string; scanner_profile?: string } | null;
  /** `resource_group:` as written (its variables expanded when the pipeline is created), or null. */
  resourceGroup: string | null;
  /** trigger: jobs (bridges), kept as data. */
  trigger: { include?: unknown; project?: string; branch?: string; strategy?: string; forward?: { yaml_variables?: boolean; pipeline_variables?: boolean } } | null;
  /** GitLab's `only` of the job after defaults (`{ refs: ['branches', 'tags'] }` without rules), for the lint API; null when none. */
  only: PolicyValue | null;
  /** GitLab's `except` of the job, for the lint API; null when none. */
  except: PolicyValue | null;
}

/** An `only:`/`except:` policy as GitLab normalises it. */
export interface PolicyValue {
  refs?: string[];
  variables?: string[];
  changes?: string[];
  kubernetes?: string;
}

export interface PlannedInclude {
  type: string;
  location: string;
  blob: string | null;
  raw: string | null;
  extra: object;
  context_project: string | null;
  context_sha: string | null;
}

export interface PipelinePlan {
  /** Errors as GitLab words them; non-empty → invalid config. */
  errors: string[];
  warnings: string[];
  /** workflow:name after variable expansion, or null. */
  name: string | null;
  /** workflow:rules decided the pipeline must not run (when: never, or no rule matched). */
  filteredByWorkflow: boolean;
  /** Variables added by the matching workflow rule. */
  workflowVariables: { key: string; value: string }[];
  /** workflow:auto_cancel, with the matching workflow rule's over it, key by key; absent: GitLab's defaults. */
  autoCancel?: { onNewCommit?: string; onJobFailure?: string };
  /** Stage names in order, with .pre first and .post last (all declared stages, used or not). */
  stages: string[];
  /** Jobs that the rules/only/except kept, in configuration order. Hidden jobs (.name) and templates excluded. */
  jobs: PlannedJob[];
  /**
   * The configuration after includes, extends and anchors, as YAML (GitLab's merged_yaml); null, as in GitLab,
   * when the configuration could not be built (no content, invalid YAML, a failed include, `extends` or `!reference`).
   */
  mergedYaml: string | null;
  /** Every file included, nested ones too; null when the configuration could not be built. */
  includes: PlannedInclude[] | null;
}

export interface PlanOptions {
  /**
   * GitLab's static lint (no dry run): evaluate no workflow rules, rules, only or except; every visible job is
   * planned, with its own `when`. Needs on jobs rules would remove are not checked.
   */
  static?: boolean;
}
