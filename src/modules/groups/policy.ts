/**
 * GitLab's GroupPolicy: reading a group, its settings, subgroups and removal.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { namespacePolicy } from '../namespaces/policy.js';
import { administrator, allOf, anyOf, groupOwners, groupsOnly, heldAtLeast, memberBelow, minimalAccessMember, namespaceLevel, namespaceMember, visible, type GroupSettingsSubject, type NamespaceSubject, type Rule } from '../../auth/rules.js';

const { GUEST, MAINTAINER, OWNER } = AccessLevel;

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

/** GroupPolicy's abilities, by name. */
export const groupPolicy = {
  // NamespacePolicy and GroupPolicy: groups are namespaces of kind `group`.
  // Minimal Access members (of a top-level group) see the group itself, nothing in it by that membership.
  read_group: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(visible(), administrator, namespaceMember(GUEST), memberBelow, minimalAccessMember)),
  create_subgroup: groupsOnly(anyOf<GroupSettingsSubject, Prisma.NamespaceWhereInput>(administrator, subgroupCreator)),
  // GroupPolicy's admin_group (Owners): group settings, transfers, shares of the group.
  admin_group: groupOwners,
  // GroupPolicy's remove_group (Owners): deleting the group with its subgroups and projects.
  remove_group: groupOwners,
  // GroupPolicy's read_namespace_via_membership: whoever has access to the group through a membership (or
  // administrators, whom GitLab counts as Owners of every group) may share a project with it.
  read_namespace_via_membership: groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(GUEST))),
  // GroupPolicy's `maintainer & can?(:create_projects)`: projects may be transferred or imported into the group.
  transfer_projects: groupsOnly(allOf(namespacePolicy.create_projects, anyOf<GroupSettingsSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(MAINTAINER)))),
  import_projects: groupsOnly(allOf(namespacePolicy.create_projects, anyOf<GroupSettingsSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(MAINTAINER)))),
};

type GroupPolicyRules = typeof groupPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends GroupPolicyRules {}
}
