/**
 * GitLab's UserPolicy: a user's profile and account data.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { administrator, anyOf, type ProfileSubject, type Rule, type UserSubject } from '../../auth/rules.js';

const self: Rule<UserSubject, Prisma.UserWhereInput> = {
  allows: (actor, user) => actor.viewer?.id === user.id,
  where: (actor) => (actor.viewer ? { id: actor.viewer.id } : false),
};

const publicProfile: Rule<ProfileSubject, Prisma.UserWhereInput> = {
  allows: (_actor, user) => !user.privateProfile,
  where: () => ({ privateProfile: false }),
};

/** UserPolicy's abilities, by name. */
export const userPolicy = {
  // UserPolicy
  read_user_profile: anyOf<ProfileSubject, Prisma.UserWhereInput>(publicProfile, administrator, self),
  read_user_email_address: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
  read_user_personal_access_tokens: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
  // The user's own account data (keys, e-mail addresses, status, preferences): themselves and administrators.
  update_user: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
  // UserPolicy's `user_is_self | admin` block: how many groups the user belongs to.
  read_group_count: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
  read_user_groups: anyOf<UserSubject, Prisma.UserWhereInput>(administrator, self),
};

type UserPolicyRules = typeof userPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends UserPolicyRules {}
}
