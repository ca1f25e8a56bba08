/**
 * Draft notes in GraphQL (ours: GitLab 16.3 serves them through REST alone): the current user's drafts on a merge
 * request, and the mutations behind the Draft Notes API's writes.
 */
import type { Context } from '../../../context.js';
import { parseRef } from '../../../graphql/ids.js';
import type { PageArgs } from '../../../graphql/connection.js';
import type { MergeRequestRow } from '../../merge_requests/service.js';
import { draftPositionHash, type DraftNoteInput, type DraftNoteRow } from './service.js';

interface MergeRequestArgs {
  projectPath: string;
  iid: string;
}

/** The merge request the arguments name, as a noteable the viewer may read (`404 Project Not Found`, else `404 Not found`). */
const mergeRequestOf = (ctx: Context, args: MergeRequestArgs) => ctx.services.notes.drafts.mergeRequest(ctx.services, parseRef(args.projectPath, 'Project', 'projectPath'), args.iid);

export const draftNoteResolvers = {
  DraftNote: {
    id: (d: DraftNoteRow) => d.id,
    databaseId: (d: DraftNoteRow) => d.id,
    body: (d: DraftNoteRow) => d.note,
    positionHash: (d: DraftNoteRow) => draftPositionHash(d.position),
  },
  Query: {
    mergeRequestDraftNotes: async (_: unknown, args: MergeRequestArgs & PageArgs, ctx: Context) => ctx.services.notes.drafts.list((await mergeRequestOf(ctx, args)).id!, args),
    mergeRequestDraftNote: async (_: unknown, args: MergeRequestArgs & { id: number }, ctx: Context) => ctx.services.notes.drafts.find((await mergeRequestOf(ctx, args)).id!, args.id),
  },
  Mutation: {
    draftNoteCreate: async (_: unknown, args: MergeRequestArgs & DraftNoteInput, ctx: Context) => ({
      draftNote: await ctx.services.notes.drafts.create(ctx.services, await mergeRequestOf(ctx, args), args),
    }),
    draftNoteUpdate: async (_: unknown, args: MergeRequestArgs & { id: number; note?: string | null; position?: Record<string, unknown> | null }, ctx: Context) => ({
      draftNote: await ctx.services.notes.drafts.update(await mergeRequestOf(ctx, args), args.id, args.note, args.position),
    }),
    draftNoteDestroy: async (_: unknown, args: MergeRequestArgs & { id: number }, ctx: Context) => ({
      draftNote: await ctx.services.notes.drafts.destroy(await mergeRequestOf(ctx, args), args.id),
    }),
    draftNotePublish: async (_: unknown, args: MergeRequestArgs & { id?: number | null }, ctx: Context) => {
      const n = await mergeRequestOf(ctx, args);
      if (args.id == null) await ctx.services.notes.drafts.publishAll(ctx.services, n);
      else await ctx.services.notes.drafts.publish(ctx.services, n, args.id);
      return { mergeRequest: (n as typeof n & { mergeRequest: MergeRequestRow }).mergeRequest };
    },
  },
};
