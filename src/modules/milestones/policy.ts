/**
 * GitLab's milestone abilities (ProjectPolicy's and GroupPolicy's `read_milestone` and `admin_milestone`): the same
 * rules as labels' (src/modules/labels/policy.ts), as GitLab grants both together.
 * Registered through this module's manifest into the one table of src/auth/policy.ts.
 */
import { adminTimeboxes, readTimeboxes } from '../labels/policy.js';

/** The milestone abilities, by name. */
export const milestonePolicy = {
  read_milestone: readTimeboxes,
  admin_milestone: adminTimeboxes,
};

type MilestonePolicyRules = typeof milestonePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends MilestonePolicyRules {}
}
