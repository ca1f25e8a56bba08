/**
 * Who may do what, in GitLab's ability names: `can(actor, 'read_project', project)`. Each rule is written once
 * and gives both the check for one object and the filter for a list (a Prisma `where`), so a list never shows
 * what a lookup would hide. Services ask abilities through a request's `Access`; nothing else compares levels
 * or reads the admin flag.
 */
import type { Prisma } from '../db/database.js';
import { forbidden, unauthenticated } from '../errors.js';
import { AccessLevel } from './access-levels.js';
import { FEATURE_COLUMNS, defaultFeatureLevels, featureLevel, requiredMinimumAccessLevel, type ProjectFeatureLevels, type ProjectFeatureName } from './project-features.js';
import type { Viewer } from './viewer.js';

/** Direct memberships of one user: group (namespace) id or project id to access level. */
export interface Memberships {
  groups: ReadonlyMap<number, number>;
  projects: ReadonlyMap<number, number>;
  /**
   * Levels granted by shares (GitLab's group_group_links and project_group_links), already the lesser of the share's
   * level and the user's own in the invited group: by shared group (its descendants inherit it) and by shared project.
   */
  sharedGroups?: ReadonlyMap<number, number>;
  sharedProjects?: ReadonlyMap<number, number>;
}

/** The viewer with the memberships their abilities depend on. */
export interface Actor {
  viewer: Viewer | null;
  memberships: Memberships;
  /**
   * Every namespace on the path to a group or project the user is a member of (their own groups included), for
   * the abilities in NEEDS_ANCESTORS; absent, those abilities count on direct and inherited memberships only.
   */
  ancestors?: ReadonlySet<number>;
  /**
   * For a CI job token: the projects besides its own whose inbound job token scope lets the job in (src/auth/job-tokens.ts),
   * as far as the request has asked; absent, the job reaches its own project only.
   */
  jobReach?: ReadonlySet<number>;
}

/** What deciding access to a namespace (personal or group) needs. */
export interface NamespaceSubject {
  id: number;
  kind: string;
  visibility: string;
  ownerId: number | null;
  traversalIds: number[];
}

/** A group with the settings that decide who may create projects and subgroups in it. */
export interface GroupSettingsSubject extends NamespaceSubject {
  projectCreationLevel: string;
  subgroupCreationLevel: string;
}

export interface ProjectSubject {
  id: number;
  visibility: string;
  /** An archived project refuses writes (GitLab's ProjectPolicy `archived` rule); absent counts as not archived. */
  archived?: boolean;
  /** Its feature levels (GitLab's project_features, src/auth/project-features.ts); absent or null: GitLab's defaults. */
  features?: ProjectFeatureLevels | null;
  namespace: NamespaceSubject;
}

/**
 * Only what deciding access to a project reads, copied out of its row: for what keeps a subject long (a live
 * subscription checks it on every message), so that it does not keep the whole row and its namespace's owner.
 */
export function projectSubject(project: ProjectSubject): ProjectSubject {
  const { namespace } = project;
  return {
    id: project.id,
    visibility: project.visibility,
    archived: project.archived,
    features: project.features,
    namespace: { id: namespace.id, kind: namespace.kind, visibility: namespace.visibility, ownerId: namespace.ownerId, traversalIds: namespace.traversalIds },
  };
}

export interface UserSubject {
  id: number;
}

/** One access level of a protected ref (a protected branch's push, merge or unprotect level) on its project. */
export interface ProtectedRefAccessSubject {
  project: ProjectSubject;
  accessLevel: number;
}

/** A job's log on its project: debug-mode logs (CI_DEBUG_TRACE, CI_DEBUG_SERVICES) may show secrets. */
export interface BuildTraceSubject {
  project: ProjectSubject;
  debugMode: boolean;
}

/** What owns CI/CD variables below the instance: a project or a group. */
export type CiVariablesOwnerSubject = { project: ProjectSubject } | { group: NamespaceSubject };

/** A pipeline schedule, by its project and the user it runs as. */
export interface PipelineScheduleSubject {
  project: ProjectSubject;
  ownerId: number | null;
}

