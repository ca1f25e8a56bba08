/**
 * GraphQL's issueSetSubscription, mergeRequestSetSubscription and epicSetSubscription (GitLab's ResolvesSubscription):
 * the issuable found and read-checked by its own module, then the viewer's choice set here. The REST subscribe and
 * unsubscribe routes run through them.
 */
import type { Context } from '../../context.js';
import { iidOf, parseRef } from '../../graphql/ids.js';
import { participant } from './service.js';

interface SetSubscription {
  iid: string;
  subscribedState: boolean;
}

const projectOf = (ctx: Context, projectPath: string) => ctx.services.projects.get(parseRef(projectPath, 'Project', 'projectPath'));

export const subscriptionResolvers = {
  Mutation: {
    issueSetSubscription: async (_: unknown, input: SetSubscription & { projectPath: string }, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const issue = await ctx.services.issues.get(project, iidOf(input.iid));
      await ctx.services.subscriptions.set({ type: 'Issue', id: issue.id, projectId: project.id, groupId: null }, input.subscribedState, participant(issue));
      return { issue };
    },
    mergeRequestSetSubscription: async (_: unknown, input: SetSubscription & { projectPath: string }, ctx: Context) => {
      const project = await projectOf(ctx, input.projectPath);
      const mergeRequest = await ctx.services.merge_requests.get(project, iidOf(input.iid));
      await ctx.services.subscriptions.set({ type: 'MergeRequest', id: mergeRequest.id, projectId: project.id, groupId: null }, input.subscribedState, participant(mergeRequest));
      return { mergeRequest };
    },
    epicSetSubscription: async (_: unknown, input: SetSubscription & { groupPath: string }, ctx: Context) => {
      const group = await ctx.services.epics.group(parseRef(input.groupPath, 'Group', 'groupPath'));
      const epic = await ctx.services.epics.get(group, iidOf(input.iid));
      await ctx.services.subscriptions.set({ type: 'Epic', id: epic.id, projectId: null, groupId: group.id }, input.subscribedState, participant(epic));
      return { epic };
    },
  },
};
