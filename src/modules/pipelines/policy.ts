/**
 * GitLab's Ci::PipelinePolicy, Ci::BuildPolicy and Ci::TriggerPolicy, with ProjectPolicy's CI abilities.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { adminBuild, administrator, allOf, anyOf, pipelinesFeature, projectLevel, projectMember, readBuild, unlessArchived, updateBuild, visible, type BuildTraceSubject, type JobSubject, type ProjectSubject, type Rule, type TriggerSubject } from '../../auth/rules.js';
import { onProtectedRef, refUpdater } from '../protected_branches/policy.js';

const { GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER } = AccessLevel;

/**
 * GitLab's BuildPolicy read_build_trace: whoever reads the job reads its log, except that a job in debug mode shows
 * it only to those who may update builds (Developers and up). Asked about one job at a time, never as a list filter.
 */
const buildTrace: Rule<BuildTraceSubject, never> = {
  allows: (actor, { project, debugMode }) => readBuild.allows(actor, project) && (!debugMode || updateBuild.allows(actor, project)),
  where: () => false,
};

/**
 * Ci::BuildPolicy's job writes (`update_build`, asked of one job): none on a protected ref the viewer may not update,
 * none on a job whose deployment is outdated (Ci::DeployablePolicy).
 */
const jobOnRef: Rule<JobSubject, never> = onProtectedRef(updateBuild);
const jobWriter: Rule<JobSubject, never> = {
  allows: (actor, job) => !job.outdatedDeployment && jobOnRef.allows(actor, job),
  where: () => false,
};

/**
 * Ci::BuildPolicy's erase_build: `admin_build`, or `update_build` for the user who ran the job on an unprotected ref;
 * never on a protected ref the viewer may not update.
 */
const jobEraser: Rule<JobSubject, never> = {
  allows: (actor, job) =>
    (adminBuild.allows(actor, job.project) || (updateBuild.allows(actor, job.project) && !job.protection && !!actor.viewer && job.userId === actor.viewer.id)) &&
    refUpdater.allows(actor, job),
  where: () => false,
};

/** Ci::TriggerPolicy's admin_trigger: the trigger's owner, while they may `admin_build` on its project. */
const triggerOwner: Rule<TriggerSubject, never> = {
  allows: (actor, trigger) => !!actor.viewer && trigger.ownerId === actor.viewer.id && adminBuild.allows(actor, trigger.project),
  where: () => false,
};

/** What deciding `set_pipeline_variables` reads: the project's restriction of user-defined variables. */
export interface PipelineVariablesSubject extends ProjectSubject {
  restrictUserDefinedVariables: boolean;
  /** `developer`, `maintainer`, `owner` or `no_one_allowed`. */
  ciPipelineVariablesMinimumOverrideRole: string;
}

const OVERRIDE_ROLE_LEVELS: Record<string, number> = { developer: DEVELOPER, maintainer: MAINTAINER, owner: OWNER };

/**
 * ProjectPolicy's set_pipeline_variables (ProjectCiCdSetting#override_pipeline_variables_allowed?): anyone who may
 * create pipelines unless the project restricts user-defined variables; then those with at least the minimum role,
 * no one for `no_one_allowed`. Asked of one project at a time, never a list filter.
 */
const pipelineVariablesSetter: Rule<PipelineVariablesSubject, never> = {
  allows: (actor, project) => {
    if (!project.restrictUserDefinedVariables) return true;
    const least = OVERRIDE_ROLE_LEVELS[project.ciPipelineVariablesMinimumOverrideRole];
    return least !== undefined && projectLevel(actor, project) >= least;
  },
  where: () => false,
};

/**
 * Ci::BuildPolicy's read_manual_variables: Developers of a public project, any member of another. Asked of one
 * project at a time, never a list filter.
 */
const publicDeveloper = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER));
const anyMember = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(GUEST));
const manualVariablesReader: Rule<ProjectSubject, never> = {
  allows: (actor, project) => (project.visibility === 'public' ? publicDeveloper : anyMember).allows(actor, project),
  where: () => false,
};

/** PipelinePolicy's abilities, by name. */
export const pipelinePolicy = {
  // CI (ProjectPolicy with "public pipelines" on, GitLab's default): whoever sees the project sees its pipelines and jobs.
  // The project's CI/CD and repository features decide too (pipelinesFeature, buildsFeature).
  read_pipeline: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)), pipelinesFeature),
  read_build: readBuild,
  read_build_trace: buildTrace,
  create_pipeline: unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), pipelinesFeature)),
  // ProjectPolicy's, and on a pipeline Ci::PipelinePolicy's: not on a protected ref the viewer may not update.
  update_pipeline: onProtectedRef(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), pipelinesFeature)),
  cancel_pipeline: onProtectedRef(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), pipelinesFeature)),
  update_build: updateBuild,
  // Ci::BuildPolicy: a job's writes (Ci::JobAbilities), none on a protected ref the viewer may not update.
  play_job: jobWriter,
  retry_job: jobWriter,
  cancel_build: jobWriter,
  erase_build: jobEraser,
  admin_pipeline: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)), pipelinesFeature),
  // Ci::TriggerPolicy: Maintainers list, create and delete a project's trigger tokens (manage_trigger, which is
  // admin_build); only a trigger's owner changes it or sees its token (admin_trigger).
  manage_trigger: adminBuild,
  admin_trigger: triggerOwner,
  // External commit statuses (ProjectPolicy): Reporters, or whoever sees the project when it is public or internal.
  read_commit_status: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), pipelinesFeature),
  destroy_pipeline: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(OWNER)), pipelinesFeature),
  destroy_artifacts: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  // ProjectPolicy: Developers read resource groups and change their process mode.
  read_resource_group: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)),
  update_resource_group: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)),
  set_pipeline_variables: pipelineVariablesSetter,
  read_manual_variables: manualVariablesReader,
};

type PipelinePolicyRules = typeof pipelinePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends PipelinePolicyRules {}
}
