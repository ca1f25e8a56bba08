/**
 * Who may do what, in GitLab's ability names: `can(actor, 'read_project', project)`. Each rule is written once
 * and gives both the check for one object and the filter for a list (a Prisma `where`), so a list never shows
 * what a lookup would hide. Services ask abilities through a request's `Access`; nothing else compares levels
 * or reads the admin flag.
 */
import type { Prisma } from '../db/database.js';
import { forbidden, unauthenticated } from '../errors.js';
import { AccessLevel } from './access-levels.js';
import type { ProjectFeatureName } from './project-features.js';
import type { Viewer } from './viewer.js';
import { ProjectAccessTokensPolicy } from '../modules/project_access_tokens/policy.js';
import { actorWithoutMemberships, namespaceLevel, projectLevel, directProjectLevel, heldAtLeast, anyOf, allOf, visible, administrator, namespaceMember, projectMember, memberBelow, groupsOnly, self, publicProfile, tokenOwner, projectCreator, subgroupCreator, groupCreator, runnerOwner, instanceRunner, unlockedOwnedRunner, runnerScopeOwner, protectedRefAccess, cicdVariablesAdmin, scheduleOwner, onScheduleProject, groupOwners, adminGroupMember, adminProjectMember, manageOwners, groupMembership, projectMembership, unlessArchived, featureAllowed, repositoryFeature, buildsFeature, pipelinesFeature, projectOwner, readBuild, updateBuild, buildTrace, pushCode, adminBuild, refUpdater, onProtectedRef, jobWriter, jobEraser, triggerOwner, type Memberships, type Actor, type NamespaceSubject, type GroupSettingsSubject, type ProjectSubject, type UserSubject, type CiVariablesOwnerSubject, type PipelineScheduleSubject, type ProfileSubject, type TokenSubject, type RunnerSubject, type Rule } from './rules.js';

export type { Memberships, Actor, NamespaceSubject, GroupSettingsSubject, ProjectSubject, UserSubject, ProtectedRefAccessSubject, BuildTraceSubject, CiVariablesOwnerSubject, PipelineScheduleSubject, RefSubject, JobSubject, TriggerSubject, ProfileSubject, GroupMemberSubject, ProjectMemberSubject, TokenSubject, RunnerSubject, Rule } from './rules.js';
export { projectSubject, actorWithoutMemberships, namespaceLevel, projectLevel, directProjectLevel } from './rules.js';

const { GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER } = AccessLevel;

/**
 * GitLab's ability names, by the kind of subject they are asked about. A domain module names the abilities of its
 * own subjects in its `policy.ts` (one object per subject, as GitLab's `<Subject>Policy`, built from the rules in
 * rules.ts) and this table spreads it in, so `can` and `allowedWhere` stay the one check.
 */
