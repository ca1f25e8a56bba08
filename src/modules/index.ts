/**
 * Every domain module, in dependency order: a module's `uses` name only modules listed before it. The schema,
 * the context, the REST routes and the job workers loop over this list; adding a domain adds one line here.
 */
import { metadataModule } from './metadata/index.js';
import { activityModule } from './activity/index.js';
import { namespacesModule } from './namespaces/index.js';
import { usersModule } from './users/index.js';
import { tokensModule } from './tokens/index.js';
import { membersModule } from './members/index.js';
import { projectsModule } from './projects/index.js';
import { groupsModule } from './groups/index.js';
import { uploadsModule } from './uploads/index.js';
import { sharingModule } from './sharing/index.js';
import { protectedBranchesModule } from './protected_branches/index.js';
import { repositoriesModule } from './repositories/index.js';
import { ciVariablesModule } from './ci_variables/index.js';
import { ciLintModule } from './ci_lint/index.js';
import { pipelinesModule } from './pipelines/index.js';
import { pipelineSchedulesModule } from './pipeline_schedules/index.js';
import { environmentsModule } from './environments/index.js';
import { jobTokenScopeModule } from './job_token_scope/index.js';
import { runnersModule } from './runners/index.js';
import { ciMinutesModule } from './ci_minutes/index.js';
import { applicationsModule } from './applications/index.js';
import { repositoryStorageMovesModule } from './repository_storage_moves/index.js';
import { hooksModule } from './hooks/index.js';
import { projectAccessTokensModule } from './project_access_tokens/index.js';
import { errorTrackingModule } from './error_tracking/index.js';
import { packagesModule } from './packages/index.js';
import { alertManagementModule } from './alert_management/index.js';
import { todosModule } from './todos/index.js';
import { notesModule } from './notes/index.js';
import { snippetsModule } from './snippets/index.js';
import { subscriptionsModule } from './subscriptions/index.js';
import { labelsModule } from './labels/index.js';
import { milestonesModule } from './milestones/index.js';
import { resourceEventsModule } from './resource_events/index.js';
import { incidentManagementModule } from './incident_management/index.js';
import { issuesModule } from './issues/index.js';
import { issueLinksModule } from './issue_links/index.js';
import { crmModule } from './crm/index.js';
import { mergeRequestsModule } from './merge_requests/index.js';
import { mergeTrainsModule } from './merge_trains/index.js';
import { epicsModule } from './epics/index.js';
import { iterationsModule } from './iterations/index.js';
import { awardEmojiModule } from './award_emoji/index.js';
import { featuresModule } from './features/index.js';
import { releasesModule } from './releases/index.js';
import { quickActionsModule } from './quick_actions/index.js';
import { registerPolicy } from '../auth/policy.js';

export const modules = [metadataModule, activityModule, namespacesModule, usersModule, tokensModule, membersModule, projectsModule, groupsModule, uploadsModule, sharingModule, protectedBranchesModule, repositoriesModule, ciVariablesModule, ciLintModule, pipelinesModule, pipelineSchedulesModule, environmentsModule, jobTokenScopeModule, runnersModule, ciMinutesModule, applicationsModule, repositoryStorageMovesModule, hooksModule, projectAccessTokensModule, errorTrackingModule, packagesModule, todosModule, subscriptionsModule, labelsModule, notesModule, snippetsModule, resourceEventsModule, milestonesModule, incidentManagementModule, issuesModule, alertManagementModule, issueLinksModule, crmModule, epicsModule, iterationsModule, mergeRequestsModule, mergeTrainsModule, awardEmojiModule, featuresModule, releasesModule, quickActionsModule] as const;

// Each module's abilities into the one table of src/auth/policy.ts, once, before any request asks one.
for (const module of modules) if (module.policy) registerPolicy(module.name, module.policy);

