/**
 * GitLab's IssuePolicy `admin_issue_link`: relating an issue to another, or removing the relation, needs it on both
 * issues: those who may administer the issue (`admin_issue`: Reporters and above, administrators), and the project's
 * Guests who read it (`can?(:guest_access) & can?(:read_issue) & is_project_member`). Reading links needs only
 * `read_issue` on each side. Registered through this module's manifest into the one table of src/auth/policy.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { allOf, anyOf, projectMember, type Rule } from '../../auth/rules.js';
import { issuePolicy, type IssueSubject } from '../issues/policy.js';

const member = projectMember(AccessLevel.GUEST);

/** A Guest or above of the issue's project, and as a filter of issues by their project. */
const guestMember: Rule<IssueSubject, Prisma.IssueWhereInput> = {
  allows: (actor, issue) => member.allows(actor, issue.inProject),
  where: (actor) => {
    const w = member.where(actor);
    return w === true || w === false ? w : { project: { is: w } };
  },
};

export const issueLinksPolicy = {
  admin_issue_link: anyOf<IssueSubject, Prisma.IssueWhereInput>(issuePolicy.admin_issue, allOf(issuePolicy.read_issue, guestMember)),
};

type IssueLinksPolicyRules = typeof issueLinksPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends IssueLinksPolicyRules {}
}
