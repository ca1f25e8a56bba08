/**
 * GitLab's NamespacePolicy: a personal or group namespace, and who creates projects in it.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, groupsOnly, heldAtLeast, namespaceLevel, namespaceMember, visible, type GroupSettingsSubject, type NamespaceSubject, type Rule } from '../../auth/rules.js';

const { GUEST, DEVELOPER, MAINTAINER, OWNER } = AccessLevel;

/**
 * GitLab's project_creation_level: who may create projects in a group (administrators too, except under `noone`);
 * in a personal namespace, its owner and administrators (UserNamespacePolicy's `owner | admin`).
 */
const projectCreator: Rule<GroupSettingsSubject, Prisma.NamespaceWhereInput> = {
  allows(actor, ns) {
    if (ns.kind === 'user') return actor.viewer?.admin === true || namespaceLevel(actor, ns) >= OWNER;
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
    if (viewer.admin) or.push({ kind: 'user' }, { kind: 'group', projectCreationLevel: { not: 'noone' } });
    else {
      for (const [level, min] of Object.entries(PROJECT_CREATION_MINIMUM)) {
        or.push({ kind: 'group', projectCreationLevel: level, traversalIds: { hasSome: heldAtLeast(actor.memberships.groups, min, actor.memberships.sharedGroups) } });
      }
    }
    return { OR: or };
  },
};

/** The level each project_creation_level asks of a member (`administrator`: none is enough). */
const PROJECT_CREATION_MINIMUM: Readonly<Record<string, number>> = { owner: OWNER, maintainer: MAINTAINER, developer: DEVELOPER };

/** NamespacePolicy's abilities, by name. */
export const namespacePolicy = {
  read_namespace: anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(GUEST), groupsOnly(visible())),
  create_projects: projectCreator,
  admin_namespace: anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(OWNER)),
};

type NamespacePolicyRules = typeof namespacePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends NamespacePolicyRules {}
}
