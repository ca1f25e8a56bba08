/**
 * A follow-up issue from a merge request's threads (GitLab's Issues::ResolveDiscussions, Issues::BuildService's
 * description and Issues::CreateService#resolve_discussions_with_issue): the merge request of the project named by
 * id (GraphQL) or iid (REST), the thread named or every one still to be resolved, the description listing them, and,
 * once the issue exists, the threads resolved with a system note naming it.
 */
import type { Context } from '../../context.js';
import { webUrl } from '../../graphql/resolvers.js';
import type { Noteable } from '../notes/noteables.js';
import type { DiscussionRow } from '../notes/service.js';
import type { ProjectRow } from '../projects/service.js';
import type { IssueRow } from './service.js';

export interface FollowUpArgs {
  /** GraphQL's `mergeRequestToResolveDiscussionsOf`: the merge request's id. */
  mergeRequestToResolveDiscussionsOf?: number | null;
  /** REST's `merge_request_to_resolve_discussions_of`: its iid in the project. */
  mergeRequestIidToResolveDiscussionsOf?: number | null;
  discussionToResolve?: string | null;
}

export interface FollowUp {
  /** Issues::BuildService#description_for_discussions. */
  description: string;
  /** Resolves the threads for the created issue. */
  resolve(issue: IssueRow): Promise<void>;
}

const plural = (n: number, word: string) => (n === 1 ? word : `${word}s`);

/** Banzai's BlockquoteFenceFilter: a `>>>` fenced block becomes `>` quoted lines. */
function unfenced(text: string): string {
  return text.replace(/^>>>[ \t]*\n([\s\S]*?)\n>>>[ \t]*$/gm, (_m, body: string) => body.split('\n').map((line) => `> ${line}`).join('\n'));
}

/** The follow-up the arguments ask for; null when they name no merge request the viewer may read in the project. */
export async function followUpOf(ctx: Context, project: ProjectRow, args: FollowUpArgs): Promise<FollowUp | null> {
  const { merge_requests: mergeRequests, notes } = ctx.services;
  let mr = null;
  if (args.mergeRequestToResolveDiscussionsOf != null) {
    const found = await mergeRequests.byId(args.mergeRequestToResolveDiscussionsOf);
    mr = found && found.projectId === project.id ? found : null;
  } else if (args.mergeRequestIidToResolveDiscussionsOf != null) {
    mr = await mergeRequests.find(project, args.mergeRequestIidToResolveDiscussionsOf);
  }
  if (!mr) return null;
  const noteable: Noteable = await notes.noteable(ctx.services, 'MergeRequest', { id: project.id }, String(mr.iid));
  const threads = await notes.threadsToResolve(noteable, args.discussionToResolve ?? null);
  const reference = `!${mr.iid}`;
  const items = await Promise.all(threads.map((thread) => item(ctx, project, mr.iid, thread)));
  const description = threads.length
    ? [`The following ${plural(threads.length, 'discussion')} from ${reference} should be addressed:`, ...items].join('\n\n')
    : `There are no unresolved discussions. Review the conversation in ${reference}`;
  return { description, resolve: (issue) => notes.continueInIssue(ctx.services, noteable, threads, `#${issue.iid}`) };
}

/** Issues::BuildService#item_for_discussion: a task naming who started (or commented on) it, and the note quoted. */
async function item(ctx: Context, project: ProjectRow, iid: number, thread: DiscussionRow): Promise<string> {
  const first = thread.notes[0];
  const note = thread.notes.find((n) => !n.system && (n.type === 'DiffNote' || n.type === 'DiscussionNote') && n.resolvedAt === null) ?? first;
  const author = await ctx.loaders.users.byId.load(note.authorId);
  const action = note.id === first.id ? 'started' : 'commented on';
  const url = webUrl(ctx, `${project.fullPath}/-/merge_requests/${iid}#note_${note.id}`);
  const others = thread.notes.length - 1;
  const info = [`- [ ] @${author?.username ?? 'ghost'} ${action} a [discussion](${url}): `];
  if (others > 0) info.push(`(+${others} ${plural(others, 'comment')})`);
  const quote = unfenced(note.note)
    .split(/(?<=\n)/)
    .map((line) => `    > ${line}`)
    .join('');
  return [info.join(' '), quote].join('\n\n');
}
