/**
 * GitLab's ProjectPolicy: the project itself (reading, settings, its owner_access block, forking).
 * Registered through this module's manifest into the one table of src/auth/policy.ts; built from src/auth/rules.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectMember, projectOwner, repositoryFeature, visible, type ProjectSubject, type Rule } from '../../auth/rules.js';

const { GUEST, REPORTER, MAINTAINER } = AccessLevel;

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
  // `forking_allowed`), besides Reporter on a private project.
  fork_project: allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(REPORTER)), repositoryFeature, featureAllowed('forking')),
};

type ProjectPolicyRules = typeof projectPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends ProjectPolicyRules {}
}
