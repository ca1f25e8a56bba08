/** Snippets: personal and project snippets, each a repository of its own whose commits version its files. */
import { defineModule } from '../module.js';
import { snippetJobs } from './jobs.js';
import './noteable.js';
import { snippetNotesResolvers } from './notes-resolvers.js';
import { noteRoutes } from '../notes/routes.js';
import { snippetPolicy } from './policy.js';
import { snippetResolvers } from './resolvers.js';
import { snippetRoutes } from './routes.js';
import { SnippetsService } from './service.js';

declare module '../module.js' {
  interface Services {
    snippets: SnippetsService;
  }
}

export const snippetsModule = defineModule({
  name: 'snippets',
  schema: ['snippets.graphql', 'snippet_notes.graphql'],
  operations: ['snippets.graphql'],
  resolvers: {
    ...snippetResolvers,
    ...snippetNotesResolvers,
    Snippet: { ...snippetResolvers.Snippet, ...snippetNotesResolvers.Snippet },
  },
  policy: snippetPolicy,
  routes: [...snippetRoutes, ...noteRoutes('/projects/:id/snippets/:noteable_id', 'SNIPPET')],
  uses: ['projects', 'notes', 'uploads'],
  service: (base, uses) => new SnippetsService(base, uses.projects, uses.uploads),
  jobs: snippetJobs,
  projectTeardown: ({ contextFor }, projectId) => contextFor(null).services.snippets.teardownProject(projectId),
});
