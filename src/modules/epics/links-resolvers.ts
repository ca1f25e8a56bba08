/** GraphQL resolvers of child and related epics; the REST Epic Links and Related Epic Links APIs run through them too. */
import type { Context } from '../../context.js';
import { listConnection, type PageArgs } from '../../graphql/connection.js';
import { iidOf, parseRef } from '../../graphql/ids.js';
import { webUrl } from '../../graphql/resolvers.js';
import type { LinkType } from '../issue_links/service.js';
import type { RelatedEpic, RelatedEpicLinkView } from './related.js';
import type { EpicRow } from './service.js';
import { groupArg, type EpicKey } from './resolvers.js';


export const epicLinkResolvers = {
  Epic: {
    blocked: async (e: EpicRow, _a: unknown, ctx: Context) => (await ctx.services.epics.related.blocking(e)).blockedBy.length > 0,
    blockedByCount: async (e: EpicRow, _a: unknown, ctx: Context) => (await ctx.services.epics.related.blocking(e)).blockedBy.length,
    blockedByEpics: async (e: EpicRow, args: PageArgs, ctx: Context) => listConnection(args, (await ctx.services.epics.related.blocking(e)).blockedBy),
    blockingCount: async (e: EpicRow, _a: unknown, ctx: Context) => (await ctx.services.epics.related.blocking(e)).blocking,
    relatedEpics: (e: EpicRow, _a: unknown, ctx: Context) => ctx.services.epics.related.related(e),
    childEpics: async (e: EpicRow, args: PageArgs, ctx: Context) => {
      const group = await ctx.loaders.namespaces.byId.load(e.groupId);
      return ctx.services.epics.links.children(group!, e, args);
    },
    relationUrl: async (e: EpicRow, _a: unknown, ctx: Context) => {
      const parent = e.parentId === null ? null : await ctx.loaders.epics.byId.load(e.parentId);
      const group = parent && (await ctx.loaders.namespaces.byId.load(parent.groupId));
      return parent && group ? webUrl(ctx, `groups/${group.fullPath}/-/epics/${parent.iid}/links/${e.id}`) : null;
    },
  },
  RelatedEpic: {
    relatedEpicLinkId: (r: RelatedEpic) => r.link.id,
    linkCreatedAt: (r: RelatedEpic) => r.link.createdAt,
    linkUpdatedAt: (r: RelatedEpic) => r.link.updatedAt,
  },
  RelatedEpicLink: {
    databaseId: (v: RelatedEpicLinkView) => v.link.id,
    sourceEpic: (v: RelatedEpicLinkView) => v.source,
    targetEpic: (v: RelatedEpicLinkView) => v.target,
    linkType: (v: RelatedEpicLinkView) => v.link.linkType,
    createdAt: (v: RelatedEpicLinkView) => v.link.createdAt,
    updatedAt: (v: RelatedEpicLinkView) => v.link.updatedAt,
  },
  Mutation: {
    epicChildAssign: async (_: unknown, input: EpicKey & { childEpicId: number }, ctx: Context) => ({
      epic: await ctx.services.epics.links.assign(await groupArg(ctx, input.groupPath), iidOf(input.iid), input.childEpicId),
    }),
    epicChildCreate: async (_: unknown, input: EpicKey & { title: string; confidential?: boolean | null }, ctx: Context) => ({
      epic: await ctx.services.epics.links.create(await groupArg(ctx, input.groupPath), iidOf(input.iid), { title: input.title, confidential: input.confidential }),
    }),
    epicChildMove: async (_: unknown, input: EpicKey & { childEpicId: number; moveBeforeId?: number | null; moveAfterId?: number | null }, ctx: Context) => ({
      epic: await ctx.services.epics.links.move(await groupArg(ctx, input.groupPath), iidOf(input.iid), input.childEpicId, input.moveBeforeId ?? null, input.moveAfterId ?? null),
    }),
    epicChildRemove: async (_: unknown, input: EpicKey & { childEpicId: number }, ctx: Context) => ({
      epic: await ctx.services.epics.links.unassign(await groupArg(ctx, input.groupPath), iidOf(input.iid), input.childEpicId),
    }),
    relatedEpicLinkCreate: async (_: unknown, input: EpicKey & { targetGroupPath: string; targetEpicIid: number; linkType?: LinkType | null }, ctx: Context) => ({
      relatedEpicLink: await ctx.services.epics.related.create(
        await groupArg(ctx, input.groupPath),
        iidOf(input.iid),
        parseRef(input.targetGroupPath, 'Group', 'target_group_id'),
        input.targetEpicIid,
        input.linkType ?? 'relates_to',
      ),
    }),
    relatedEpicLinkDestroy: async (_: unknown, input: EpicKey & { relatedEpicLinkId: number }, ctx: Context) => ({
      relatedEpicLink: await ctx.services.epics.related.destroy(await groupArg(ctx, input.groupPath), iidOf(input.iid), input.relatedEpicLinkId),
    }),
  },
};
