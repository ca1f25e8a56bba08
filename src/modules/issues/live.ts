/**
 * Issue changes on the event bus: the one message an issue's change publishes on commit (IssuesService's announce),
 * heard by GitLab's issuable subscriptions (issuableTitleUpdated, issuableLabelsUpdated, …), each field hearing the
 * changes of its part of the issue.
 */
import { issueRowInclude } from './policy.js';
import type { PrismaClient } from '../../db/database.js';
import { perMessage } from '../../events/bus.js';

export const ISSUE_UPDATED = 'issues.updated';

/** The parts of an issue a change can touch, as GitLab's subscriptions name them. */
export type IssuablePart =
  | 'title' | 'description' | 'labels' | 'assignees' | 'dates' | 'milestone' | 'weight' | 'healthStatus' | 'epic' | 'state' | 'confidential' | 'timeTracking' | 'crmContacts';

export interface IssueUpdatedMessage {
  issueId: number;
  projectId: number;
  parts: IssuablePart[];
}

/** Each GitLab subscription field on issuables, with the part of the issue whose changes it hears. */
export const ISSUABLE_SUBSCRIPTIONS: Readonly<Record<string, IssuablePart>> = {
  issuableAssigneesUpdated: 'assignees',
  issuableTitleUpdated: 'title',
  issuableDescriptionUpdated: 'description',
  issuableLabelsUpdated: 'labels',
  issuableDatesUpdated: 'dates',
  issuableMilestoneUpdated: 'milestone',
  issuableWeightUpdated: 'weight',
  issuableHealthStatusUpdated: 'healthStatus',
  /** Announced by the epics module, which keeps the issue's epic. */
  issuableEpicUpdated: 'epic',
  /** Announced by the crm module's issueSetCrmContacts. */
  issueCrmContactsUpdated: 'crmContacts',
};

/** The issue a message names, read once per message for every subscriber of this process (with its assignees, for its checks). */
export const issueOfMessage = perMessage((message: IssueUpdatedMessage, db: PrismaClient) =>
  db.issue.findUnique({ where: { id: message.issueId }, include: issueRowInclude }),
);