const RULES = {
  // GlobalPolicy: no subject.
  admin_all_resources: administrator as Rule<null, never>,
  create_group: anyOf<null, never>(administrator, groupCreator),

  // ProjectPolicy
  read_project: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)),
  // Project settings (GitLab's admin_project: Maintainers), such as the CI/CD job token scope.
  admin_project: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  admin_project_member: adminProjectMember,
  manage_owners: manageOwners,
  // ProjectMemberPolicy: one direct membership of a project.
  update_project_member: projectMembership(false),
  destroy_project_member: projectMembership(true),
  change_repository_storage: administrator as Rule<ProjectSubject, never>,
  // ProjectPolicy's owner_access block: renaming, visibility, transfer, archiving, deletion and unlinking a fork.
  rename_project: projectOwner,
  change_visibility_level: projectOwner,
  change_namespace: projectOwner,
  archive_project: projectOwner,
  remove_project: projectOwner,
  remove_fork_project: projectOwner,
  // Forking needs the code (the repository feature) and the forking feature available to the viewer (GitLab's
  // `forking_allowed`), besides Reporter on a private project.
  fork_project: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), repositoryFeature, featureAllowed('forking')),
  // Repository: reading code needs Reporter on a private project (Guests see the project, not its code).
  download_code: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), repositoryFeature),
  push_code: pushCode,
  admin_protected_branch: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  push_to_delete_protected_branch: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  // ProtectedRefAccess: one push, merge or unprotect level of a protected branch.
  access_protected_ref: protectedRefAccess,
  // CI (ProjectPolicy with "public pipelines" on, GitLab's default): whoever sees the project sees its pipelines and jobs.
  // The project's CI/CD and repository features decide too (pipelinesFeature, buildsFeature).
  read_pipeline: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)), pipelinesFeature),
  read_build: readBuild,
  read_build_trace: buildTrace,
  create_pipeline: unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), pipelinesFeature)),
  // ProjectPolicy's, and on a pipeline Ci::PipelinePolicy's: not on a protected ref the viewer may not update.
  update_pipeline: onProtectedRef(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), pipelinesFeature)),
  cancel_pipeline: onProtectedRef(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), pipelinesFeature)),
  // Creating a pipeline for a ref, and Ci::PipelineSchedulePolicy's `protected_ref`: Gitlab::UserAccess#can_update_branch?
  // (GitLab has no ability of this name: Chain::Validate::Abilities asks UserAccess directly).
  update_ref: refUpdater,
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
  read_project_runners: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  admin_project_runners: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  // Pipeline schedules (ProjectPolicy; Ci::PipelineSchedulePolicy for one schedule): whoever reads the project's
  // pipelines reads them (GitLab's `public_builds & guest_access`, public pipelines being its default), Developers
  // create them, only their owner changes them, and Maintainers administer (delete, take over) every one; their
  // variables are shown to those who administer them.
  // GitLab's `builds_disabled | repository_disabled` prevents them all.
  read_pipeline_schedule: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)), buildsFeature),
  create_pipeline_schedule: unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), buildsFeature)),
  update_pipeline_schedule: allOf(anyOf<PipelineScheduleSubject, never>(administrator, scheduleOwner), onScheduleProject(buildsFeature)),
  admin_pipeline_schedule: allOf(anyOf<PipelineScheduleSubject, never>(administrator, scheduleOwner, onScheduleProject(projectMember(MAINTAINER))), onScheduleProject(buildsFeature)),
  read_pipeline_schedule_variables: allOf(
    anyOf<PipelineScheduleSubject, never>(administrator, scheduleOwner, onScheduleProject(projectMember(MAINTAINER))),
    onScheduleProject(buildsFeature),
  ),

  // Runners (RunnerPolicy; creation: GlobalPolicy's create_instance_runner, Group and ProjectPolicy's create_runner).
  create_instance_runner: administrator as Rule<null, never>,
  create_runner: anyOf<NamespaceSubject | ProjectSubject, never>(administrator, runnerScopeOwner),
  read_runner: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner, instanceRunner),
  update_runner: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner),
  delete_runner: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner),
  assign_runner: anyOf<RunnerSubject, never>(administrator, unlockedOwnedRunner),
  read_builds: anyOf<RunnerSubject, Prisma.RunnerWhereInput>(administrator, runnerOwner),
  // ProjectPolicy and GroupPolicy: the CI/CD variables of a project or a group.
  admin_cicd_variables: anyOf<CiVariablesOwnerSubject, never>(administrator, cicdVariablesAdmin),

  // NamespacePolicy and GroupPolicy: groups are namespaces of kind `group`.
  read_group: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(visible(), administrator, namespaceMember(GUEST), memberBelow)),
  read_namespace: anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(GUEST), groupsOnly(visible())),
  create_projects: projectCreator,
  create_subgroup: groupsOnly(anyOf<GroupSettingsSubject, Prisma.NamespaceWhereInput>(administrator, subgroupCreator)),
  // GroupPolicy's admin_group (Owners): group settings, transfers, shares of the group.
  admin_group: groupOwners,
  // GroupPolicy's remove_group (Owners): deleting the group with its subgroups and projects.
  remove_group: groupOwners,
  // GroupPolicy's read_namespace_via_membership: whoever has access to the group through a membership (or
  // administrators, whom GitLab counts as Owners of every group) may share a project with it.
  read_namespace_via_membership: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(GUEST))),
  admin_namespace: anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(OWNER)),
  admin_group_member: adminGroupMember,
  // GroupMemberPolicy: one direct membership of a group.
  update_group_member: groupMembership(false),
  destroy_group_member: groupMembership(true),
  read_group_runners: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(OWNER))),

  // UserPolicy
  read_user_profile: anyOf<ProfileSubject, Prisma.UserWhereInput>(publicProfile, administrator, self),
  read_user_email_address: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
  read_user_personal_access_tokens: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
  // The user's own account data (keys, e-mail addresses, status, preferences): themselves and administrators.
  update_user: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),

  // PersonalAccessTokenPolicy
  read_token: anyOf<TokenSubject, Prisma.PersonalAccessTokenWhereInput>(administrator, tokenOwner),
  revoke_token: anyOf<TokenSubject, Prisma.PersonalAccessTokenWhereInput>(administrator, tokenOwner),

  // ProjectPolicy's resource access tokens (src/modules/project_access_tokens/policy.ts).
  ...ProjectAccessTokensPolicy,
};

