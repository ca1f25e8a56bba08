/**
 * Abilities on instance-wide OAuth applications. GitLab's Applications API runs `authenticated_as_admin!` on every
 * route: only administrators list, create, renew and delete them (GitLab's admin area, `Admin::ApplicationsController`).
 */
import { administrator, type Rule } from '../../auth/rules.js';

/** An OAuth application, as the abilities see it. */
export interface OauthApplicationSubject {
  id: number;
}

/** GitLab's policy for `Authn::OauthApplication` of the instance (no owner): administrators only. */
export const OauthApplicationPolicy = {
  read_oauth_applications: administrator as Rule<null, never>,
  create_oauth_application: administrator as Rule<null, never>,
  renew_oauth_application_secret: administrator as Rule<OauthApplicationSubject, never>,
  destroy_oauth_application: administrator as Rule<OauthApplicationSubject, never>,
};

type OauthApplicationPolicyRules = typeof OauthApplicationPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends OauthApplicationPolicyRules {}
}
