/**
 * GitLab's PersonalSnippetPolicy and ProjectSnippetPolicy (with ProjectPolicy's snippet abilities and GlobalPolicy's
 * `create_snippet`), over one subject: a snippet with its project, or none for a personal snippet.
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectMember, signedInInternal, unlessArchived, visible, type Actor, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { GUEST, REPORTER, MAINTAINER } = AccessLevel;

/** What deciding access to a snippet reads. */
export interface SnippetSubject {
  authorId: number;
  visibility: string;
  /**
   * Its project (a ProjectSnippet), or null (a PersonalSnippet). Not named `project`: the policy would take the
   * snippet for something of that project and let a CI job token in by the project's scope, where GitLab lets job
   * tokens reach no snippet at all; so they are anonymous callers here, in checks as in list filters.
   */
  inProject: ProjectSubject | null;
}

/** Where a snippet would be created: in a project, or personal (null). */
export interface SnippetContainerSubject {
  project: ProjectSubject | null;
}

type Where = Prisma.SnippetWhereInput;
type ProjectRule = Rule<ProjectSubject, Prisma.ProjectWhereInput>;

/** ProjectPolicy's `read_project`, and its `snippets_disabled` (the snippets feature, `private` for members). */
const readProject: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST));
const snippetsFeature: ProjectRule = featureAllowed('snippets');
/** ProjectPolicy's `read_snippet` on the project itself (GitLab's `read_project_snippet`). */
const readProjectSnippets: ProjectRule = allOf(readProject, snippetsFeature);

const isAuthor = (actor: Actor, s: SnippetSubject) => !!actor.viewer && s.authorId === actor.viewer.id;
const authorWhere = (actor: Actor): Where | false => (actor.viewer ? { authorId: actor.viewer.id } : false);

/** A rule about the snippet's project, and, as a filter, about the project rows of project snippets. */
function onProject(rule: ProjectRule): Rule<SnippetSubject, Where> {
  return {
    allows: (actor, s) => s.inProject !== null && rule.allows(actor, s.inProject),
    where: (actor) => {
      const w = rule.where(actor);
      return w === false ? false : { projectId: { not: null }, ...(w === true ? {} : { project: { is: w } }) };
    },
  };
}

const personal: Rule<SnippetSubject, Where> = { allows: (_a, s) => s.inProject === null, where: () => ({ projectId: null }) };
const author: Rule<SnippetSubject, Where> = { allows: isAuthor, where: authorWhere };
const admin = administrator as Rule<SnippetSubject, Where>;

/** Public to everyone, internal to signed-in users who are not external (the snippet's own visibility). */
const visibleSnippet: Rule<SnippetSubject, Where> = {
  allows: (actor, s) => s.visibility === 'public' || (s.visibility === 'internal' && signedInInternal(actor)),
  where: (actor) => ({ visibility: { in: signedInInternal(actor) ? ['public', 'internal'] : ['public'] } }),
};

/**
 * read_snippet. PersonalSnippetPolicy: public and internal as their visibility says, private to the author,
 * everything to administrators. ProjectSnippetPolicy: the project's snippets must be readable to the viewer (the
 * project and its snippets feature), then public and internal as above, private to the author and the project's
 * members; administrators read all.
 */
const readSnippet: Rule<SnippetSubject, Where> = anyOf(
  admin,
  allOf(personal, anyOf(visibleSnippet, author)),
  allOf(onProject(readProjectSnippets), anyOf(visibleSnippet, author, onProject(projectMember(GUEST)))),
);

/**
 * update_snippet and admin_snippet: a personal snippet's author (and administrators); a project snippet's author
 * while still a Reporter of the project, its Maintainers and administrators, with the snippets feature open to them
 * and the project not archived.
 */
const changeSnippet: Rule<SnippetSubject, Where> = anyOf(
  admin,
  allOf(personal, author),
  allOf(
    onProject(unlessArchived(snippetsFeature)),
    anyOf(allOf(author, onProject(projectMember(REPORTER))), onProject(projectMember(MAINTAINER))),
  ),
);

/**
 * create_snippet: GlobalPolicy's for personal snippets (any signed-in user who is not external); ProjectPolicy's
 * for a project (Reporters and above, administrators, the snippets feature open to them, not archived).
 */
const createSnippet: Rule<SnippetContainerSubject, never> = {
  allows: (actor, c) => {
    if (!actor.viewer) return false;
    if (c.project === null) return !actor.viewer.external || actor.viewer.admin;
    const project = c.project;
    const projectRule = unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(REPORTER)), snippetsFeature));
    return projectRule.allows(actor, project);
  },
  where: () => false,
};

/** The snippet abilities, by GitLab's names. */
export const snippetPolicy = {
  read_snippet: readSnippet,
  update_snippet: changeSnippet,
  admin_snippet: changeSnippet,
  create_snippet: createSnippet,
  /** The project's snippets as a whole (ProjectPolicy's read_snippet on the project, behind `Project.snippets`). */
  read_project_snippets: readProjectSnippets,
};

type SnippetPolicyRules = typeof snippetPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends SnippetPolicyRules {}
}