type Rules = typeof RULES;

/** Every ability's name. */
export const ABILITIES = Object.keys(RULES) as Ability[];

/**
 * Abilities that read the actor's ancestors: loaded, one query, only when one of these is asked and what is loaded
 * does not already allow it. Their rules may only grant through ancestors, never deny.
 */
const NEEDS_ANCESTORS: ReadonlySet<string> = new Set(['read_group']);
export type Ability = keyof Rules;
export type SubjectOf<A extends Ability> = Rules[A] extends Rule<infer S, unknown> ? S : never;
type WhereOf<A extends Ability> = Rules[A] extends Rule<unknown, infer W> ? W : never;
/** Abilities asked without a subject: they never depend on memberships. */
type GlobalAbility = { [A in Ability]: SubjectOf<A> extends null ? A : never }[Ability];
type SubjectAbility = Exclude<Ability, GlobalAbility>;

/** The project a subject is or belongs to (a project, or a protected ref, job log or CI/CD variables owner of one); null for any other subject. */
function subjectProject(subject: unknown): number | null {
  if (typeof subject !== 'object' || subject === null) return null;
  const project = 'project' in subject ? (subject as { project: unknown }).project : subject;
  const isProject = typeof project === 'object' && project !== null && 'namespace' in project && 'visibility' in project && 'id' in project;
  return isProject ? (project as { id: number }).id : null;
}

/** For a CI job token: the project a subject belongs to when it is one other than the job's own (its inbound scope decides). */
function jobTarget(job: NonNullable<Viewer['job']>, subject: unknown): number | null {
  const id = subjectProject(subject);
  return id === job.projectId ? null : id;
}

const ANONYMOUS = actorWithoutMemberships(null);

/**
 * GitLab's Ci::JobToken::Scope#accessible?: a CI job token reaches its own project, and another only when that
 * project's inbound scope lets the job's project in (as far as the request has asked: the actor's `jobReach`; as a
 * filter: the scope is off, or the allowlist names the job's project or a group above it).
 */
const jobTokenScope: Rule<ProjectSubject, Prisma.ProjectWhereInput> = {
  allows(actor, project) {
    const job = actor.viewer?.job;
    return !job || project.id === job.projectId || !!actor.jobReach?.has(project.id);
  },
  where(actor) {
    const job = actor.viewer?.job;
    if (!job) return true;
    return {
      OR: [
        { id: job.projectId },
        { ciCdSettings: { is: { inboundJobTokenScopeEnabled: false } } },
        { jobTokenProjectScopeLinks: { some: { targetProjectId: job.projectId, direction: 'inbound' } } },
        { jobTokenGroupScopeLinks: { some: { targetGroupId: { in: [...job.namespaceIds] } } } },
      ],
    };
  },
};

/**
 * The one check: may this actor do this to this subject? A CI job token acts for its job's user only on the projects
 * its scope reaches (GitLab's ProjectPolicy prevents everything elsewhere); on what belongs to no project (users,
 * groups, runners, tokens) it is nobody, as GitLab reads a job token nowhere else.
 */
export function can<A extends Ability>(actor: Actor, ability: A, subject: SubjectOf<A>): boolean {
  const rule = RULES[ability] as Rule<SubjectOf<A>, unknown>;
  if (!actor.viewer?.job) return rule.allows(actor, subject);
  const project = subjectProject(subject);
  if (project === null) return rule.allows(ANONYMOUS, subject);
  return jobTokenScope.allows(actor, { id: project } as ProjectSubject) && rule.allows(actor, subject);
}

