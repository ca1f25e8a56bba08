/**
 * Commands of merge requests only (GitLab's MergeRequestActions): reviewers, draft and ready, merge, approvals,
 * rebase and the target branch, each asking what the merge requests module's own routes ask.
 */
import { command, type AnyCommand, type Run } from './engine.js';
import { extractUsers, plural, toSentence, userRef } from './params.js';
import type { MergeRequestRow } from '../merge_requests/service.js';
import type { ProjectRow } from '../projects/service.js';
import { isDraftTitle } from '../merge_requests/service.js';

const MR = ['MergeRequest'] as const;

const mrOf = (run: Run): { project: ProjectRow; mergeRequest: MergeRequestRow | null } => run.target as Extract<Run['target'], { type: 'MergeRequest' }>;

const reviewerIds = (run: Run) => mrOf(run).mergeRequest?.reviewers.map((r) => r.userId) ?? [];

type Users = Awaited<ReturnType<typeof extractUsers>>;

export const mergeRequestActions: AnyCommand[] = [
  command<Users>({
    name: 'assign_reviewer',
    aliases: ['reviewer', 'request_review'],
    types: MR,
    takes: 'required',
    available: (run) => run.canSetMetadata(),
    parse: (run, arg) => extractUsers(run, arg),
    execute: (run, users) => {
      if (!users?.length) return;
      const current = (run.updates.reviewer_ids as number[] | undefined) ?? reviewerIds(run);
      run.updates.reviewer_ids = [...new Set([...current, ...users.map((u) => u.id)])];
    },
    message: (_run, users) =>
      users?.length ? `Assigned ${toSentence(users.map(userRef))} as ${plural('reviewer', users.length)}.` : 'Failed to assign a reviewer because no user was found.',
  }),
  command<Users>({
    name: 'reassign_reviewer',
    types: MR,
    takes: 'required',
    available: async (run) => run.persisted && (await run.canSetMetadata()),
    parse: (run, arg) => extractUsers(run, arg),
    execute: (run, users) => {
      if (users?.length) run.updates.reviewer_ids = users.map((u) => u.id);
    },
    message: (_run, users) => (users?.length ? `Reassigned ${toSentence(users.map(userRef))} as ${plural('reviewer', users.length)}.` : null),
  }),
  command<Users>({
    name: 'unassign_reviewer',
    aliases: ['remove_reviewer'],
    types: MR,
    takes: 'optional',
    available: async (run) => run.persisted && reviewerIds(run).length > 0 && (await run.canSetMetadata()),
    parse: (run, arg) => extractUsers(run, arg),
    execute: async (run, users) => {
      const current = (run.updates.reviewer_ids as number[] | undefined) ?? reviewerIds(run);
      const removed = users?.length ? users : await Promise.all(reviewerIds(run).map((id) => run.services.users.get({ id })));
      run.updates.reviewer_ids = users?.length ? current.filter((id) => !users.some((u) => u.id === id)) : [];
      run.messages.set('unassign_reviewer', `Removed ${plural('reviewer', removed.length)} ${toSentence(removed.map(userRef))}.`);
    },
  }),
  command({
    name: 'draft',
    types: MR,
    takes: 'none',
    available: async (run) => !mrOf(run).mergeRequest || (await run.canUpdate()),
    execute: (run) => {
      const mr = mrOf(run).mergeRequest;
      if (mr && isDraftTitle(mr.title)) {
        run.messages.set('draft', 'This merge request is already a draft.');
        return;
      }
      run.updates.wip_event = 'draft';
      run.messages.set('draft', 'Marked this merge request as a draft.');
    },
  }),
  command({
    name: 'ready',
    types: MR,
    takes: 'none',
    available: async (run) => !mrOf(run).mergeRequest || (await run.canUpdate()),
    execute: (run) => {
      const mr = mrOf(run).mergeRequest;
      if (!mr || !isDraftTitle(mr.title)) {
        run.messages.set('ready', 'This merge request is already ready.');
        return;
      }
      run.updates.wip_event = 'ready';
      run.messages.set('ready', 'Marked this merge request as ready.');
    },
  }),
  command({
    name: 'merge',
    types: MR,
    takes: 'none',
    // MergeOrchestrationService#can_merge?: the viewer may merge into the target branch and it is mergeable now.
    available: async (run) => {
      const { project, mergeRequest } = mrOf(run);
      if (!mergeRequest || mergeRequest.state !== 'opened') return false;
      if (!(await run.services.repositories.canMergeToBranch(project, mergeRequest.targetBranch))) return false;
      return (await run.services.merge_requests.git.detailedMergeStatus(mergeRequest)) === 'mergeable';
    },
    // The head the request saw (the Notes API's `merge_request_diff_head_sha`) must be the diff head still: merged
    // only then, as GitLab's command refuses a missing or moved head in its execution message.
    execute: async (run) => {
      const mr = mrOf(run).mergeRequest!;
      const sha = run.params.mergeRequestDiffHeadSha;
      if (!sha) {
        run.messages.set('merge', 'The `/merge` quick action requires the SHA of the head of the branch.');
        return;
      }
      if (sha !== (await run.services.merge_requests.git.diffRefs(mr)).headSha) {
        run.messages.set('merge', 'Branch has been updated since the merge was requested.');
        return;
      }
      run.updates.merge = sha;
      run.messages.set('merge', 'Merged this merge request.');
    },
  }),
  command({
    name: 'approve',
    types: MR,
    takes: 'none',
    available: async (run) => {
      const mr = mrOf(run).mergeRequest;
      return !!mr && (await run.services.merge_requests.approvals.viewerCanApprove(mr));
    },
    execute: (run) => void (run.updates.approve = true),
    message: 'Approved the current merge request.',
  }),
  command({
    name: 'unapprove',
    types: MR,
    takes: 'none',
    available: async (run) => {
      const mr = mrOf(run).mergeRequest;
      return !!mr && (await run.services.merge_requests.approvals.viewerHasApproved(mr));
    },
    execute: (run) => void (run.updates.unapprove = true),
    message: 'Unapproved the current merge request.',
  }),
  command({
    name: 'rebase',
    types: MR,
    takes: 'none',
    available: async (run) => {
      const mr = mrOf(run).mergeRequest;
      return !!mr && mr.state === 'opened' && (await run.canUpdate());
    },
    execute: (run) => void (run.updates.rebase = true),
    message: (run) => `Scheduled a rebase of branch ${mrOf(run).mergeRequest!.sourceBranch}.`,
  }),
  command<string>({
    name: 'target_branch',
    types: MR,
    takes: 'required',
    available: async (run) => run.persisted && (await run.canUpdate()),
    parse: (_run, arg) => arg.trim(),
    execute: async (run, branch) => {
      const { project } = mrOf(run);
      if (branch && (await run.services.merge_requests.git.branchHeads(project, [branch])).get(branch)) run.updates.target_branch = branch;
    },
    message: (run, branch) => (run.updates.target_branch === branch ? `Set target branch to ${branch}.` : null),
  }),
];
