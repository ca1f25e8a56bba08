/**
 * GitLab's ProtectedBranchPolicy and ProtectedRefAccess, and Gitlab::UserAccess on a ref.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, projectLevel, projectMember, pushCode, unlessArchived, type ProjectSubject, type ProtectedRefAccessSubject, type RefSubject, type Rule } from '../../auth/rules.js';

const { MAINTAINER } = AccessLevel;

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
 * Gitlab::UserAccess#can_update_branch? (can_push_to_branch? or can_merge_to_branch?; can_create_tag? for a tag, which
 * no rule protects here): `push_code` on the project, and on a protected ref a push or merge level of a covering rule
 * (ProtectedRefAccess, which asks `push_code` too). Asked about one ref at a time, never as a list filter.
 */
export const refUpdater: Rule<RefSubject, never> = {
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
export function onProtectedRef(rule: Rule<ProjectSubject, unknown>): Rule<ProjectSubject | RefSubject, never> {
  return {
    allows: (actor, subject) => ('protection' in subject ? rule.allows(actor, subject.project) && refUpdater.allows(actor, subject) : rule.allows(actor, subject)),
    where: () => false,
  };
}

/** ProtectedBranchPolicy's abilities, by name. */
export const protectedBranchPolicy = {
  admin_protected_branch: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  push_to_delete_protected_branch: unlessArchived(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER))),
  // ProtectedRefAccess: one push, merge or unprotect level of a protected branch.
  access_protected_ref: protectedRefAccess,
  // Creating a pipeline for a ref, and Ci::PipelineSchedulePolicy's `protected_ref`: Gitlab::UserAccess#can_update_branch?
  // (GitLab has no ability of this name: Chain::Validate::Abilities asks UserAccess directly).
  update_ref: refUpdater,
};

type ProtectedBranchPolicyRules = typeof protectedBranchPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends ProtectedBranchPolicyRules {}
}
