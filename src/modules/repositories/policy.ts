/**
 * ProjectPolicy's repository abilities: reading and pushing code.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, projectMember, pushCode, repositoryFeature, visible, type ProjectSubject } from '../../auth/rules.js';

const { REPORTER } = AccessLevel;

/** RepositoryPolicy's abilities, by name. */
export const repositoryPolicy = {
  // Repository: reading code needs Reporter on a private project (Guests see the project, not its code).
  download_code: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), repositoryFeature),
  push_code: pushCode,
};

type RepositoryPolicyRules = typeof repositoryPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends RepositoryPolicyRules {}
}
