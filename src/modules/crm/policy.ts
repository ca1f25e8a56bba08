/**
 * GitLab's customer relations abilities (16.3). GroupPolicy: the group's Reporters and above read its contacts and
 * organizations (`read_crm_contact`, `read_crm_organization`), Developers and above manage them (`admin_crm_contact`,
 * `admin_crm_organization`); administrators hold every ability. IssuePolicy: an issue's contacts are read by those
 * who may read the contacts of its project's root group (`read_crm_contacts`), and set by those who may also set the
 * issue's metadata (`set_issue_crm_contacts`), so a Reporter of the project alone neither reads nor sets them.
 * GitLab's `~crm_enabled` prevention is not modelled: 16.3 has no API to turn a group's CRM off (it is on for every
 * group since 15.8). Registered through this module's manifest into the one table of src/auth/policy.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, groupsOnly, namespaceMember, type NamespaceSubject, type Rule } from '../../auth/rules.js';
import { issuePolicy, type IssueSubject } from '../issues/policy.js';

const { REPORTER, DEVELOPER } = AccessLevel;

type GroupRule = Rule<NamespaceSubject, Prisma.NamespaceWhereInput>;

const member = (level: number): GroupRule => groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(level)));

/** The root group of an issue's project, as a subject (null when the project is a user's own: no CRM there). */
export function crmGroupOfIssue(issue: IssueSubject): NamespaceSubject | null {
  const ns = issue.inProject.namespace;
  if (ns.kind !== 'group') return null;
  const root = ns.traversalIds[0] ?? ns.id;
  return { id: root, kind: 'group', visibility: ns.visibility, ownerId: null, traversalIds: [root] };
}

const readContacts = member(REPORTER);

/** IssuePolicy's `can_read_crm_contacts`: `read_crm_contact` on the root group of the issue's project. Checks only. */
const readIssueContacts: Rule<IssueSubject, Prisma.IssueWhereInput> = {
  allows: (actor, issue) => {
    const root = crmGroupOfIssue(issue);
    return !!root && readContacts.allows(actor, root);
  },
  where: () => false,
};

export const crmPolicy = {
  read_crm_contact: readContacts,
  read_crm_organization: readContacts,
  admin_crm_contact: member(DEVELOPER),
  admin_crm_organization: member(DEVELOPER),
  read_crm_contacts: readIssueContacts,
  /** `set_issue_metadata & can_read_crm_contacts`. Checks only. */
  set_issue_crm_contacts: {
    allows: (actor, issue) => issuePolicy.set_issue_metadata.allows(actor, issue.inProject) && readIssueContacts.allows(actor, issue),
    where: () => false,
  } as Rule<IssueSubject, Prisma.IssueWhereInput>,
};

type CrmPolicyRules = typeof crmPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends CrmPolicyRules {}
}