/**
 * A branch or tag of a project (a pipeline's or a job's ref), with the access levels of the protected branch rules
 * that cover it (what GitLab's Gitlab::UserAccess reads): `protection` is null when no rule covers the ref. Tags are
 * never protected here (this server has no protected tags), so a tag's is always null.
 */
export interface RefSubject {
  project: ProjectSubject;
  protection: { push: readonly number[]; merge: readonly number[] } | null;
}

/** A job, by its project, its ref and the user who ran it (Ci::BuildPolicy's `owner_of_job`). */
export interface JobSubject extends RefSubject {
  userId: number | null;
}

/** A pipeline trigger token, by its project and its owner (Ci::TriggerPolicy). */
export interface TriggerSubject {
  project: ProjectSubject;
  ownerId: number | null;
}

/** A user whose profile (activity, contributions) may be private. */
export interface ProfileSubject extends UserSubject {
  privateProfile: boolean;
}

/** A direct membership of a group, with what GitLab's GroupMemberPolicy reads. */
export interface GroupMemberSubject {
  group: NamespaceSubject;
  userId: number;
  /** Whether the member is the group's last Owner (GroupMember#last_owner_of_the_group?): nobody may change or remove them. */
  lastOwner: boolean;
}

/** A direct membership of a project, with what GitLab's ProjectMemberPolicy and member services read. */
export interface ProjectMemberSubject {
  project: ProjectSubject;
  userId: number;
  accessLevel: number;
}

/** A personal access token, by its owner. */
export interface TokenSubject {
  userId: number;
}

/** A runner, with what deciding access to it needs: the group of a group runner, the projects of a project runner. */
export interface RunnerSubject {
  runnerType: string;
  locked: boolean;
  group: NamespaceSubject | null;
  projects: readonly ProjectSubject[];
}

const NO_MEMBERSHIPS: Memberships = { groups: new Map(), projects: new Map() };

/** An actor who holds no memberships (anonymous callers, and checks that never depend on them). */
export function actorWithoutMemberships(viewer: Viewer | null): Actor {
  return { viewer, memberships: NO_MEMBERSHIPS };
}

/** The viewer's effective level in a namespace: owner of a personal one, else the highest membership up the group tree. */
export function namespaceLevel(actor: Actor, ns: NamespaceSubject): number {
  const viewer = actor.viewer;
  if (!viewer) return AccessLevel.NO_ACCESS;
  if (ns.kind === 'user') return ns.ownerId === viewer.id ? AccessLevel.OWNER : AccessLevel.NO_ACCESS;
  const { groups, sharedGroups } = actor.memberships;
  return Math.max(
    AccessLevel.NO_ACCESS,
    ...ns.traversalIds.map((id) => Math.max(groups.get(id) ?? AccessLevel.NO_ACCESS, sharedGroups?.get(id) ?? AccessLevel.NO_ACCESS)),
  );
}

/** The viewer's effective level on a project: direct membership, a share with one of their groups, or inherited from its namespace. */
export function projectLevel(actor: Actor, project: ProjectSubject): number {
  const { projects, sharedProjects } = actor.memberships;
  return Math.max(
    projects.get(project.id) ?? AccessLevel.NO_ACCESS,
    sharedProjects?.get(project.id) ?? AccessLevel.NO_ACCESS,
    namespaceLevel(actor, project.namespace),
  );
}

/** The viewer's own level on the project through a direct membership only. */
export function directProjectLevel(actor: Actor, project: ProjectSubject): number {
  return actor.memberships.projects.get(project.id) ?? AccessLevel.NO_ACCESS;
}

function heldAtLeast(levels: ReadonlyMap<number, number>, min: number, shared?: ReadonlyMap<number, number>): number[] {
  const ids = [...levels].filter(([, level]) => level >= min).map(([id]) => id);
  if (shared) for (const [id, level] of shared) if (level >= min) ids.push(id);
  return ids;
}

/** A rule: a check for one subject, and the same rule as a list filter (true: all rows; false: none). */
interface Rule<S, W> {
  allows(actor: Actor, subject: S): boolean;
  where(actor: Actor): W | boolean;
  /** A rule about projects (its filter is one of projects): a CI job token's allowlist applies to it. */
  onProjects?: boolean;
}

