/** Every REST route table, in matching order (static segments such as `/self` before `/:id`). */
import type { RestRoute } from '../route.js';
import { userRoutes } from './users.js';
import { groupRoutes } from './groups.js';
import { projectRoutes } from './projects.js';
import { namespaceRoutes } from './namespaces.js';

export const restRoutes: RestRoute[] = [...userRoutes, ...groupRoutes, ...projectRoutes, ...namespaceRoutes];
