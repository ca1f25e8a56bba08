/**
 * Customer relations management (GitLab's CustomerRelations): contacts and organizations of root groups, their
 * lists and counts on every group of the tree (GraphQL's Group.contacts, Group.organizations), the create and
 * update mutations, and the contacts of issues (Issue.customerRelationsContacts, issueSetCrmContacts). GitLab's REST
 * API has no CRM endpoints, so neither does this module.
 */
import { defineModule } from '../module.js';
import { crmPolicy } from './policy.js';
import { crmResolvers } from './resolvers.js';
import { CrmService } from './service.js';

declare module '../module.js' {
  interface Services {
    crm: CrmService;
  }
}

export const crmModule = defineModule({
  name: 'crm',
  schema: ['crm.graphql'],
  operations: [],
  resolvers: crmResolvers,
  policy: crmPolicy,
  routes: [],
  uses: ['groups', 'issues', 'notes'],
  service: (base, { groups, issues, notes }) => new CrmService(base, groups, issues, notes),
});
