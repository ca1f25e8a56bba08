/**
 * Abilities on webhooks. ProjectPolicy: Maintainers read and administer a project's hooks (`admin_project` enables
 * `read_web_hook` and `admin_web_hook`). System hooks are GlobalPolicy's, which only administrators hold
 * (`system_hooks` asked with no subject).
 */
import { adminProjectMember, administrator, type Rule } from '../../auth/rules.js';

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

/** Both, as the module registers them. */
export const hookPolicy = { ...ProjectHookPolicy, ...SystemHookPolicy };

type HookPolicyRules = typeof hookPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends HookPolicyRules {}
}
