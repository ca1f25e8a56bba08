/** CI/CD variables of the instance, groups and projects, and the variables a project's job gets. */
import { defineModule } from '../module.js';
import { ciVariableResolvers } from './resolvers.js';
import { ciVariableRoutes } from './routes.js';
import { CiVariablesService } from './service.js';
import { ciVariablesPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    ci_variables: CiVariablesService;
  }
}

export const ciVariablesModule = defineModule({
  name: 'ci_variables',
  schema: ['ci_variables.graphql'],
  operations: ['ci_variables.graphql'],
  resolvers: ciVariableResolvers,
  policy: ciVariablesPolicy,
  routes: ciVariableRoutes,
  uses: [],
  service: (base) => new CiVariablesService(base),
});
