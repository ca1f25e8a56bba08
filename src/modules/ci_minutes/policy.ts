/**
 * Who may read a namespace's compute usage (GitLab EE's `read_usage`, the usage quotas page): its Owners (the owner of
 * a personal namespace) and administrators. Registered through this module's manifest into src/auth/policy.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, namespaceMember, type NamespaceSubject } from '../../auth/rules.js';

/** CiMinutes abilities, by GitLab's names. */
export const ciMinutesPolicy = {
  read_usage: anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(AccessLevel.OWNER)),
};

type CiMinutesPolicyRules = typeof ciMinutesPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends CiMinutesPolicyRules {}
}
