/**
 * ProjectPolicy's and GroupPolicy's admin_cicd_variables.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, namespaceLevel, projectLevel, type CiVariablesOwnerSubject, type Rule } from '../../auth/rules.js';

const { MAINTAINER, OWNER } = AccessLevel;

/**
 * GitLab's admin_cicd_variables, which its ProjectPolicy grants Maintainers and its GroupPolicy Owners (GitLab's
 * custom roles, which may grant it to others, do not exist here). Asked about one owner at a time, never as a list
 * filter.
 */
const cicdVariablesAdmin: Rule<CiVariablesOwnerSubject, never> = {
  allows: (actor, owner) => ('project' in owner ? projectLevel(actor, owner.project) >= MAINTAINER : owner.group.kind === 'group' && namespaceLevel(actor, owner.group) >= OWNER),
  where: () => false,
};

/** CiVariablesPolicy's abilities, by name. */
export const ciVariablesPolicy = {
  // ProjectPolicy and GroupPolicy: the CI/CD variables of a project or a group.
  admin_cicd_variables: anyOf<CiVariablesOwnerSubject, never>(administrator, cicdVariablesAdmin),
};

type CiVariablesPolicyRules = typeof ciVariablesPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends CiVariablesPolicyRules {}
}
