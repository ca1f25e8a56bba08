/**
 * Merge request changes on the event bus: the message a change publishes on commit, naming the parts of the merge
 * request that changed, heard by GitLab's merge request subscriptions (app/graphql/types/subscription_type.rb), each
 * field hearing its part.
 */
import type { PrismaClient } from '../../db/database.js';
import { perMessage } from '../../events/bus.js';
import { withPeople } from './service.js';

export const MERGE_REQUEST_UPDATED = 'merge_requests.updated';

/** The parts of a merge request its subscriptions hear. */
export type MergeRequestPart = 'mergeStatus' | 'reviewers' | 'approvalState' | 'diffGenerated';

export interface MergeRequestUpdatedMessage {
  mergeRequestId: number;
  projectId: number;
  parts: MergeRequestPart[];
}

/** Each GitLab subscription field on merge requests, with the part whose changes it hears. */
export const MERGE_REQUEST_SUBSCRIPTIONS: Readonly<Record<string, MergeRequestPart>> = {
  mergeRequestMergeStatusUpdated: 'mergeStatus',
  mergeRequestReviewersUpdated: 'reviewers',
  mergeRequestApprovalStateUpdated: 'approvalState',
  mergeRequestDiffGenerated: 'diffGenerated',
};

/** The merge request a message names, read once per message for every subscriber of this process. */
export const mergeRequestOfMessage = perMessage((message: MergeRequestUpdatedMessage, db: PrismaClient) =>
  db.mergeRequest.findUnique({
    where: { id: message.mergeRequestId },
    include: withPeople,
  }),
);