/** Rules joined by OR (any of them) or AND (all of them), as the check for one subject and as the list filter. */
function joined<S, W>(join: 'OR' | 'AND', rules: Rule<S, W>[]): Rule<S, W> {
  const any = join === 'OR';
  return {
    onProjects: rules.some((r) => r.onProjects),
    allows: (actor, subject) => (any ? rules.some((r) => r.allows(actor, subject)) : rules.every((r) => r.allows(actor, subject))),
    where(actor) {
      const parts = rules.map((r) => r.where(actor));
      // Under OR a rule allowing every row decides, under AND one allowing none; the opposite adds nothing.
      if (parts.includes(any)) return any;
      const filters = parts.filter((p): p is W => p !== !any);
      return filters.length === 0 ? !any : filters.length === 1 ? filters[0] : ({ [join]: filters } as W);
    },
  };
}

function anyOf<S, W>(...rules: Rule<S, W>[]): Rule<S, W> {
  return joined('OR', rules);
}

/** Every rule at once. */
function allOf<S, W>(...rules: Rule<S, W>[]): Rule<S, W> {
  return joined('AND', rules);
}

const signedInInternal = (actor: Actor) => !!actor.viewer && !actor.viewer.external;

/** Public to everyone; internal to every signed-in user who is not external. */
function visible<W>(): Rule<{ visibility: string }, W> {
  return {
    allows: (actor, s) => s.visibility === 'public' || (s.visibility === 'internal' && signedInInternal(actor)),
    where: (actor) => ({ visibility: { in: signedInInternal(actor) ? ['public', 'internal'] : ['public'] } }) as W,
  };
}

/** Administrators (GitLab's `admin_all_resources`; this server has no admin mode). */
const administrator: Rule<unknown, never> = {
  allows: (actor) => !!actor.viewer?.admin,
  where: (actor) => !!actor.viewer?.admin,
};

function namespaceMember(min: number): Rule<NamespaceSubject, Prisma.NamespaceWhereInput> {
  return {
    allows: (actor, ns) => namespaceLevel(actor, ns) >= min,
    where(actor) {
      const viewer = actor.viewer;
      if (!viewer) return false;
      // The owner of a personal namespace holds Owner on it, the highest level.
      const { groups, sharedGroups } = actor.memberships;
      return { OR: [{ traversalIds: { hasSome: heldAtLeast(groups, min, sharedGroups) } }, { kind: 'user', ownerId: viewer.id }] };
    },
  };
}

function projectMember(min: number): Rule<ProjectSubject, Prisma.ProjectWhereInput> {
  return {
    onProjects: true,
    allows: (actor, project) => projectLevel(actor, project) >= min,
    where(actor) {
      const viewer = actor.viewer;
      if (!viewer) return false;
      const { groups, projects, sharedGroups, sharedProjects } = actor.memberships;
      return {
        OR: [
          { id: { in: heldAtLeast(projects, min, sharedProjects) } },
          { namespace: { traversalIds: { hasSome: heldAtLeast(groups, min, sharedGroups) } } },
          { namespace: { kind: 'user', ownerId: viewer.id } },
        ],
      };
    },
  };
}

/**
 * GitLab's `has_projects` and descendant access: a member of a group's subgroup or of a project inside it may read
 * the group (its name and path; what the group holds is filtered by each item's own rule).
 */
const memberBelow: Rule<NamespaceSubject, Prisma.NamespaceWhereInput> = {
  allows: (actor, ns) => !!actor.ancestors?.has(ns.id),
  where: (actor) => (actor.ancestors?.size ? { id: { in: [...actor.ancestors] } } : false),
};

function groupsOnly<W, S extends NamespaceSubject = NamespaceSubject>(rule: Rule<S, W>): Rule<S, W> {
  return {
    allows: (actor, ns) => ns.kind === 'group' && rule.allows(actor, ns),
    where: (actor) => {
      const w = rule.where(actor);
      return w === false ? false : ({ AND: [{ kind: 'group' }, ...(w === true ? [] : [w])] } as W);
    },
  };
}

