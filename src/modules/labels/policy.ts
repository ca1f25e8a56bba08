/**
 * GitLab's label abilities (ProjectPolicy's and GroupPolicy's `read_label` and `admin_label`).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, groupsOnly, namespaceMember, projectMember, unlessArchived, type NamespaceSubject, type ProjectSubject, type Rule } from '../../auth/rules.js';
import { groupPolicy } from '../groups/policy.js';
import { projectPolicy } from '../projects/policy.js';

const { REPORTER } = AccessLevel;

/** What labels and milestones belong to: a project or a group. */
export type TimeboxParentSubject = { project: ProjectSubject } | { group: NamespaceSubject };

/** One ability asked of a project or a group, by a rule for each; asked one parent at a time, never as a list filter. */
export function onParent(project: Rule<ProjectSubject, unknown>, group: Rule<NamespaceSubject, unknown>): Rule<TimeboxParentSubject, never> {
  return {
    needsAncestors: project.needsAncestors || group.needsAncestors,
    allows: (actor, parent) => ('project' in parent ? project.allows(actor, parent.project) : group.allows(actor, parent.group)),
    where: () => false,
  };
}

/** ProjectPolicy's `issues_disabled & merge_requests_disabled` prevents what labels and milestones allow. */
const issuesOrMergeRequests = anyOf(featureAllowed('issues'), featureAllowed('merge_requests'));

/** Reading labels or milestones: whoever reads the project (with issues or merge requests on) or the group. */
export const readTimeboxes = onParent(allOf(projectPolicy.read_project, issuesOrMergeRequests), groupPolicy.read_group);

/** Managing them: Reporters and above (GitLab's `reporter_access`), never in an archived project. */
export const adminTimeboxes = onParent(
  unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER)), issuesOrMergeRequests)),
  groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(REPORTER))),
);

/** The label abilities, by name. */
export const labelPolicy = {
  read_label: readTimeboxes,
  admin_label: adminTimeboxes,
};

type LabelPolicyRules = typeof labelPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends LabelPolicyRules {}
}