/** The same rule as a filter for a list query of the subject's model. */
export function allowedWhere<A extends Ability>(actor: Actor, ability: A): WhereOf<A> {
  const rule = RULES[ability] as Rule<unknown, WhereOf<A>>;
  if (!actor.viewer?.job) return allowedOrNone(rule.where(actor));
  if (!rule.onProjects) return allowedOrNone(rule.where(ANONYMOUS));
  return allowedOrNone(allOf(rule, jobTokenScope as Rule<unknown, WhereOf<A>>).where(actor));
}

/** Where a request's Access loads what its checks need. */
export interface AccessSource {
  memberships(userId: number): Promise<Memberships>;
  ancestors(userId: number): Promise<ReadonlySet<number>>;
  /** Whether the project's inbound job token scope lets the job's token in (src/auth/job-tokens.ts). */
  jobTokenReaches(job: NonNullable<Viewer['job']>, projectId: number): Promise<boolean>;
}

/**
 * A request's view of the policy: the viewer, with their memberships loaded once (on the first question that
 * needs them). Services hold one and ask it; GraphQL subscriptions hold an `Actor` and call `can` directly.
 */
export class Access {
  private loading: Promise<Actor> | undefined;
  /** The actor once its memberships are in: later checks answer synchronously. */
  private loaded: Actor | undefined;
  private loadingAncestors: Promise<Actor> | undefined;
  /** For a CI job token: the other projects being asked about, those decided, and those whose inbound scope let the job in. */
  private readonly jobAsking = new Map<number, Promise<void>>();
  private readonly jobDecided = new Set<number>();
  private readonly jobReach = new Set<number>();

  constructor(
    readonly viewer: Viewer | null,
    private readonly source: AccessSource,
  ) {
    if (!viewer) this.loaded = actorWithoutMemberships(null);
  }

  /** The actor, with what `ability` needs loaded (memberships; ancestors for NEEDS_ANCESTORS). */
  actor(ability?: Ability): Promise<Actor> {
    const viewer = this.viewer;
    const loaded = this.loaded;
    const ancestors = ability !== undefined && NEEDS_ANCESTORS.has(ability);
    if (loaded && (!ancestors || loaded.ancestors || !viewer)) return Promise.resolve(loaded);
    if (!viewer) return Promise.resolve(actorWithoutMemberships(null));
    const jobReach = viewer.job ? { jobReach: this.jobReach } : {};
    const base = (this.loading ??= this.source.memberships(viewer.id).then((memberships) => (this.loaded = { ...this.loaded, viewer, memberships, ...jobReach })));
    if (!ancestors) return base;
    return (this.loadingAncestors ??= Promise.all([base, this.source.ancestors(viewer.id)]).then(
      ([actor, found]) => (this.loaded = { ...actor, ancestors: found }),
    ));
  }

  /** The signed-in viewer; UNAUTHENTICATED for anonymous callers (GitLab's `authenticate!`). */
  requireViewer(): Viewer {
    if (!this.viewer) throw unauthenticated();
    return this.viewer;
  }

  /** A global ability (no subject), decided without loading memberships. */
  allowed(ability: GlobalAbility): boolean {
    return can(actorWithoutMemberships(this.viewer), ability, null);
  }

  async can<A extends SubjectAbility>(ability: A, subject: SubjectOf<A>): Promise<boolean> {
    return this.check(ability, subject);
  }

  /**
   * Any ability; memberships are loaded only for one asked about a subject. Synchronous once they are loaded
   * (as they are after a list's filter), so a field shown by ability costs a list no promise per row.
   */
  check<A extends Ability>(ability: A, subject: SubjectOf<A>): boolean | Promise<boolean> {
    if (subject === null) return can(actorWithoutMemberships(this.viewer), ability, subject);
    const job = this.viewer?.job;
    const target = job ? jobTarget(job, subject) : null;
    if (job && target !== null && !this.jobDecided.has(target)) return this.askJobScope(job, target).then(() => this.check(ability, subject));
    const loaded = this.loaded;
    if (loaded && (loaded.ancestors || !NEEDS_ANCESTORS.has(ability))) return can(loaded, ability, subject);
    if (!NEEDS_ANCESTORS.has(ability)) return this.actor(ability).then((actor) => can(actor, ability, subject));
    // Ancestors only ever grant: they cost their query only when memberships (and the rest) do not allow it already.
    if (loaded && can(loaded, ability, subject)) return true;
    return this.actor().then((actor) => can(actor, ability, subject) || this.actor(ability).then((full) => can(full, ability, subject)));
  }

