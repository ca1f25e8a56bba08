/**
 * Abilities on a project's Markdown uploads, from GitLab's ProjectPolicy: whoever has guest access reads them by
 * their secret (read_upload; not anonymous callers, whose public access does not include it), Maintainers list them,
 * read them by ID and delete them (admin_upload, destroy_upload).
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, projectMember, type ProjectSubject } from '../../auth/rules.js';
import { guestAccess } from '../projects/policy.js';

const maintainers = anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(AccessLevel.MAINTAINER));

/** ProjectPolicy's upload abilities. */
export const uploadsPolicy = {
  read_upload: guestAccess,
  admin_upload: maintainers,
  destroy_upload: maintainers,
};

type UploadsRules = typeof uploadsPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends UploadsRules {}
}
