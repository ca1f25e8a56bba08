/**
 * Markdown uploads: a project's attachments (the Markdown uploads API, served at `/<project>/uploads/<secret>/<name>`
 * and `/-/project/<id>/uploads/…`), users' temporary uploads and personal snippets' files (the web UploadsController,
 * `POST /uploads/user|personal_snippet`, served under `/uploads/-/system/…`): http.ts serves the web paths.
 */
import { defineModule } from '../module.js';
import { uploadsPolicy } from './policy.js';
import { uploadsResolvers } from './resolvers.js';
import { uploadRoutes } from './routes.js';
import { UploadsService } from './service.js';

declare module '../module.js' {
  interface Services {
    uploads: UploadsService;
  }
}

export const uploadsModule = defineModule({
  name: 'uploads',
  schema: ['uploads.graphql'],
  operations: ['uploads.graphql'],
  resolvers: uploadsResolvers,
  policy: uploadsPolicy,
  routes: uploadRoutes,
  uses: ['users'],
  service: (base, uses) => new UploadsService(base, uses.users),
  projectTeardown: ({ contextFor }, projectId) => contextFor(null).services.uploads.removeAll({ model: 'project', id: projectId }),
});
