/**
 * GitLab's ProjectMemberPolicy and GroupMemberPolicy, with ProjectPolicy's and GroupPolicy's member administration.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import { AccessLevel } from '../../auth/access-levels.js';
import { adminGroupMember, adminProjectMember, manageOwners, type GroupMemberSubject, type ProjectMemberSubject, type Rule } from '../../auth/rules.js';

const { OWNER } = AccessLevel;

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

/** MemberPolicy's abilities, by name. */
export const memberPolicy = {
  admin_project_member: adminProjectMember,
  manage_owners: manageOwners,
  // ProjectMemberPolicy: one direct membership of a project.
  update_project_member: projectMembership(false),
  destroy_project_member: projectMembership(true),
  admin_group_member: adminGroupMember,
  // GroupMemberPolicy: one direct membership of a group.
  update_group_member: groupMembership(false),
  destroy_group_member: groupMembership(true),
};

type MemberPolicyRules = typeof memberPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends MemberPolicyRules {}
}
