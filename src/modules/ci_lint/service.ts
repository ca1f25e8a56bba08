/**
 * Owns CI linting (GitLab's Gitlab::Ci::Lint behind `POST`/`GET /projects/:id/ci/lint` and `Query.ciConfig`): a
 * configuration, given or read from the project's repository, checked statically (every job, no rules evaluated)
 * or as a simulated pipeline on a branch or tag (`dry_run`), with includes read from the project's repository.
 */
import { planPipeline, type CiContext, type PipelinePlan, type PlannedInclude, type PlannedNeed, type PolicyValue } from '../../ci/config/index.js';
import { MAX_FILE_BYTES } from '../../ci/config/yaml.js';
import { mutuallyExclusive, notFound } from '../../errors.js';
import { ZERO_SHA } from '../../git/repository.js';
import type { ServiceBase } from '../module.js';
import { DEFAULT_CI_CONFIG_PATH, pipelineVariables, variableMap } from '../pipelines/predefined.js';
import { commitFiles, projectIncludes } from '../pipelines/includes.js';
import type { ProjectRow, ProjectsService } from '../projects/service.js';
import type { RepositoriesService } from '../repositories/service.js';
import type { ProtectedBranchesService } from '../protected_branches/service.js';
import type { CiVariablesSource } from '../runners/service.js';

/** GitLab's configuration file when the project names none (`ci_config_path`). */

/** GitLab's errors of a simulated pipeline that the configuration does not explain (Ci::CreatePipelineService). */
const DRY_RUN_ERRORS = {
  permission: 'Insufficient permissions to create a new pipeline',
  reference: 'Reference not found',
  filtered: 'Pipeline filtered out by workflow rules.',
  noJobs: 'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.',
} as const;

export interface LintInput {
  /** The configuration to lint; without it, the project's configuration file. */
  content?: string | null;
  sha?: string | null;
  contentRef?: string | null;
  dryRun?: boolean | null;
  ref?: string | null;
  dryRunRef?: string | null;
}

/** A job as GitLab's lint result lists it (`include_jobs`). */
export interface LintJob {
  name: string;
  stage: string;
  beforeScript: string[];
  script: string[];
  afterScript: string[];
  tagList: string[];
  only: PolicyValue | null;
  except: PolicyValue | null;
  environment: string | null;
  when: string;
  allowFailure: boolean;
  needs: PlannedNeed[] | null;
}

export interface LintResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  mergedYaml: string | null;
  includes: PlannedInclude[] | null;
  /** Jobs by stage, then configuration order; none when invalid. */
  jobs: LintJob[];
}

function invalidResult(error: string): LintResult {
  return { valid: false, errors: [error], warnings: [], mergedYaml: null, includes: null, jobs: [] };
}

/** The plan's jobs as the lint result lists them: by stage, then in configuration order; a dry run shows no only/except/needs. */
function lintJobs(plan: PipelinePlan, dryRun: boolean): LintJob[] {
  return plan.stages.flatMap((stage) =>
    plan.jobs
      .filter((job) => job.stage === stage)
      .map((job) => ({
        name: job.name,
        stage,
        beforeScript: job.beforeScript,
        script: job.script,
        afterScript: job.afterScript,
        tagList: job.tags,
        only: dryRun ? null : job.only,
        except: dryRun ? null : job.except,
        environment: job.environment?.name ?? null,
        when: job.when,
        allowFailure: job.allowFailure,
        needs: dryRun ? null : job.needs,
      })),
  );
}

export class CiLintService {
  constructor(
    private readonly base: ServiceBase,
    private readonly projects: ProjectsService,
    private readonly repositories: RepositoriesService,
    private readonly protectedBranches: ProtectedBranchesService | null = null,
    private readonly ciVariables: CiVariablesSource | null = null,
  ) {}

