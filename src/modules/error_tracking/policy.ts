/**
 * GitLab's ProjectPolicy abilities of the integrated error tracking: Reporters read a project's errors and resolve or
 * ignore them (`read_sentry_issue`, `update_sentry_issue`); Maintainers manage its client keys and settings
 * (`admin_operations`, ProjectPolicy's own: src/modules/projects/policy.ts).
 */
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, projectMember, type ProjectSubject } from '../../auth/rules.js';
import type { Prisma } from '../../db/database.js';

const reporters = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(AccessLevel.REPORTER));

export const ErrorTrackingPolicy = {
  read_sentry_issue: reporters,
  update_sentry_issue: reporters,
};

type ErrorTrackingPolicyRules = typeof ErrorTrackingPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends ErrorTrackingPolicyRules {}
}