const self: Rule<UserSubject, Prisma.UserWhereInput> = {
  allows: (actor, user) => actor.viewer?.id === user.id,
  where: (actor) => (actor.viewer ? { id: actor.viewer.id } : false),
};

const publicProfile: Rule<ProfileSubject, Prisma.UserWhereInput> = {
  allows: (_actor, user) => !user.privateProfile,
  where: () => ({ privateProfile: false }),
};

const tokenOwner: Rule<TokenSubject, Prisma.PersonalAccessTokenWhereInput> = {
  allows: (actor, token) => actor.viewer?.id === token.userId,
  where: (actor) => (actor.viewer ? { userId: actor.viewer.id } : false),
};

/**
 * GitLab's project_creation_level: who may create projects in a group (administrators too, except under `noone`);
 * in a personal namespace, its owner.
 */
const projectCreator: Rule<GroupSettingsSubject, Prisma.NamespaceWhereInput> = {
  allows(actor, ns) {
    if (ns.kind === 'user') return namespaceLevel(actor, ns) >= OWNER;
    const level = ns.projectCreationLevel;
    if (level === 'noone') return false;
    if (actor.viewer?.admin) return true;
    const min = PROJECT_CREATION_MINIMUM[level];
    return min !== undefined && namespaceLevel(actor, ns) >= min;
  },
  where(actor) {
    const viewer = actor.viewer;
    if (!viewer) return false;
    const or: Prisma.NamespaceWhereInput[] = [{ kind: 'user', ownerId: viewer.id }];
    if (viewer.admin) or.push({ kind: 'group', projectCreationLevel: { not: 'noone' } });
    else {
      for (const [level, min] of Object.entries(PROJECT_CREATION_MINIMUM)) {
        or.push({ kind: 'group', projectCreationLevel: level, traversalIds: { hasSome: heldAtLeast(actor.memberships.groups, min, actor.memberships.sharedGroups) } });
      }
    }
    return { OR: or };
  },
};

/** GitLab's subgroup_creation_level: Owners, and Maintainers when the group lets them. */
const subgroupCreator: Rule<GroupSettingsSubject, Prisma.NamespaceWhereInput> = {
  allows: (actor, ns) => namespaceLevel(actor, ns) >= (ns.subgroupCreationLevel === 'maintainer' ? MAINTAINER : OWNER),
  where(actor) {
    if (!actor.viewer) return false;
    const { groups, sharedGroups } = actor.memberships;
    return {
      OR: [
        { traversalIds: { hasSome: heldAtLeast(groups, OWNER, sharedGroups) } },
        { subgroupCreationLevel: 'maintainer', traversalIds: { hasSome: heldAtLeast(groups, MAINTAINER, sharedGroups) } },
      ],
    };
  },
};

const groupCreator: Rule<null, never> = {
  allows: (actor) => !!actor.viewer?.canCreateGroup,
  where: (actor) => !!actor.viewer?.canCreateGroup,
};

const { GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER } = AccessLevel;

/** The level each project_creation_level asks of a member (`administrator`: none is enough). */
const PROJECT_CREATION_MINIMUM: Readonly<Record<string, number>> = { owner: OWNER, maintainer: MAINTAINER, developer: DEVELOPER };

/**
 * GitLab's owned runners (User#ci_owned_runners): group runners of groups the user owns (subgroups included), and
 * project runners of projects the user maintains.
 */
