/**
 * GitLab's EpicPolicy with GroupPolicy's epic abilities (EE): whoever reads the group reads its epics, a confidential
 * epic only its group's Reporters and above and administrators (`confidential & ~planner_or_reporter_access`);
 * Reporters create and change epics (`create_epic`, `admin_epic`), Owners delete them (`destroy_epic`). Guests and
 * above who read an epic may relate issues to it (`admin_epic_relation`), when they may relate the issue too
 * (ProjectPolicy's `admin_issue_relation`: Guests of the issue's project who read it).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, groupsOnly, namespaceMember, projectMember, type NamespaceSubject, type ProjectSubject, type Rule } from '../../auth/rules.js';
import { groupPolicy } from '../groups/policy.js';
import { issuePolicy, type IssueSubject } from '../issues/policy.js';

const { GUEST, REPORTER, OWNER } = AccessLevel;

type GroupRule = Rule<NamespaceSubject, Prisma.NamespaceWhereInput>;
type Where = Prisma.EpicWhereInput;

/** What deciding access to one epic reads. */
export interface EpicSubject {
  /** Its group. Not named `group`: an epic is not a group subject. */
  inGroup: NamespaceSubject;
  confidential: boolean;
}

const member = (level: number): GroupRule => groupsOnly(anyOf<NamespaceSubject, Prisma.NamespaceWhereInput>(administrator, namespaceMember(level)));
const readGroup: GroupRule = groupPolicy.read_group;

/** A group rule asked of an epic's group, and as a filter of epics by their group. */
function onGroup(rule: GroupRule): Rule<EpicSubject, Where> {
  return {
    needsAncestors: rule.needsAncestors,
    allows: (actor, epic) => rule.allows(actor, epic.inGroup),
    where: (actor) => {
      const w = rule.where(actor);
      return w === true || w === false ? w : { group: { is: w } };
    },
  };
}

const notConfidential: Rule<EpicSubject, Where> = { allows: (_a, epic) => !epic.confidential, where: () => ({ confidential: false }) };

const readEpic: Rule<EpicSubject, Where> = allOf(onGroup(readGroup), anyOf(notConfidential, onGroup(member(REPORTER))));
const signedIn: Rule<EpicSubject, Where> = { allows: (actor) => !!actor.viewer, where: (actor) => !!actor.viewer };
const adminEpic: Rule<EpicSubject, Where> = allOf(readEpic, onGroup(member(REPORTER)));

export const epicPolicy = {
  /** GroupPolicy's `create_epic` (the API asks `admin_epic` of the group): Reporters and above of a readable group. */
  create_epic: allOf(readGroup, member(REPORTER)),
  /** `set_epic_created_at`: administrators and the group's Owners. */
  set_epic_created_at: member(OWNER),
  read_epic: readEpic,
  /** EpicPolicy's `read_epic_iid`: whoever reads the epic. */
  read_epic_iid: readEpic,
  admin_epic: adminEpic,
  /** GroupPolicy's `update_epic`, the same Reporters as `admin_epic`. */
  update_epic: adminEpic,
  /** GroupPolicy's `create_epic` asked of an epic: of its group. */
  create_epic_in_group: onGroup(allOf(readGroup, member(REPORTER))),
  /** EpicPolicy's `create_note` and `award_emoji`: signed-in readers. */
  create_epic_note: allOf(readEpic, signedIn),
  destroy_epic: allOf(readEpic, onGroup(member(OWNER))),
  admin_epic_relation: allOf(readEpic, onGroup(member(GUEST))),
  /** ProjectPolicy's `admin_issue_relation`: the issue is read, and its project's Guests and above relate it. */
  admin_issue_relation: allOf<IssueSubject, Prisma.IssueWhereInput>(issuePolicy.read_issue, {
    allows: (actor, issue) => anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(GUEST)).allows(actor, issue.inProject),
    where: () => false,
  }),
};

type EpicPolicyRules = typeof epicPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends EpicPolicyRules {}
}
