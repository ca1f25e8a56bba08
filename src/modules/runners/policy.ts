/**
 * GitLab's Ci::RunnerPolicy, with the runner abilities of GlobalPolicy, GroupPolicy and ProjectPolicy.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import type { ArtifactsAccess } from '../../ci/config/types.js';
import { administrator, anyOf, groupsOnly, namespaceLevel, namespaceMember, projectLevel, projectMember, readBuild, type NamespaceSubject, type ProjectSubject, type Rule, type RunnerSubject } from '../../auth/rules.js';

const { DEVELOPER, MAINTAINER, OWNER } = AccessLevel;

/** A job's artifacts, by its project and who its `artifacts:access` lets download them. */
export interface JobArtifactsSubject {
  project: ProjectSubject;
  access: ArtifactsAccess;
}

const projectDeveloper = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER));
const projectMaintainer = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER));

/**
 * Ci::BuildPolicy's read_job_artifacts: whoever reads the project's jobs, unless the job's `artifacts:access` is
 * `none`, or `developer` (also `public: false`) or `maintainer` and the viewer is below that role.
 */
const jobArtifactsReader: Rule<JobArtifactsSubject, never> = {
  allows: (actor, { project, access }) =>
    readBuild.allows(actor, project) &&
    access !== 'none' &&
    (access === 'all' || projectDeveloper.allows(actor, project)) &&
    (access !== 'maintainer' || projectMaintainer.allows(actor, project)),
  where: () => false,
};

/**
 * GitLab's owned runners (User#ci_owned_runners): group runners of groups the user owns (subgroups included), and
 * project runners of projects the user maintains.
 */
export const runnerOwner: Rule<RunnerSubject, Prisma.RunnerWhereInput> = {
  allows(actor, runner) {
    if (runner.runnerType === 'group_type') return runner.group !== null && namespaceLevel(actor, runner.group) >= OWNER;
    if (runner.runnerType === 'project_type') return runner.projects.some((project) => projectLevel(actor, project) >= MAINTAINER);
    return false;
  },
  where(actor) {
    const groups = namespaceMember(OWNER).where(actor);
    const projects = projectMember(MAINTAINER).where(actor);
    const or: Prisma.RunnerWhereInput[] = [];
    if (groups !== false) or.push({ runnerType: 'group_type', namespace: groups === true ? {} : groups });
    if (projects !== false) or.push({ runnerType: 'project_type', projects: { some: { project: projects === true ? {} : projects } } });
    return or.length ? { OR: or } : false;
  },
};

/** Instance runners: every signed-in user sees them (GitLab's `authenticate_show_runner!`). */
const instanceRunner: Rule<RunnerSubject, Prisma.RunnerWhereInput> = {
  allows: (actor, runner) => !!actor.viewer && runner.runnerType === 'instance_type',
  where: (actor) => (actor.viewer ? { runnerType: 'instance_type' } : false),
};

/** An owned runner that is not locked to its projects may be enabled for another (GitLab's `assign_runner`). */
const unlockedOwnedRunner: Rule<RunnerSubject, never> = {
  allows: (actor, runner) => !runner.locked && runnerOwner.allows(actor, runner),
  where: () => false,
};

/** Creating a runner for a group (its Owners) or a project (its Maintainers); GitLab's `create_runner` on either. */
const runnerScopeOwner: Rule<NamespaceSubject | ProjectSubject, never> = {
  allows: (actor, scope) => ('namespace' in scope ? projectLevel(actor, scope) >= MAINTAINER : scope.kind === 'group' && namespaceLevel(actor, scope) >= OWNER),
  where: () => false,
};

/** RunnerPolicy's abilities, by name. */
export const runnerPolicy = {
  read_project_runners: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  admin_project_runners: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  // Runners (RunnerPolicy; creation: GlobalPolicy's create_instance_runner, Group and ProjectPolicy's create_runner).
  create_instance_runner: administrator as Rule<null, never>,
  create_runner: anyOf<NamespaceSubject | ProjectSubject, never>(administrator, runnerScopeOwner),
  read_runner: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner, instanceRunner),
  update_runner: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner),
  delete_runner: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner),
  assign_runner: anyOf<RunnerSubject, never>(administrator, unlockedOwnedRunner),
  read_job_artifacts: jobArtifactsReader,
  read_builds: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner),
  read_group_runners: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(OWNER))),
};

type RunnerPolicyRules = typeof runnerPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends RunnerPolicyRules {}
}
