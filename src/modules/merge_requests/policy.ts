/**
 * GitLab's MergeRequestPolicy with ProjectPolicy's merge request abilities. Reading needs the project and its merge
 * requests feature (`read_merge_request`, Reporters and above where the feature is private to members); creating
 * needs Developer on the source (`create_merge_request_from`) and reading the target's code and merge requests
 * (`create_merge_request_in`: a fork's upstream); updating needs Developer, or being its author or
 * an assignee; setting labels, assignees, reviewers and the milestone needs Reporter (`admin_merge_request`); deleting
 * needs the Owner (`destroy_merge_request`). Writes stop on an archived project. Merging is asked of the target branch
 * (RepositoriesService.canMergeToBranch: `push_code` and the protected branch rules' merge levels).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectMember, projectOwner, repositoryFeature, unlessArchived, visible, type Actor, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { REPORTER, DEVELOPER } = AccessLevel;

type ProjectRule = Rule<ProjectSubject, Prisma.ProjectWhereInput>;
type Where = Prisma.MergeRequestWhereInput;

/** What deciding access to one merge request reads. */
export interface MergeRequestSubject {
  /** Its (target) project; not named `project`, so that CI job tokens are not let in by the project's scope. */
  inProject: ProjectSubject;
  authorId: number | null;
  assigneeIds: readonly number[];
}

/**
 * ProjectPolicy's `read_merge_request` on the project: anyone who sees a public or internal project, Reporters and
 * above on a private one (its Guests see the project, not its code or merge requests), with the feature open to them.
 */
const readProjectMergeRequests: ProjectRule = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), featureAllowed('merge_requests'));
const reporter: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER));
const developer: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER));

function onProject(rule: ProjectRule): Rule<MergeRequestSubject, Where> {
  return {
    allows: (actor, mr) => rule.allows(actor, mr.inProject),
    where: (actor) => {
      const w = rule.where(actor);
      return w === true || w === false ? w : { project: { is: w } };
    },
  };
}

const isAuthor = (actor: Actor, mr: MergeRequestSubject) => !!actor.viewer && mr.authorId === actor.viewer.id;
const isAssignee = (actor: Actor, mr: MergeRequestSubject) => !!actor.viewer && mr.assigneeIds.includes(actor.viewer.id);
const author: Rule<MergeRequestSubject, Where> = { allows: isAuthor, where: (actor) => (actor.viewer ? { authorId: actor.viewer.id } : false) };
const assignee: Rule<MergeRequestSubject, Where> = {
  allows: isAssignee,
  where: (actor) => (actor.viewer ? { assignees: { some: { userId: actor.viewer.id } } } : false),
};
const unarchived: Rule<MergeRequestSubject, Where> = { allows: (_a, mr) => !mr.inProject.archived, where: () => ({ project: { archived: false } }) };

const readMergeRequest = onProject(readProjectMergeRequests);
/** RepositoryPolicy's download_code, as a part of create_merge_request_in. */
const readCode: ProjectRule = allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), repositoryFeature);
const signedIn: ProjectRule = { allows: (actor) => !!actor.viewer, where: (actor) => !!actor.viewer };

export const mergeRequestPolicy = {
  /** ProjectPolicy's read_merge_request on the project: its merge requests may be listed at all. */
  read_project_merge_requests: readProjectMergeRequests,
  /**
   * ProjectPolicy's create_merge_request_from: Developers and above open merge requests from the project's branches
   * (to it, or from a fork to its upstream).
   */
  create_merge_request_from: unlessArchived(allOf(readProjectMergeRequests, developer, repositoryFeature)),
  /**
   * ProjectPolicy's create_merge_request_in (`guest_access & download_code`, with merge requests): who reads the
   * code and merge requests may be the target of one, from the project or from their fork of it.
   */
  create_merge_request_in: unlessArchived(allOf(readProjectMergeRequests, signedIn, readCode)),
  /** Labels, assignees, reviewers and milestone given on create (`set_merge_request_metadata`). */
  set_merge_request_metadata: unlessArchived(allOf(readProjectMergeRequests, reporter)),
  read_merge_request: readMergeRequest,
  update_merge_request: allOf(readMergeRequest, unarchived, anyOf(onProject(developer), author, assignee)),
  admin_merge_request: allOf(readMergeRequest, unarchived, onProject(reporter)),
  destroy_merge_request: allOf(readMergeRequest, onProject(projectOwner)),
  /** MergeRequestPolicy's approve_merge_request: Developers and above (the author too), on an unarchived project. */
  approve_merge_request: allOf(readMergeRequest, unarchived, onProject(developer)),
};

type MergeRequestPolicyRules = typeof mergeRequestPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends MergeRequestPolicyRules {}
}
