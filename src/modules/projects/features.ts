/**
 * What the projects API takes for a project's feature settings (GitLab's `*_access_level` parameters and the
 * deprecated `*_enabled` booleans, ProjectFeaturesCompatibility) and ProjectFeature's validation of the result.
 * The features themselves, their defaults and their meaning for access are in src/auth/project-features.ts.
 */
import {
  FEATURE_COLUMNS,
  FEATURE_LEVEL_RANK,
  type FeatureAccessLevel,
  type FeatureColumn,
  type ProjectFeatureLevels,
} from '../../auth/project-features.js';

/** The deprecated booleans GitLab still takes, each with the feature it turns `enabled` (true) or `disabled` (false). */
interface FeatureBooleans {
  issuesEnabled?: boolean | null;
  mergeRequestsEnabled?: boolean | null;
  wikiEnabled?: boolean | null;
  jobsEnabled?: boolean | null;
  snippetsEnabled?: boolean | null;
  containerRegistryEnabled?: boolean | null;
}

/** New levels for a project's features (GraphQL's ProjectFeaturesInput); those absent stay as they are. */
export type ProjectFeaturesInput = FeatureBooleans & Partial<Record<FeatureColumn, FeatureAccessLevel | null>>;

/**
 * The levels the input sets, by column. Where a boolean and a level name the same feature, the later one in GitLab's
 * parameter order wins: `issues_enabled`, `merge_requests_enabled`, `wiki_enabled` and `snippets_enabled` come before
 * the levels, `container_registry_enabled` after them, and `jobs_enabled` last (the API renames it `builds_enabled`
 * after reading the others).
 */
export function featureChanges(input: ProjectFeaturesInput | null | undefined): Partial<ProjectFeatureLevels> {
  const changes: Partial<ProjectFeatureLevels> = {};
  if (!input) return changes;
  const flag = (value: boolean | null | undefined, column: FeatureColumn) => {
    if (value != null) changes[column] = value ? 'enabled' : 'disabled';
  };
  flag(input.issuesEnabled, 'issuesAccessLevel');
  flag(input.mergeRequestsEnabled, 'mergeRequestsAccessLevel');
  flag(input.wikiEnabled, 'wikiAccessLevel');
  flag(input.snippetsEnabled, 'snippetsAccessLevel');
  for (const column of Object.values(FEATURE_COLUMNS)) {
    const level = input[column];
    if (level != null) changes[column] = level;
  }
  flag(input.containerRegistryEnabled, 'containerRegistryAccessLevel');
  flag(input.jobsEnabled, 'buildsAccessLevel');
  return changes;
}

/** The features ProjectFeature#repository_children_level keeps no more open than the repository. */
const REPOSITORY_CHILDREN = ['mergeRequestsAccessLevel', 'buildsAccessLevel'] as const;

/** ProjectFeature's validation errors for these levels, keyed as the project's own errors name them (`project_feature.…`). */
export function featureErrors(levels: ProjectFeatureLevels): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const rank = (level: string) => FEATURE_LEVEL_RANK[level as FeatureAccessLevel];
  for (const column of REPOSITORY_CHILDREN) {
    if (rank(levels[column]) > rank(levels.repositoryAccessLevel)) {
      errors[`projectFeature.${column}`] = ['cannot have higher visibility level than repository access level'];
    }
  }
  return errors;
}
