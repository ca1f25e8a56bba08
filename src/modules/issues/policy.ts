/**
 * GitLab's IssuePolicy with ProjectPolicy's issue abilities. Reading a project's issues needs the project and its
 * issues feature (`read_issue` on the project); a confidential issue is read only by its author, its assignees,
 * the project's Reporters and above and administrators (IssuePolicy's `confidential & ~can_read_confidential`).
 * Updating needs Reporter, or being its author or an assignee; setting metadata (labels, assignees, milestone,
 * weight, due date, confidentiality) needs Reporter (`admin_issue`, `set_issue_metadata`); deleting needs the Owner
 * (`destroy_issue`); creating an incident needs Reporter (`create_incident`), changing its escalation status Developer
 * (`update_escalation_status`). An issue whose author is banned is hidden from all but administrators. Writes stop on an
 * archived project.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectMember, projectOwner, unlessArchived, visible, type Actor, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { GUEST, REPORTER, DEVELOPER, MAINTAINER } = AccessLevel;

type ProjectRule = Rule<ProjectSubject, Prisma.ProjectWhereInput>;
type Where = Prisma.IssueWhereInput;

/** What deciding access to one issue reads. */
export interface IssueSubject {
  /**
   * Its project. Not named `project`: the policy would take the issue for something of that project and let a CI job
   * token in by the project's scope, where GitLab lets job tokens reach no issue; they are anonymous callers here, in
   * checks as in list filters.
   */
  inProject: ProjectSubject;
  authorId: number | null;
  confidential: boolean;
  assigneeIds: readonly number[];
  /** Issue#hidden?: its author is banned. */
  hidden: boolean;
}

/** What an issue row is read with, for its subject: its assignees, and its author's state (whether it is hidden, Issue#hidden?). */
export const issueRowInclude = { assignees: { select: { userId: true }, orderBy: { createdAt: 'asc' } }, author: { select: { state: true } } } as const;

/** The subject of an issue row read with its assignees and its author's state (the issues service's `issueRowInclude`). */
export function issueSubjectOf(
  inProject: ProjectSubject,
  issue: { authorId: number | null; confidential: boolean; assignees: readonly { userId: number }[]; author: { state: string } | null },
): IssueSubject {
  return {
    inProject,
    authorId: issue.authorId,
    confidential: issue.confidential,
    assigneeIds: issue.assignees.map((a) => a.userId),
    hidden: issue.author?.state === 'banned',
  };
}

const signedIn: ProjectRule = { allows: (actor) => !!actor.viewer, where: (actor) => !!actor.viewer };

/** ProjectPolicy's `read_project` with the issues feature open to the viewer (`read_issue` on the project). */
const readProjectIssues: ProjectRule = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)), featureAllowed('issues'));
const reporter: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER));
const developer: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER));
const maintainer: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER));

/** A project rule asked of an issue's project, and as a filter of issues by their project. */
function onProject(rule: ProjectRule): Rule<IssueSubject, Where> {
  return {
    allows: (actor, issue) => rule.allows(actor, issue.inProject),
    where: (actor) => {
      const w = rule.where(actor);
      return w === true || w === false ? w : { project: { is: w } };
    },
  };
}

const isAuthor = (actor: Actor, issue: IssueSubject) => !!actor.viewer && issue.authorId === actor.viewer.id;
const isAssignee = (actor: Actor, issue: IssueSubject) => !!actor.viewer && issue.assigneeIds.includes(actor.viewer.id);

const author: Rule<IssueSubject, Where> = { allows: isAuthor, where: (actor) => (actor.viewer ? { authorId: actor.viewer.id } : false) };
const assignee: Rule<IssueSubject, Where> = {
  allows: isAssignee,
  where: (actor) => (actor.viewer ? { assignees: { some: { userId: actor.viewer.id } } } : false),
};
const notConfidential: Rule<IssueSubject, Where> = { allows: (_a, issue) => !issue.confidential, where: () => ({ confidential: false }) };

/** Issues not hidden: their author is not banned (an issue whose author was deleted has none). */
export const NOT_HIDDEN_WHERE = { OR: [{ authorId: null }, { author: { is: { state: { not: 'banned' } } } }] } satisfies Where;

/** Not hidden: its author is not banned (an issue whose author was deleted has none). */
const notHidden: Rule<IssueSubject, Where> = {
  allows: (_a, issue) => !issue.hidden,
  where: () => NOT_HIDDEN_WHERE,
};

/**
 * IssuePolicy's read_issue: the project's issues, a confidential one only to those who may read confidential issues,
 * and a hidden one (`hidden & ~admin`) only to administrators; IssuesFinder leaves hidden issues out for everyone else.
 */
const readIssue: Rule<IssueSubject, Where> = allOf(
  onProject(readProjectIssues),
  anyOf(notConfidential, onProject(reporter), author, assignee),
  anyOf<IssueSubject, Where>(notHidden, administrator),
);

/** Whether an archived project holds the issue: writes stop there. */
const unarchived: Rule<IssueSubject, Where> = { allows: (_a, issue) => !issue.inProject.archived, where: () => ({ project: { archived: false } }) };

export const issuePolicy = {
  /** ProjectPolicy's read_issue on the project: its issues may be listed at all. */
  read_project_issues: readProjectIssues,
  /** ProjectPolicy's create_issue: members, and signed-in users who can read a public (or internal) project's issues. */
  create_issue: unlessArchived(allOf(readProjectIssues, anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(GUEST), allOf(signedIn, visible())))),
  /** Labels, assignees, milestone, weight, due date and confidentiality given on create or update (`set_issue_metadata`). */
  set_issue_metadata: unlessArchived(allOf(readProjectIssues, reporter)),
  /** ProjectPolicy's create_incident: an issue of type `incident` (Reporters; others get an issue). */
  create_incident: unlessArchived(allOf(readProjectIssues, reporter)),
  /** `created_at` honoured on create (`set_issue_created_at`): administrators and Owners. */
  set_issue_created_at: projectOwner,
  /** `iid` honoured on create (`set_issue_iid`): administrators and Owners; others' issues take the next iid. */
  set_issue_iid: projectOwner,
  read_issue: readIssue,
  update_issue: allOf(readIssue, unarchived, anyOf(onProject(reporter), author, assignee)),
  admin_issue: allOf(readIssue, unarchived, onProject(reporter)),
  destroy_issue: allOf(readIssue, onProject(projectOwner)),
  /** ProjectPolicy's update_escalation_status: an incident's escalation status (Developers). */
  update_escalation_status: allOf(readIssue, unarchived, onProject(developer)),
  /** GitLab's `can_read_all_resources?`, which lets Query.timelogs go without a project, group or own username: administrators. */
  read_all_timelogs: administrator as Rule<null, never>,
  /** IssuablePolicy's `is_project_member` on a readable issue: who still comments once its discussion is locked. */
  issue_project_member: allOf(readIssue, onProject(projectMember(GUEST))),
  /**
   * TimelogPolicy's admin_timelog beyond a timelog's own author (src/modules/issues/timelogs.ts asks that first): the
   * Maintainers of its project (`maintainer_access`).
   */
  admin_timelog: {
    allows: (actor, timelog) => maintainer.allows(actor, timelog.inProject),
    where: (actor) => {
      const w = maintainer.where(actor);
      return w === true || w === false ? w : { project: { is: w } };
    },
  } as Rule<{ inProject: ProjectSubject }, Prisma.TimelogWhereInput>,
};

type IssuePolicyRules = typeof issuePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends IssuePolicyRules {}
}
