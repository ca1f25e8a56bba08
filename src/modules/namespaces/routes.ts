/** Namespaces (GitLab's `lib/api/namespaces.rb`; seed section 4.12). */
import type { RestRoute } from '../../rest/route.js';

export const namespaceRoutes: RestRoute[] = [
  { method: 'GET', path: '/namespaces', operation: 'RestListNamespaces', paginate: true },
  { method: 'GET', path: '/namespaces/:id/exists', operation: 'RestNamespaceExists' },
  { method: 'GET', path: '/namespaces/:id', operation: 'RestGetNamespace', notFound: 'Namespace' },
];