  /**
   * Lints `content` (Developers and above: GitLab's `create_pipeline`), or the project's configuration file at
   * `contentRef`/`sha` or the default branch (whoever may read the code: `download_code`; 404 Repository Not Found
   * for an empty repository, 404 Commit Not Found for an unknown ref).
   */
  async lint(project: ProjectRow, input: LintInput): Promise<LintResult> {
    const { access } = this.base;
    if (input.sha != null && input.contentRef != null) throw mutuallyExclusive('sha', 'contentRef');
    if (input.ref != null && input.dryRunRef != null) throw mutuallyExclusive('ref', 'dryRunRef');
    let content: string | null;
    let sha: string | null;
    if (input.content != null) {
      await access.authorize('create_pipeline', project);
      content = input.content;
      // Includes are read at `sha` when it names a commit, else at the default branch's head (none when empty).
      sha = (await this.repositories.reads.commit(project, input.sha ?? `refs/heads/${project.defaultBranch}`))?.sha ?? null;
    } else {
      await this.repositories.authorizeRead(project);
      if (project.emptyRepo) throw notFound('Repository');
      const commit = await this.repositories.reads.commit(project, input.contentRef ?? input.sha ?? `refs/heads/${project.defaultBranch}`);
      if (!commit) throw notFound('Commit');
      sha = commit.sha;
      const file = await this.repositories.reads.fileAt(project, sha, project.ciConfigPath || DEFAULT_CI_CONFIG_PATH, MAX_FILE_BYTES);
      content = file && file.toString('utf8');
    }
    if (input.dryRun) return this.simulate(project, content ?? '', input.dryRunRef ?? input.ref ?? project.defaultBranch);
    const plan = await planPipeline(content ?? '', this.context(project, sha, project.defaultBranch, 'branch'), { static: true });
    return this.result(plan, [], false);
  }

  /** GitLab's dry run: the pipeline a push to `ref` would create, without creating it. */
  private async simulate(project: ProjectRow, content: string, ref: string): Promise<LintResult> {
    if (!(await this.base.access.can('create_pipeline', project))) return invalidResult(DRY_RUN_ERRORS.permission);
    const reads = this.repositories.reads;
    const branch = await reads.commit(project, `refs/heads/${ref}`);
    const tag = branch ? null : await reads.commit(project, `refs/tags/${ref}`);
    const commit = branch ?? tag;
    if (!commit) return invalidResult(DRY_RUN_ERRORS.reference);
    // As the pipeline would: the CI/CD variables its ref may see (protected ones on a protected branch).
    const protectedRef = !!branch && !!(await this.protectedBranches?.anyProtected(project.id, [ref]));
    const variables = (await this.ciVariables?.forJob(project, { protectedRef, environment: null })) ?? [];
    const plan = await planPipeline(content, this.context(project, commit.sha, ref, branch ? 'branch' : 'tag', { protectedRef, variables }));
    const extra = plan.errors.length ? [] : plan.filteredByWorkflow ? [DRY_RUN_ERRORS.filtered] : plan.jobs.length === 0 ? [DRY_RUN_ERRORS.noJobs] : [];
    return this.result(plan, extra, true);
  }

  private result(plan: PipelinePlan, extraErrors: string[], dryRun: boolean): LintResult {
    const errors = [...plan.errors, ...extraErrors];
    const valid = errors.length === 0;
    return { valid, errors, warnings: plan.warnings, mergedYaml: plan.mergedYaml, includes: plan.includes, jobs: valid ? lintJobs(plan, dryRun) : [] };
  }

  /** What the engine sees of the project at a commit: GitLab's predefined variables of a push pipeline, and its files. */
  private context(
    project: ProjectRow,
    sha: string | null,
    ref: string,
    kind: 'branch' | 'tag',
    simulated: { protectedRef: boolean; variables: readonly { key: string; value: string; masked: boolean }[] } = { protectedRef: false, variables: [] },
  ): CiContext {
    const reads = this.repositories.reads;
    const variables = variableMap(
      pipelineVariables(this.base.app.config, {
        source: 'push',
        ref,
        tag: kind === 'tag',
        sha: sha ?? '',
        beforeSha: ZERO_SHA,
        protectedRef: simulated.protectedRef,
        configPath: project.ciConfigPath || DEFAULT_CI_CONFIG_PATH,
        triggered: false,
        commit: null,
        user: null,
        project,
      }),
      simulated.variables,
    );
    return {
      variables,
      masked: simulated.variables.filter((v) => v.masked).map((v) => v.value),
      readProject: projectIncludes(this.base, this.projects, this.repositories),
      readLocal: async (path) => {
        if (!sha) return null;
        const file = await reads.fileAt(project, sha, path, MAX_FILE_BYTES);
        return file && file.toString('utf8');
      },
      listFiles: async () => (sha ? commitFiles(await this.repositories.open(project), sha) : []),
    };
  }
}
