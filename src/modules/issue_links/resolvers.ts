/** GraphQL resolvers of issue links; the REST routes run through them too. */
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { globalId, iidOf, parseRef } from '../../graphql/ids.js';
import type { IssueRow } from '../issues/service.js';
import type { IssueLinkView, LinkType, RelatedIssue } from './service.js';

const projectOf = (ctx: Context, path: string) => ctx.services.projects.get(parseRef(path, 'Project', 'projectPath'));

interface IssueKey {
  projectPath: string;
  iid: string;
}

export const issueLinkResolvers = {
  IssueLinkType: { RELATES_TO: 'relates_to', BLOCKS: 'blocks', IS_BLOCKED_BY: 'is_blocked_by' },
  RelatedIssue: {
    issueLinkId: (r: RelatedIssue) => globalId('IssueLink', r.link.id),
    issueLinkDatabaseId: (r: RelatedIssue) => r.link.id,
    linkCreatedAt: (r: RelatedIssue) => r.link.createdAt,
    linkUpdatedAt: (r: RelatedIssue) => r.link.updatedAt,
  },
  IssueLink: {
    id: (v: IssueLinkView) => globalId('IssueLink', v.link.id),
    databaseId: (v: IssueLinkView) => v.link.id,
    sourceIssue: (v: IssueLinkView) => v.source,
    targetIssue: (v: IssueLinkView) => v.target,
    linkType: (v: IssueLinkView) => v.link.linkType,
  },
  Issue: {
    relatedIssues: (i: IssueRow, _a: unknown, ctx: Context) => ctx.services.issue_links.related(i),
    blocked: async (i: IssueRow, _a: unknown, ctx: Context) => (await ctx.services.issue_links.blockedBy(i)).length > 0,
    blockedByCount: async (i: IssueRow, _a: unknown, ctx: Context) => (await ctx.services.issue_links.blockedBy(i)).length,
    blockedByIssues: async (i: IssueRow, args: PageArgs, ctx: Context) => listConnection(args, await ctx.services.issue_links.blockedBy(i)),
    blockingCount: (i: IssueRow) => i.blockingIssuesCount,
  },
  Query: {
    relatedIssues: async (_: unknown, args: IssueKey, ctx: Context) => {
      const project = await projectOf(ctx, args.projectPath);
      return ctx.services.issue_links.listed(project, iidOf(args.iid));
    },
    issueLink: async (_: unknown, args: IssueKey & { issueLinkId: number }, ctx: Context) =>
      ctx.services.issue_links.get(await projectOf(ctx, args.projectPath), iidOf(args.iid), args.issueLinkId),
  },
  Mutation: {
    issueLinkCreate: async (_: unknown, input: IssueKey & { targetProjectPath: string; targetIssueIid: string; linkType?: LinkType | null }, ctx: Context) => ({
      issueLink: await ctx.services.issue_links.create(
        await projectOf(ctx, input.projectPath),
        iidOf(input.iid),
        parseRef(input.targetProjectPath, 'Project', 'targetProjectPath'),
        iidOf(input.targetIssueIid),
        input.linkType ?? 'relates_to',
      ),
    }),
    issueLinkDestroy: async (_: unknown, input: IssueKey & { issueLinkId: number }, ctx: Context) => ({
      issueLink: await ctx.services.issue_links.destroy(await projectOf(ctx, input.projectPath), iidOf(input.iid), input.issueLinkId),
    }),
  },
};
