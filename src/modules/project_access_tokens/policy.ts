/**
 * GitLab's ProjectPolicy abilities for a project's access tokens (`resource_access_tokens`): Maintainers and Owners
 * (and administrators) list, create, revoke and rotate them; a bot user, acting through a project access token, never
 * creates one (GitLab's `user_is_bot` prevents it), though a Maintainer-level token reads and rotates its siblings.
 */
import type { Prisma } from '../../db/database.js';
import { adminProjectMember, allOf, type ProjectSubject, type Rule } from '../../auth/rules.js';

/** GitLab enables them with `admin_project`: Maintainers and Owners, and administrators (the rule of admin_project_member). */
const maintainers = adminProjectMember;

/** Anyone but a bot user. */
const humans: Rule<ProjectSubject, Prisma.ProjectWhereInput> = {
  allows: (actor) => !actor.viewer?.bot,
  where: (actor) => !actor.viewer?.bot,
};

export const ProjectAccessTokensPolicy = {
  read_resource_access_tokens: maintainers,
  create_resource_access_tokens: allOf(maintainers, humans),
  destroy_resource_access_tokens: maintainers,
  manage_resource_access_tokens: maintainers,
};

type ProjectAccessTokensPolicyRules = typeof ProjectAccessTokensPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends ProjectAccessTokensPolicyRules {}
}
