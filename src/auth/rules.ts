/**
 * The parts policies are built from: who the actor is (memberships, levels), the subjects abilities are asked
 * about, and rules (a check for one subject and the same rule as a list filter) with the combinators that join
 * them. `src/auth/policy.ts` names GitLab's abilities from these; a domain module's `policy.ts` names its own the
 * same way and the one table in policy.ts takes them in.
 */
import type { Prisma } from '../db/database.js';
import { AccessLevel, humanAccessLevel } from './access-levels.js';
import { FEATURE_COLUMNS, defaultFeatureLevels, featureLevel, requiredMinimumAccessLevel, type ProjectFeatureLevels, type ProjectFeatureName } from './project-features.js';
import type { Viewer } from './viewer.js';

export interface Memberships {
  groups: ReadonlyMap<number, number>;
  projects: ReadonlyMap<number, number>;
  /**
   * Levels granted by shares (GitLab's group_group_links and project_group_links), already the lesser of the share's
   * level and the user's own in the invited group: by shared group (its descendants inherit it) and by shared project.
   */
  sharedGroups?: ReadonlyMap<number, number>;
  sharedProjects?: ReadonlyMap<number, number>;
  /**
   * Top-level groups where the user holds Minimal Access: kept apart from `groups`, so that no rule reading levels
   * counts them (they grant nothing on a group's subgroups and projects); only `minimalAccessMember` reads them.
   */
  minimalGroups?: ReadonlySet<number>;
}

