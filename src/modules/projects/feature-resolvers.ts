/** GraphQL resolvers of a project's feature settings (graphql/project_features.graphql). */
import { FEATURE_LEVEL_RANK, defaultFeatureLevels, featureLevel, type ProjectFeatureName } from '../../auth/project-features.js';
import type { Context } from '../../context.js';
import type { ProjectRow } from './service.js';

/** GitLab's Project#feature_available? for the viewer: the `*_enabled` fields. */
const availableTo = (feature: ProjectFeatureName) => (p: ProjectRow, _a: unknown, ctx: Context) => ctx.access.featureAvailable(p, feature);

/** GitLab's ProjectFeatureAccess: a feature's level as an integer and as the enum. */
const accessOf = (feature: ProjectFeatureName) => (p: ProjectRow) => {
  const level = featureLevel(p, feature);
  return { integerValue: FEATURE_LEVEL_RANK[level], stringValue: level };
};

export const projectFeatureResolvers = {
  Project: {
    issuesEnabled: availableTo('issues'),
    mergeRequestsEnabled: availableTo('merge_requests'),
    wikiEnabled: availableTo('wiki'),
    snippetsEnabled: availableTo('snippets'),
    containerRegistryEnabled: availableTo('container_registry'),
    jobsEnabled: availableTo('builds'),
    issuesAccessLevel: accessOf('issues'),
    forkingAccessLevel: accessOf('forking'),
    mergeRequestsAccessLevel: accessOf('merge_requests'),
    featureSettings: (p: ProjectRow) => p.features ?? defaultFeatureLevels(p.visibility),
  },
  ProjectFeatureAccessLevel: { DISABLED: 'disabled', PRIVATE: 'private', ENABLED: 'enabled' },
  ProjectPagesAccessLevel: { DISABLED: 'disabled', PRIVATE: 'private', ENABLED: 'enabled', PUBLIC: 'public' },
};
