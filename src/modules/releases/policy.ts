/**
 * GitLab's release abilities (ProjectPolicy's `read_release`, `create_release`, `update_release`, `destroy_release`;
 * ReleasePolicy delegates to its project). Reading: whoever reads the project, with the releases feature open to them
 * (public projects' releases are public; Guests read a private project's releases, without their code: the entity
 * hides tag, commit and sources from whoever lacks `download_code`). Writing: Developers and above, never in an
 * archived project. ReleasePolicy's protected tag rule has nothing to act on: this product has no protected tags.
 * Registered through this module's manifest into the one table of src/auth/policy.ts.
 */
import type { Prisma } from '../../db/database.js';
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, allOf, anyOf, featureAllowed, projectMember, unlessArchived, type ProjectSubject } from '../../auth/rules.js';
import { projectPolicy } from '../projects/policy.js';

const { DEVELOPER } = AccessLevel;

const releasesFeature = featureAllowed('releases');

const readRelease = allOf(projectPolicy.read_project, releasesFeature);
const manageReleases = unlessArchived(allOf(anyOf<ProjectSubject, Prisma.ProjectWhereInput>(administrator, projectMember(DEVELOPER)), releasesFeature));

/** The release abilities, by name; each asked of the release's project. */
export const releasePolicy = {
  read_release: readRelease,
  create_release: manageReleases,
  update_release: manageReleases,
  destroy_release: manageReleases,
};

type ReleasePolicyRules = typeof releasePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends ReleasePolicyRules {}
}