/** The viewer with the memberships their abilities depend on. */
export interface Actor {
  viewer: Viewer | null;
  memberships: Memberships;
  /**
   * Every namespace on the path to a group or project the user is a member of (their own groups included), for
   * the abilities whose rules need them (Rule.needsAncestors); absent, those abilities count on direct and inherited memberships only.
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
  /** Non-Reporters who see the project see its jobs (GitLab's public_builds); absent counts as true. */
  publicJobs?: boolean;
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
    publicJobs: project.publicJobs,
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
  /** The job's deployment is older than its environment's last (Ci::Deployable#has_outdated_deployment?). */
  outdatedDeployment?: boolean;
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

export const NO_MEMBERSHIPS: Memberships = { groups: new Map(), projects: new Map() };

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

/** GitLab's `project.team.human_max_access(user).downcase`: the name of the actor's level on a project (`developer`), or null without one. */
export function humanProjectAccess(actor: Actor, project: ProjectSubject): string | null {
  const level = projectLevel(actor, project);
  return level > AccessLevel.NO_ACCESS ? humanAccessLevel(level).toLowerCase() : null;
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

export function heldAtLeast(levels: ReadonlyMap<number, number>, min: number, shared?: ReadonlyMap<number, number>): number[] {
  const ids = [...levels].filter(([, level]) => level >= min).map(([id]) => id);
  if (shared) for (const [id, level] of shared) if (level >= min) ids.push(id);
  return ids;
}

/** A rule: a check for one subject, and the same rule as a list filter (true: all rows; false: none). */
export interface Rule<S, W> {
  allows(actor: Actor, subject: S): boolean;
  where(actor: Actor): W | boolean;
  /** A rule about projects (its filter is one of projects): a CI job token's allowlist applies to it. */
  onProjects?: boolean;
  /** It reads the actor's ancestors (Actor.ancestors), which are then loaded for it; it may only grant through them, never deny. */
  needsAncestors?: boolean;
}

/** Rules joined by OR (any of them) or AND (all of them), as the check for one subject and as the list filter. */
export function joined<S, W>(join: 'OR' | 'AND', rules: Rule<S, W>[]): Rule<S, W> {
  const any = join === 'OR';
  return {
    onProjects: rules.some((r) => r.onProjects),
    needsAncestors: rules.some((r) => r.needsAncestors),
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

export function anyOf<S, W>(...rules: Rule<S, W>[]): Rule<S, W> {
  return joined('OR', rules);
}

/** Every rule at once. */
export function allOf<S, W>(...rules: Rule<S, W>[]): Rule<S, W> {
  return joined('AND', rules);
}

export const signedInInternal = (actor: Actor) => !!actor.viewer && !actor.viewer.external;

/** Public to everyone; internal to every signed-in user who is not external. */
export function visible<W>(): Rule<{ visibility: string }, W> {
  return {
    allows: (actor, s) => s.visibility === 'public' || (s.visibility === 'internal' && signedInInternal(actor)),
    where: (actor) => ({ visibility: { in: signedInInternal(actor) ? ['public', 'internal'] : ['public'] } }) as W,
  };
}

/** Administrators (GitLab's `admin_all_resources`; this server has no admin mode). */
export const administrator: Rule<unknown, never> = {
  allows: (actor) => !!actor.viewer?.admin,
  where: (actor) => !!actor.viewer?.admin,
};

export function namespaceMember(min: number): Rule<NamespaceSubject, Prisma.NamespaceWhereInput> {
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

export function projectMember(min: number): Rule<ProjectSubject, Prisma.ProjectWhereInput> {
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
export const memberBelow: Rule<NamespaceSubject, Prisma.NamespaceWhereInput> = {
  needsAncestors: true,
  allows: (actor, ns) => !!actor.ancestors?.has(ns.id),
  where: (actor) => (actor.ancestors?.size ? { id: { in: [...actor.ancestors] } } : false),
};

/**
 * GitLab EE's Minimal Access: a member of a top-level group at that level may see the group itself (and is listed
 * among its members), nothing inside it.
 */
export const minimalAccessMember: Rule<NamespaceSubject, Prisma.NamespaceWhereInput> = {
  allows: (actor, ns) => !!actor.viewer && !!actor.memberships.minimalGroups?.has(ns.id),
  where: (actor) => (actor.viewer && actor.memberships.minimalGroups?.size ? { id: { in: [...actor.memberships.minimalGroups] } } : false),
};

export function groupsOnly<W, S extends NamespaceSubject = NamespaceSubject>(rule: Rule<S, W>): Rule<S, W> {
  return {
    needsAncestors: rule.needsAncestors,
    allows: (actor, ns) => ns.kind === 'group' && rule.allows(actor, ns),
    where: (actor) => {
      const w = rule.where(actor);
      return w === false ? false : ({ AND: [{ kind: 'group' }, ...(w === true ? [] : [w])] } as W);
    },
  };
}

export const groupCreator: Rule<null, never> = {
  allows: (actor) => !!actor.viewer?.canCreateGroup,
  where: (actor) => !!actor.viewer?.canCreateGroup,
};

const { GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER } = AccessLevel;

/** A group's Owners (and administrators): GroupPolicy's admin_group, remove_group and admin_group_member. */
export const groupOwners = groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(OWNER)));
export const adminGroupMember = groupOwners;
export const adminProjectMember = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER));
export const manageOwners = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(OWNER));

/** GitLab's `rule { archived }.prevent(*archived_abilities)`: nobody, administrators included, writes to an archived project. */
export function unlessArchived(rule: Rule<ProjectSubject, Prisma.ProjectWhereInput>): Rule<ProjectSubject, Prisma.ProjectWhereInput> {
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
export function featureAt(feature: ProjectFeatureName, levels: string[]): Prisma.ProjectWhereInput {
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
export function featureAllowed(feature: ProjectFeatureName, unlessDisabled = false): Rule<ProjectSubject, Prisma.ProjectWhereInput> {
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
export const repositoryFeature = featureAllowed('repository');
/** Jobs, their logs and pipeline schedules: GitLab's `builds_disabled | repository_disabled` prevents them. */
export const buildsFeature = allOf(repositoryFeature, featureAllowed('builds'));
/** Pipelines: GitLab's `(builds_disabled & ~internal_builds_disabled) | repository_disabled` prevents them. */
export const pipelinesFeature = allOf(repositoryFeature, featureAllowed('builds', true));

/** ProjectPolicy's `owner_access`: the project's Owners and administrators (those who manage owners). */
export const projectOwner = manageOwners;

/** The project's public_builds setting: those below Reporter see its jobs only while it is on. */
const publicJobs: Rule<ProjectSubject, Prisma.ProjectWhereInput> = { allows: (_actor, project) => project.publicJobs !== false, where: () => ({ publicJobs: true }) };
/** ProjectPolicy's read_build: Reporters and up; Guests and, on projects they see, everyone else while public_builds is on. */
export const readBuild = allOf(
  anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER), allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), projectMember(GUEST)), publicJobs)),
  buildsFeature,
);
export const updateBuild = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), buildsFeature);

export const pushCode = unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), repositoryFeature));
export const adminBuild = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)), buildsFeature);
