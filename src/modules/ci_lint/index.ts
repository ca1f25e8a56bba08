/** CI Lint: a `.gitlab-ci.yml` checked as GitLab checks it, statically or as a simulated pipeline. */
import { defineModule } from '../module.js';
import { ciLintResolvers } from './resolvers.js';
import { ciLintRoutes } from './routes.js';
import { CiLintService } from './service.js';

declare module '../module.js' {
  interface Services {
    ci_lint: CiLintService;
  }
}

export const ciLintModule = defineModule({
  name: 'ci_lint',
  schema: ['ci_lint.graphql'],
  operations: ['ci_lint.graphql'],
  resolvers: ciLintResolvers,
  routes: ciLintRoutes,
  uses: ['projects', 'repositories', 'protected_branches', 'ci_variables'],
  service: (base, { projects, repositories, protected_branches, ci_variables }) => new CiLintService(base, projects, repositories, protected_branches, ci_variables),
});
