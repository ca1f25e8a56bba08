/**
 * Notes and discussions: one engine for every noteable (noteables.ts, the registry kinds join), commits first
 * (commits.ts: the Commits API's comments and the Discussions API on commits), GitLab's Note and Discussion in
 * GraphQL with createNote/updateNote/destroyNote, Markdown rendered safe (markdown.ts), NotePolicy (policy.ts), and
 * merge request draft notes (drafts/: the Draft Notes API).
 */
import { defineModule } from '../module.js';
import './activity.js';
import './commits.js';
import { createNotesLoaders, type NotesLoaders } from './loaders.js';
import { notesPolicy } from './policy.js';
import { draftNoteResolvers } from './drafts/resolvers.js';
import { notesResolvers } from './resolvers.js';
import { draftNoteRoutes, notesRoutes } from './routes.js';
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
  schema: ['notes.graphql', 'draft_notes.graphql'],
  operations: ['notes.graphql', 'draft_notes.graphql'],
  resolvers: {
    ...notesResolvers,
    ...draftNoteResolvers,
    Query: { ...notesResolvers.Query, ...draftNoteResolvers.Query },
    Mutation: { ...notesResolvers.Mutation, ...draftNoteResolvers.Mutation },
  },
  policy: notesPolicy,
  routes: [...notesRoutes, ...draftNoteRoutes],
  loaders: (db) => createNotesLoaders(db),
  uses: ['projects', 'repositories', 'activity'],
  service: (base, { projects, repositories, activity }) => new NotesService(base, projects, repositories, activity),
});