const runnerOwner: Rule<RunnerSubject, Prisma.RunnerWhereInput> = {
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

/**
 * GitLab's ProtectedRefAccess#check_access: "No one" lets nobody through, "Admins" only administrators, any other
 * level the members holding it on the project (administrators get no pass there, as in GitLab). Asked about one
 * ref at a time, never as a list filter.
 */
const protectedRefAccess: Rule<ProtectedRefAccessSubject, never> = {
  allows(actor, { project, accessLevel }) {
    if (!actor.viewer || accessLevel === AccessLevel.NO_ACCESS) return false;
    if (accessLevel === AccessLevel.ADMIN) return actor.viewer.admin;
    return projectLevel(actor, project) >= accessLevel;
  },
  where: () => false,
};

/**
 * GitLab's admin_cicd_variables, which its ProjectPolicy grants Maintainers and its GroupPolicy Owners (GitLab's
 * custom roles, which may grant it to others, do not exist here). Asked about one owner at a time, never as a list
 * filter.
 */
const cicdVariablesAdmin: Rule<CiVariablesOwnerSubject, never> = {
  allows: (actor, owner) => ('project' in owner ? projectLevel(actor, owner.project) >= MAINTAINER : owner.group.kind === 'group' && namespaceLevel(actor, owner.group) >= OWNER),
  where: () => false,
};

/**
 * Ci::PipelineSchedulePolicy's `owner_of_schedule & can?(:update_build)`: the schedule's owner while they are a
 * Developer or above. Asked about one schedule at a time, never as a list filter.
 */
const scheduleOwner: Rule<PipelineScheduleSubject, never> = {
  allows: (actor, schedule) => !!actor.viewer && schedule.ownerId === actor.viewer.id && projectLevel(actor, schedule.project) >= DEVELOPER,
  where: () => false,
};

/** A rule about a schedule's project (`can?(:admin_pipeline)` in Ci::PipelineSchedulePolicy). */
function onScheduleProject(rule: Rule<ProjectSubject, unknown>): Rule<PipelineScheduleSubject, never> {
  return { allows: (actor, schedule) => rule.allows(actor, schedule.project), where: () => false };
}

/** A group's Owners (and administrators): GroupPolicy's admin_group, remove_group and admin_group_member. */
const groupOwners = groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(OWNER)));
const adminGroupMember = groupOwners;
const adminProjectMember = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER));
const manageOwners = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(OWNER));

/**
 * GroupMemberPolicy's update_group_member and destroy_group_member: those who administer the group's members, and
 * for removal the member themselves (leaving); never the last Owner. Asked about one membership, never as a list filter.
 */
function groupMembership(memberMayLeave: boolean): Rule<GroupMemberSubject, never> {
  return {
    allows: (actor, m) => !m.lastOwner && (adminGroupMember.allows(actor, m.group) || (memberMayLeave && actor.viewer?.id === m.userId)),
    where: () => false,
  };
}

/**
 * ProjectMemberPolicy's update_project_member and destroy_project_member, with Members::UpdateService's and
 * DestroyService's owner rule: Maintainers and up change members, a member may leave, the holder of a personal
 * project's namespace is never changed, and an Owner's membership only by those who manage owners.
 */
function projectMembership(memberMayLeave: boolean): Rule<ProjectMemberSubject, never> {
  return {
    allows(actor, m) {
      const { namespace } = m.project;
      if (namespace.kind === 'user' && namespace.ownerId === m.userId) return false;
      if (m.accessLevel >= OWNER && !manageOwners.allows(actor, m.project)) return false;
      return adminProjectMember.allows(actor, m.project) || (memberMayLeave && actor.viewer?.id === m.userId);
    },
    where: () => false,
  };
}

/** GitLab's `rule { archived }.prevent(*archived_abilities)`: nobody, administrators included, writes to an archived project. */
function unlessArchived(rule: Rule<ProjectSubject, Prisma.ProjectWhereInput>): Rule<ProjectSubject, Prisma.ProjectWhereInput> {
  return {
    onProjects: true,
    allows: (actor, project) => !project.archived && rule.allows(actor, project),
    where: (actor) => {
      const w = rule.where(actor);
      return w === false ? false : { AND: [{ archived: false }, ...(w === true ? [] : [w])] };
    },
  };
}

/** Projects whose feature stands at one of these levels (a project without its row of features counts at GitLab's default). */
function featureAt(feature: ProjectFeatureName, levels: string[]): Prisma.ProjectWhereInput {
  const column = FEATURE_COLUMNS[feature];
  const atLevel: Prisma.ProjectWhereInput = { features: { is: { [column]: { in: levels } } } };
  // Only features whose default does not depend on the project's visibility reach here (never pages).
  return levels.includes(defaultFeatureLevels('private')[column]) ? { OR: [atLevel, { features: { is: null } }] } : atLevel;
}

