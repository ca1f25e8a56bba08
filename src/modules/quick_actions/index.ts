/**
 * Quick actions (GitLab's QuickActions::InterpretService): `/close`, `/label ~bug`, `/assign @ana` … in notes and in
 * issue, merge request and epic descriptions. The extractor (extractor.ts), the engine (engine.ts), the commands of
 * each kind of target (issuable_actions.ts, issue_actions.ts, merge_request_actions.ts, epic_actions.ts) and the
 * service that applies them through the owning modules (service.ts); its SDL is what a note of commands alone answers
 * (NoteCommands). The notes engine and the issues, merge requests and epics resolvers call it.
 */
import { defineModule } from '../module.js';
import { quickActionsResolvers } from './resolvers.js';
import { QuickActionsService } from './service.js';

declare module '../module.js' {
  interface Services {
    quick_actions: QuickActionsService;
  }
}

export const quickActionsModule = defineModule({
  name: 'quick_actions',
  schema: ['quick_actions.graphql'],
  operations: [],
  resolvers: quickActionsResolvers,
  routes: [],
  uses: [],
  service: (base) => new QuickActionsService(base),
});