  /** Asks once per request whether the project's inbound job token scope lets the job in (the source batches the asking). */
  private askJobScope(job: NonNullable<Viewer['job']>, target: number): Promise<void> {
    let asking = this.jobAsking.get(target);
    if (!asking) {
      asking = this.source.jobTokenReaches(job, target).then((reaches) => {
        if (reaches) this.jobReach.add(target);
        this.jobDecided.add(target);
      });
      this.jobAsking.set(target, asking);
    }
    return asking;
  }

  /** Throws unless allowed: UNAUTHENTICATED for anonymous callers, FORBIDDEN for others. */
  async authorize<A extends Ability>(ability: A, subject: SubjectOf<A>): Promise<void> {
    if (await this.check(ability, subject)) return;
    throw this.viewer ? forbidden() : unauthenticated();
  }

  /**
   * GitLab's rule for granting a level on a project: whoever may admin its members may grant up to Maintainer;
   * Owner only those who may manage owners.
   */
  async authorizeGrant(project: ProjectSubject, level: number): Promise<void> {
    await this.authorize('admin_project_member', project);
    if (level >= OWNER) await this.authorize('manage_owners', project);
  }

  /** The ability as a list filter. */
  async where<A extends SubjectAbility>(ability: A): Promise<WhereOf<A>> {
    return allowedWhere(await this.actor(ability), ability);
  }

  /** Namespaces where the viewer holds the level directly (their personal one, groups they are a member of): "my namespaces". */
  async heldNamespacesWhere(filter: MembershipFilter = {}): Promise<Prisma.NamespaceWhereInput> {
    const actor = await this.actor();
    const viewer = this.requireViewer();
    return { OR: [{ kind: 'user', ownerId: viewer.id }, { id: { in: heldAtLeast(actor.memberships.groups, minimumLevel(filter)) } }] };
  }

  /** Groups where the viewer holds the level, directly or through an ancestor group. */
  async memberGroupsWhere(filter: MembershipFilter = {}): Promise<Prisma.NamespaceWhereInput> {
    this.requireViewer();
    return allowedOrNone(groupsOnly(namespaceMember(minimumLevel(filter))).where(await this.actor()));
  }

  /** The runners the viewer owns (GitLab's `ci_owned_runners`), as a list filter. */
  async ownedRunnersWhere(): Promise<Prisma.RunnerWhereInput> {
    this.requireViewer();
    return allowedOrNone(runnerOwner.where(await this.actor()));
  }

  /** Projects where the viewer holds the level: directly, through a group, or owning the personal namespace. */
  async memberProjectsWhere(filter: MembershipFilter = {}): Promise<Prisma.ProjectWhereInput> {
    this.requireViewer();
    return allowedOrNone(projectMember(minimumLevel(filter)).where(await this.actor()));
  }

  /** GitLab's Project#feature_available?(feature, user): whether the feature is on for the viewer (`issues_enabled`, `jobs_enabled`, …). */
  async featureAvailable(project: ProjectSubject, feature: ProjectFeatureName): Promise<boolean> {
    return featureAllowed(feature).allows(await this.actor(), project);
  }

  async namespaceLevel(ns: NamespaceSubject): Promise<number> {
    return namespaceLevel(await this.actor(), ns);
  }

  async projectLevel(project: ProjectSubject): Promise<number> {
    return projectLevel(await this.actor(), project);
  }

  async directProjectLevel(project: ProjectSubject): Promise<number> {
    return directProjectLevel(await this.actor(), project);
  }
}

/** "Member of" in a list filter: at least `minAccessLevel` (Guest by default), or Owner when `owned`. */
export interface MembershipFilter {
  owned?: boolean | null;
  minAccessLevel?: number | null;
}

function minimumLevel(filter: MembershipFilter): number {
  return filter.owned ? OWNER : (filter.minAccessLevel ?? GUEST);
}

function allowedOrNone<W>(where: W | boolean): W {
  if (where === true) return {} as W;
  // Every model has an `id`; no id is in the empty list. (Prisma reads an empty `OR` as no condition at all.)
  if (where === false) return { id: { in: [] } } as W;
  return where;
}
