/**
 * GitLab's environment and deployment abilities (ProjectPolicy's, with EnvironmentPolicy and DeploymentPolicy for
 * one record, whose conditions the service checks: only a stopped environment is destroyed, a running or current
 * deployment is not). Reporters read, Developers create, update and stop, Maintainers delete deployments; the
 * project's Environments feature (environments_access_level) must let the viewer in. Protected environments are a
 * paid feature and not modelled.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectMember, unlessArchived, type ProjectSubject } from '../../auth/rules.js';

const { REPORTER, DEVELOPER, MAINTAINER } = AccessLevel;

const environmentsFeature = featureAllowed('environments');
const atLeast = (level: number) => allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(level)), environmentsFeature);

export const environmentPolicy = {
  read_environment: atLeast(REPORTER),
  create_environment: unlessArchived(atLeast(DEVELOPER)),
  update_environment: unlessArchived(atLeast(DEVELOPER)),
  stop_environment: unlessArchived(atLeast(DEVELOPER)),
  destroy_environment: unlessArchived(atLeast(DEVELOPER)),
  read_deployment: atLeast(REPORTER),
  create_deployment: unlessArchived(atLeast(DEVELOPER)),
  update_deployment: unlessArchived(atLeast(DEVELOPER)),
  destroy_deployment: unlessArchived(atLeast(MAINTAINER)),
};

type EnvironmentPolicyRules = typeof environmentPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends EnvironmentPolicyRules {}
}
