/**
 * Abilities on webhooks. ProjectPolicy: Maintainers read and administer a project's hooks (`admin_project` enables
 * `read_web_hook` and `admin_web_hook`). System hooks are GlobalPolicy's, which only administrators hold
 * (`system_hooks` asked with no subject).
 */
import { adminProjectMember, administrator, groupOwners, type Rule } from '../../auth/rules.js';

/** Administrators and the project's Maintainers (the rule GitLab's admin_project and admin_project_member share). */
const maintainers = adminProjectMember;

/** GitLab's ProjectPolicy, for a project's hooks. */
export const ProjectHookPolicy = {
  read_web_hook: maintainers,
  admin_web_hook: maintainers,
};

/** GitLab's GlobalPolicy, for the instance's system hooks: administrators only. */
export const SystemHookPolicy = {
  read_system_hook: administrator as Rule<null, never>,
  admin_system_hook: administrator as Rule<null, never>,
};

/**
 * GitLab's GroupPolicy `read_web_hook` and `admin_web_hook` on a group, which `admin_group` (Owners, and
 * administrators) enables: named apart here since one name holds one subject's rule.
 */
export const GroupHookPolicy = {
  read_group_web_hook: groupOwners,
  admin_group_web_hook: groupOwners,
};

/** All three, as the module registers them. */
export const hookPolicy = { ...ProjectHookPolicy, ...SystemHookPolicy, ...GroupHookPolicy };

type HookPolicyRules = typeof hookPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends HookPolicyRules {}
}
