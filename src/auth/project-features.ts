/**
 * GitLab's project features (ProjectFeature, Featurable): each feature of a project is `disabled` (for nobody),
 * `private` (for the project's members holding the feature's minimum level, and administrators), `enabled` (for
 * everyone who may read the project) or, for pages only, `public`. Their names, stored columns and defaults live here,
 * once, for the policy (which enforces them) and the projects module (which stores and shows them).
 */
import { AccessLevel } from './access-levels.js';

/** The features GitLab's projects API exposes, by their API names, each with its column in `project_features`. */
export const FEATURE_COLUMNS = {
  issues: 'issuesAccessLevel',
  repository: 'repositoryAccessLevel',
  merge_requests: 'mergeRequestsAccessLevel',
  forking: 'forkingAccessLevel',
  wiki: 'wikiAccessLevel',
  builds: 'buildsAccessLevel',
  snippets: 'snippetsAccessLevel',
  pages: 'pagesAccessLevel',
  analytics: 'analyticsAccessLevel',
  container_registry: 'containerRegistryAccessLevel',
  security_and_compliance: 'securityAndComplianceAccessLevel',
  releases: 'releasesAccessLevel',
  environments: 'environmentsAccessLevel',
  feature_flags: 'featureFlagsAccessLevel',
  infrastructure: 'infrastructureAccessLevel',
  monitor: 'monitorAccessLevel',
  model_experiments: 'modelExperimentsAccessLevel',
  model_registry: 'modelRegistryAccessLevel',
} as const;

export type ProjectFeatureName = keyof typeof FEATURE_COLUMNS;
export type FeatureColumn = (typeof FEATURE_COLUMNS)[ProjectFeatureName];
export type FeatureAccessLevel = 'disabled' | 'private' | 'enabled' | 'public';

/** A project's row of `project_features`: one level per feature. */
export type ProjectFeatureLevels = Record<FeatureColumn, string>;

/** Featurable's order of the levels (DISABLED 0 < PRIVATE 10 < ENABLED 20 < PUBLIC 30). */
export const FEATURE_LEVEL_RANK: Readonly<Record<FeatureAccessLevel, number>> = { disabled: 0, private: 10, enabled: 20, public: 30 };

/** ProjectFeature::PRIVATE_FEATURES_MIN_ACCESS_LEVEL: the level a member needs for a `private` feature (Guest for the others). */
const PRIVATE_FEATURES_MIN_ACCESS_LEVEL: Partial<Record<ProjectFeatureName, number>> = {
  merge_requests: AccessLevel.REPORTER,
  container_registry: AccessLevel.REPORTER,
  environments: AccessLevel.REPORTER,
};

/** ProjectFeature.required_minimum_access_level. */
export function requiredMinimumAccessLevel(feature: ProjectFeatureName): number {
  return PRIVATE_FEATURES_MIN_ACCESS_LEVEL[feature] ?? AccessLevel.GUEST;
}

/**
 * GitLab's defaults for a new project (ProjectFeature's attribute defaults): everything `enabled` but security and
 * compliance (`private`) and pages, `enabled` on a public project and `private` otherwise (set_pages_access_level).
 */
export function defaultFeatureLevels(visibility: string): ProjectFeatureLevels {
  const levels = Object.fromEntries(Object.values(FEATURE_COLUMNS).map((column) => [column, 'enabled'])) as ProjectFeatureLevels;
  levels.securityAndComplianceAccessLevel = 'private';
  levels.pagesAccessLevel = visibility === 'public' ? 'enabled' : 'private';
  return levels;
}

/** What reading a project's feature levels needs: its visibility, and its row of `project_features` when loaded. */
export interface FeatureSubject {
  visibility: string;
  /** Absent or null (a project read without its features): GitLab's defaults. */
  features?: ProjectFeatureLevels | null;
}

/** The level of one feature of a project. */
export function featureLevel(project: FeatureSubject, feature: ProjectFeatureName): FeatureAccessLevel {
  const column = FEATURE_COLUMNS[feature];
  return (project.features?.[column] ?? defaultFeatureLevels(project.visibility)[column]) as FeatureAccessLevel;
}
