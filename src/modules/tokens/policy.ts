/**
 * GitLab's PersonalAccessTokenPolicy.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { administrator, anyOf, type Rule, type TokenSubject } from '../../auth/rules.js';

const tokenOwner: Rule<TokenSubject, Prisma.PersonalAccessTokenWhereInput> = {
  allows: (actor, token) => actor.viewer?.id === token.userId,
  where: (actor) => (actor.viewer ? { userId: actor.viewer.id } : false),
};

/** PersonalAccessTokenPolicy's abilities, by name. */
export const personalAccessTokenPolicy = {
  // PersonalAccessTokenPolicy
  read_token: anyOf<TokenSubject, Prisma.PersonalAccessTokenWhereInput>(administrator, tokenOwner),
  revoke_token: anyOf<TokenSubject, Prisma.PersonalAccessTokenWhereInput>(administrator, tokenOwner),
};

type PersonalAccessTokenPolicyRules = typeof personalAccessTokenPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends PersonalAccessTokenPolicyRules {}
}