/**
 * ProjectPolicy's access_allowed_to?(feature): a `disabled` feature is allowed to nobody (administrators and Owners
 * included), a `private` one to administrators and the members holding the feature's minimum level, an `enabled` one
 * to everyone (whom the ability's own rule then lets in or not). With `unlessDisabled`, a disabled feature allows
 * everyone: GitLab's pipelines stay readable when CI/CD is turned off (`builds_disabled & ~internal_builds_disabled`).
 */
function featureAllowed(feature: ProjectFeatureName, unlessDisabled = false): Rule<ProjectSubject, Prisma.ProjectWhereInput> {
  const members = projectMember(requiredMinimumAccessLevel(feature));
  const open = unlessDisabled ? ['disabled', 'enabled', 'public'] : ['enabled', 'public'];
  return {
    onProjects: true,
    allows(actor, project) {
      const level = featureLevel(project, feature);
      if (level === 'private') return !!actor.viewer?.admin || members.allows(actor, project);
      return open.includes(level);
    },
    where(actor) {
      const privateTo = actor.viewer?.admin ? true : members.where(actor);
      if (privateTo === false) return featureAt(feature, open);
      const privateRows = featureAt(feature, ['private']);
      return { OR: [featureAt(feature, open), privateTo === true ? privateRows : { AND: [privateRows, privateTo] }] };
    },
  };
}

/** GitLab's `repository_disabled`: the repository (code, pushes, forks, and CI/CD, which runs on it) hidden from the viewer. */
const repositoryFeature = featureAllowed('repository');
/** Jobs, their logs and pipeline schedules: GitLab's `builds_disabled | repository_disabled` prevents them. */
const buildsFeature = allOf(repositoryFeature, featureAllowed('builds'));
/** Pipelines: GitLab's `(builds_disabled & ~internal_builds_disabled) | repository_disabled` prevents them. */
const pipelinesFeature = allOf(repositoryFeature, featureAllowed('builds', true));

/** ProjectPolicy's `owner_access`: the project's Owners and administrators (those who manage owners). */
const projectOwner = manageOwners;

const readBuild = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)), buildsFeature);
const updateBuild = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), buildsFeature);

/**
 * GitLab's BuildPolicy read_build_trace: whoever reads the job reads its log, except that a job in debug mode shows
 * it only to those who may update builds (Developers and up). Asked about one job at a time, never as a list filter.
 */
const buildTrace: Rule<BuildTraceSubject, never> = {
  allows: (actor, { project, debugMode }) => readBuild.allows(actor, project) && (!debugMode || updateBuild.allows(actor, project)),
  where: () => false,
};

const pushCode = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), repositoryFeature);
const adminBuild = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)), buildsFeature);

/**
 * Gitlab::UserAccess#can_update_branch? (can_push_to_branch? or can_merge_to_branch?; can_create_tag? for a tag, which
 * no rule protects here): `push_code` on the project, and on a protected ref a push or merge level of a covering rule
 * (ProtectedRefAccess, which asks `push_code` too). Asked about one ref at a time, never as a list filter.
 */
const refUpdater: Rule<RefSubject, never> = {
  allows(actor, ref) {
    if (!pushCode.allows(actor, ref.project)) return false;
    if (!ref.protection) return true;
    const { project, protection } = ref;
    return [...protection.push, ...protection.merge].some((accessLevel) => protectedRefAccess.allows(actor, { project, accessLevel }));
  },
  where: () => false,
};

/**
 * A project ability asked of the project, or of one of its pipelines or jobs: Ci::PipelinePolicy and Ci::BuildPolicy
 * delegate to ProjectPolicy, then prevent it on a protected ref the viewer may not update (their `protected_ref`).
 * Asked about one subject at a time, never as a list filter.
 */
function onProtectedRef(rule: Rule<ProjectSubject, unknown>): Rule<ProjectSubject | RefSubject, never> {
  return {
    allows: (actor, subject) => ('protection' in subject ? rule.allows(actor, subject.project) && refUpdater.allows(actor, subject) : rule.allows(actor, subject)),
    where: () => false,
  };
}

/** Ci::BuildPolicy's job writes (`update_build`, asked of one job): none on a protected ref the viewer may not update. */
const jobWriter: Rule<JobSubject, never> = onProtectedRef(updateBuild);

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

/** GitLab's ability names, by the kind of subject they are asked about. */
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
