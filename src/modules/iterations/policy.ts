/**
 * GitLab's iteration abilities (EE's GroupPolicy and ProjectPolicy with the licensed `iterations` feature, and
 * IterationPolicy and Iterations::CadencePolicy, which delegate to the group): whoever reads the group (or the
 * project, for a project's iterations, which are its group's) reads its iterations and cadences, Guests included;
 * Reporters and above create and change them. The licence itself is the service's check (ITERATIONS_ENABLED).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, groupsOnly, namespaceMember, projectMember, unlessArchived, type NamespaceSubject, type ProjectSubject } from '../../auth/rules.js';
import { groupPolicy } from '../groups/policy.js';
import { onParent } from '../labels/policy.js';
import { projectPolicy } from '../projects/policy.js';

const { REPORTER } = AccessLevel;

/** Reading: whoever reads the project or the group (`read_iteration`, `read_iteration_cadence`). */
const read = onParent(projectPolicy.read_project, groupPolicy.read_group);

/** Creating and changing: Reporters and above (`reporter_access`), never through an archived project. */
const admin = onParent(
  unlessArchived(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER))),
  groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(REPORTER))),
);

/** The iteration abilities, by name. */
export const iterationPolicy = {
  read_iteration: read,
  create_iteration: admin,
  admin_iteration: admin,
  read_iteration_cadence: read,
  create_iteration_cadence: admin,
  admin_iteration_cadence: admin,
};

type IterationPolicyRules = typeof iterationPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends IterationPolicyRules {}
}
