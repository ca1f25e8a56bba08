/**
 * GitLab's ProjectPolicy: the project itself (reading, settings, its owner_access block, forking).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectLevel, projectMember, projectOwner, repositoryFeature, unlessArchived, visible, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { GUEST, REPORTER, DEVELOPER, MAINTAINER } = AccessLevel;

type ProjectRule = Rule<ProjectSubject, Prisma.ProjectWhereInput>;

/** ProjectPolicy's `guest_access | public_access`: whoever may read the project. */
const readable: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST));
/** ProjectPolicy's `reporter_access | public_access` (download_code, download_wiki_code). */
const reporterOrPublic: ProjectRule = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER));
/** ProjectPolicy's `public_user_access`: a signed-in user on a public project, one who is not external on an internal one. */
const publicUser: ProjectRule = allOf<ProjectSubject, Prisma.ProjectWhereInput>({ allows: (actor) => !!actor.viewer, where: (actor) => !!actor.viewer }, visible());
/** ProjectPolicy's `guest_access` (not `public_access`, which anonymous callers have on public projects). */
export const guestAccess: ProjectRule = anyOf(publicUser, administrator, projectMember(GUEST));
const atLeast = (level: number): ProjectRule => anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(level));
const wikiFeature = featureAllowed('wiki');
/** ProjectPolicy's `pages_disabled` prevents only read_pages_content; the other pages abilities follow the role. */
const pagesFeature = featureAllowed('pages');

/** A project with its request_access_enabled setting. */
export interface RequestAccessSubject extends ProjectSubject {
  requestAccessEnabled: boolean;
}

/**
 * ProjectPolicy's request_access: a signed-in user who sees the project (public_user_access) may ask to join it while
 * it takes requests, unless they already hold a role in it (directly or through its groups: `guest`, `group_member`,
 * `owner`) or are an administrator; never on an archived project.
 */
const requestAccess: Rule<RequestAccessSubject, never> = {
  allows: (actor, project) =>
    !project.archived && project.requestAccessEnabled && publicUser.allows(actor, project) && !actor.viewer?.admin && projectLevel(actor, project) === 0,
  where: () => false,
};

/** ProjectPolicy's abilities, by name. */
export const projectPolicy = {
  // ProjectPolicy
  read_project: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)),
  // Project settings (GitLab's admin_project: Maintainers), such as the CI/CD job token scope.
  admin_project: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  // Operations settings (GitLab's admin_operations: Maintainers): alert integrations, error tracking client keys.
  admin_operations: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
  change_repository_storage: administrator as Rule<ProjectSubject, never>,
  // ProjectPolicy's owner_access block: renaming, visibility, transfer, archiving, deletion and unlinking a fork.
  rename_project: projectOwner,
  change_visibility_level: projectOwner,
  change_namespace: projectOwner,
  archive_project: projectOwner,
  remove_project: projectOwner,
  remove_fork_project: projectOwner,
  // Forking needs the code (the repository feature) and the forking feature available to the viewer (GitLab's
  // `forking_allowed`), besides Reporter on a private project; anonymous callers fork nothing (public_user_access).
  fork_project: allOf(anyOf(publicUser, administrator, projectMember(REPORTER)), repositoryFeature, featureAllowed('forking')),
  // ProjectPolicy's guest block (with public_access): members of the project, and whoever sees it.
  read_project_member: readable,
  // Cycle analytics: hidden with the analytics feature, and when issues and merge requests are both disabled.
  read_cycle_analytics: allOf(readable, featureAllowed('analytics'), anyOf(featureAllowed('issues'), featureAllowed('merge_requests'))),
  // Uploading files (attachments): guest_access, not public_access; not on an archived project.
  upload_file: unlessArchived(guestAccess),
  request_access: requestAccess,
  // Wikis: the wiki feature decides; writes stop on an archived project (ArchivedAbilities' wiki feature).
  read_wiki: allOf(readable, wikiFeature),
  download_wiki_code: allOf(reporterOrPublic, wikiFeature),
  create_wiki: unlessArchived(allOf(atLeast(DEVELOPER), wikiFeature)),
  admin_wiki: unlessArchived(allOf(atLeast(MAINTAINER), wikiFeature)),
  // Pages: reading the site follows the pages feature; its settings are the Maintainers' (not on an archived project).
  read_pages_content: allOf(readable, pagesFeature),
  update_pages: unlessArchived(atLeast(MAINTAINER)),
  remove_pages: atLeast(MAINTAINER),
  // EE's maintainer block: path locks. Remote mirrors: `(mirror_available & admin_project) | admin`, with GitLab's
  // default mirror_available (on), which this server has no setting to change.
  admin_path_locks: atLeast(MAINTAINER),
  admin_remote_mirror: atLeast(MAINTAINER),
};

type ProjectPolicyRules = typeof projectPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends ProjectPolicyRules {}
}
