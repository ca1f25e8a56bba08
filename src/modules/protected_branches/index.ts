/** Protected branches: who may push to, merge into and unprotect which branches of a project. */
import { defineModule } from '../module.js';
import { protectedBranchResolvers } from './resolvers.js';
import { protectedBranchRoutes } from './routes.js';
import { ProtectedBranchesService } from './service.js';
import { protectedBranchPolicy } from './policy.js';

declare module '../module.js' {
  interface Services {
    protected_branches: ProtectedBranchesService;
  }
}

export const protectedBranchesModule = defineModule({
  name: 'protected_branches',
  schema: ['protected_branches.graphql'],
  operations: ['protected_branches.graphql'],
  resolvers: protectedBranchResolvers,
  policy: protectedBranchPolicy,
  routes: protectedBranchRoutes,
  uses: [],
  service: (base) => new ProtectedBranchesService(base),
});
