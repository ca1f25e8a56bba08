/**
 * Notes and discussions: one engine for every noteable (noteables.ts, the registry kinds join), commits first
 * (commits.ts: the Commits API's comments and the Discussions API on commits), GitLab's Note and Discussion in
 * GraphQL with createNote/updateNote/destroyNote, Markdown rendered safe (markdown.ts), NotePolicy (policy.ts).
 */
import { defineModule } from '../module.js';
import './activity.js';
import './commits.js';
import { createNotesLoaders, type NotesLoaders } from './loaders.js';
import { notesPolicy } from './policy.js';
import { notesResolvers } from './resolvers.js';
import { notesRoutes } from './routes.js';
import { NotesService } from './service.js';

declare module '../module.js' {
  interface Services {
    notes: NotesService;
  }
  interface Loaders {
    notes: NotesLoaders;
  }
}

export const notesModule = defineModule({
  name: 'notes',
  schema: ['notes.graphql'],
  operations: ['notes.graphql'],
  resolvers: notesResolvers,
  policy: notesPolicy,
  routes: notesRoutes,
  loaders: (db) => createNotesLoaders(db),
  uses: ['projects', 'repositories', 'activity'],
  service: (base, { projects, repositories, activity }) => new NotesService(base, projects, repositories, activity),
});
