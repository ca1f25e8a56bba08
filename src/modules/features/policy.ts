/**
 * Abilities of the feature flags and the experiment registry, asked without a project (GitLab's GlobalPolicy
 * side). The Features API runs `authenticated_as_admin!`: administrators only. The experiments listing
 * (ee/lib/api/experiments.rb) lets in `gitlab_team_member?` users, humans who are members of the team group
 * (GitLab.com's gitlab-com; here the group EXPERIMENTS_TEAM_GROUP names), and administrators.
 */
import { AccessLevel } from '../../auth/access-levels.js';
import { administrator, anyOf, namespaceLevel, type NamespaceSubject, type Rule } from '../../auth/rules.js';

/** The experiments team: the group EXPERIMENTS_TEAM_GROUP names, null when it names none or none exists. */
export interface ExperimentsTeamSubject {
  group: NamespaceSubject | null;
}

/** Human members of the team group, directly or through a group above it (bots are never team members). */
const teamMember: Rule<ExperimentsTeamSubject, never> = {
  allows: (actor, team) => !!actor.viewer && !actor.viewer.bot && team.group !== null && team.group.kind === 'group' && namespaceLevel(actor, team.group) >= AccessLevel.GUEST,
  where: () => false,
};

export const FeaturePolicy = {
  read_experiments: anyOf<ExperimentsTeamSubject, never>(administrator, teamMember),
  read_feature_flags: administrator as Rule<null, never>,
  admin_feature_flags: administrator as Rule<null, never>,
};

type FeaturePolicyRules = typeof FeaturePolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends FeaturePolicyRules {}
}
