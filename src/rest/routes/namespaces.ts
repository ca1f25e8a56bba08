/** Namespaces (seed section 4.12). */
import type { RestRoute } from '../route.js';

export const namespaceRoutes: RestRoute[] = [
  { method: 'GET', path: '/namespaces', operation: 'RestListNamespaces', paginate: true, authenticate: true },
  { method: 'GET', path: '/namespaces/:id/exists', operation: 'RestNamespaceExists', authenticate: true },
  { method: 'GET', path: '/namespaces/:id', operation: 'RestGetNamespace', notFound: 'Namespace', authenticate: true },
];
