/**
 * GitLab's ProjectPolicy abilities of the package registry: anyone who may read a public (or, signed in, an internal)
 * project reads its packages, members from Guest up read a private project's (GitLab's
 * `allow_guest_plus_roles_to_pull_packages`); Developers publish; Maintainers delete (`destroy_package`).
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, projectMember, unlessArchived, visible, type ProjectSubject } from '../../auth/rules.js';

const { GUEST, DEVELOPER, MAINTAINER } = AccessLevel;

export const PackagesPolicy = {
  read_package: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(visible(), administrator, projectMember(GUEST)),
  create_package: unlessArchived(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER))),
  destroy_package: anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(MAINTAINER)),
};

type PackagesPolicyRules = typeof PackagesPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends PackagesPolicyRules {}
}
