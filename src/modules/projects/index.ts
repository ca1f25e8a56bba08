/** Projects: lookups by ID or path (old paths redirect), lists with GitLab's filters, creation, settings, transfer, forks, stars and deletion. */
import { defineModule } from '../module.js';
import { projectJobs } from './jobs.js';
import { createProjectLoaders, type ProjectLoaders } from './loaders.js';
import { projectResolvers } from './resolvers.js';
import { projectRoutes } from './routes.js';
import { ProjectsService } from './service.js';
import { projectPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    projects: ProjectsService;
  }
  interface Loaders {
    projects: ProjectLoaders;
  }
}

export const projectsModule = defineModule({
  name: 'projects',
  schema: ['projects.graphql', 'project_features.graphql'],
  operations: ['projects.graphql'],
  resolvers: projectResolvers,
  policy: projectPolicy,
  routes: projectRoutes,
  loaders: createProjectLoaders,
  uses: ['namespaces', 'members', 'activity'],
  service: (base, { namespaces, members, activity }) => new ProjectsService(base, namespaces, members, activity),
  jobs: projectJobs,
});
