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
import { actorWithoutMemberships, allOf, administrator, anyOf, directProjectLevel, featureAllowed, groupCreator, groupsOnly, heldAtLeast, minimalAccessMember, namespaceLevel, namespaceMember, projectLevel, projectMember, type Actor, type Memberships, type NamespaceSubject, type ProjectSubject, type Rule } from './rules.js';

export type { Memberships, Actor, NamespaceSubject, GroupSettingsSubject, ProjectSubject, UserSubject, ProtectedRefAccessSubject, BuildTraceSubject, CiVariablesOwnerSubject, PipelineScheduleSubject, RefSubject, JobSubject, TriggerSubject, ProfileSubject, GroupMemberSubject, ProjectMemberSubject, TokenSubject, RunnerSubject, Rule } from './rules.js';
export { projectSubject, actorWithoutMemberships, namespaceLevel, projectLevel, directProjectLevel } from './rules.js';

const { GUEST, MINIMAL_ACCESS, OWNER } = AccessLevel;

/** GitLab's GlobalPolicy: abilities asked without a subject. */
const globalPolicy = {
  admin_all_resources: administrator as Rule<null, never>,
  create_group: anyOf<null, never>(administrator, groupCreator),
};
type GlobalPolicyRules = typeof globalPolicy;

/**
 * Every ability by GitLab's name, with its rule's type (which subject it is asked about, which list filter it
 * gives). Each domain module adds its subjects' abilities here from its `policy.ts` (declaration merging), and its
 * manifest hands the rules to `registerPolicy`: this folder names no domain.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Abilities extends GlobalPolicyRules {}

/** The rules, by ability: GlobalPolicy's, then each module's as src/modules/index.ts registers them. */
const RULES = new Map<string, Rule<unknown, unknown>>(Object.entries(globalPolicy) as [string, Rule<unknown, unknown>][]);

/** Takes a module's abilities into the one table; an ability defined twice is a programming error. */
export function registerPolicy(owner: string, policy: Readonly<Record<string, Rule<never, unknown>>>): void {
  for (const [name, rule] of Object.entries(policy)) {
    if (RULES.has(name)) throw new Error(`the ability ${name} of ${owner} is defined twice`);
    RULES.set(name, rule as Rule<unknown, unknown>);
  }
}

function ruleOf(ability: string): Rule<unknown, unknown> {
  const rule = RULES.get(ability);
  if (!rule) throw new Error(`no rule for the ability ${ability}: is its module registered?`);
  return rule;
}

/** Every ability's name, as registered. */
export function abilities(): Ability[] {
  return [...RULES.keys()] as Ability[];
}

export type Ability = keyof Abilities;
export type SubjectOf<A extends Ability> = Abilities[A] extends Rule<infer S, unknown> ? S : never;
type WhereOf<A extends Ability> = Abilities[A] extends Rule<unknown, infer W> ? W : never;
/** Abilities asked without a subject: they never depend on memberships. */
type GlobalAbility = { [A in Ability]: SubjectOf<A> extends null ? A : never }[Ability];
export type SubjectAbility = Exclude<Ability, GlobalAbility>;

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
 * Whether the ability's rule reads the actor's ancestors (Rule.needsAncestors): they are loaded, one query, only when
 * such an ability is asked and what is loaded does not already allow it.
 */
function needsAncestors(ability: string): boolean {
  return !!ruleOf(ability).needsAncestors;
}

/**
 * The one check: may this actor do this to this subject? A CI job token acts for its job's user only on the projects
 * its scope reaches (GitLab's ProjectPolicy prevents everything elsewhere); on what belongs to no project (users,
 * groups, runners, tokens) it is nobody, as GitLab reads a job token nowhere else.
 */
export function can<A extends Ability>(actor: Actor, ability: A, subject: SubjectOf<A>): boolean {
  const rule = ruleOf(ability) as Rule<SubjectOf<A>, unknown>;
  if (!actor.viewer?.job) return rule.allows(actor, subject);
  const project = subjectProject(subject);
  if (project === null) return rule.allows(ANONYMOUS, subject);
  return jobTokenScope.allows(actor, { id: project } as ProjectSubject) && rule.allows(actor, subject);
}

/** The same rule as a filter for a list query of the subject's model. */
export function allowedWhere<A extends Ability>(actor: Actor, ability: A): WhereOf<A> {
  const rule = ruleOf(ability) as Rule<unknown, WhereOf<A>>;
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

  /** The actor, with what `ability` needs loaded (memberships; ancestors where its rule needs them). */
  actor(ability?: Ability): Promise<Actor> {
    const viewer = this.viewer;
    const loaded = this.loaded;
    const ancestors = ability !== undefined && needsAncestors(ability);
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
    if (loaded && (loaded.ancestors || !needsAncestors(ability))) return can(loaded, ability, subject);
    if (!needsAncestors(ability)) return this.actor(ability).then((actor) => can(actor, ability, subject));
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
    const min = minimumLevel(filter);
    return { OR: [{ kind: 'user', ownerId: viewer.id }, { id: { in: [...heldAtLeast(actor.memberships.groups, min), ...minimalGroups(actor, min)] } }] };
  }

  /** Groups where the viewer holds the level, directly or through an ancestor group (Minimal Access: that group alone). */
  async memberGroupsWhere(filter: MembershipFilter = {}): Promise<Prisma.NamespaceWhereInput> {
    this.requireViewer();
    const min = minimumLevel(filter);
    const member = namespaceMember(min);
    const minimal = min <= MINIMAL_ACCESS || (!!filter.withMinimalAccess && !filter.owned && filter.minAccessLevel == null);
    return allowedOrNone(groupsOnly(minimal ? anyOf(member, minimalAccessMember) : member).where(await this.actor()));
  }

  /** A rule that is no ability of its own (a module's, such as the runners a user owns) as a list filter for the viewer. */
  async ruleWhere<W>(rule: Rule<never, W>): Promise<W> {
    return allowedOrNone(rule.where(await this.actor()));
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
  /** With neither of those: the groups where the viewer holds Minimal Access count too (EE's `authorized_groups(with_minimal_access: true)`). */
  withMinimalAccess?: boolean;
}

function minimumLevel(filter: MembershipFilter): number {
  return filter.owned ? OWNER : (filter.minAccessLevel ?? GUEST);
}

/** The groups where the actor holds Minimal Access, when a filter asks for that level or less. */
function minimalGroups(actor: Actor, min: number): number[] {
  return min <= MINIMAL_ACCESS ? [...(actor.memberships.minimalGroups ?? [])] : [];
}

function allowedOrNone<W>(where: W | boolean): W {
  if (where === true) return {} as W;
  // Every model has an `id`; no id is in the empty list. (Prisma reads an empty `OR` as no condition at all.)
  if (where === false) return { id: { in: [] } } as W;
  return where;
}
