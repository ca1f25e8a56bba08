/** GitLab's event vocabulary: the stored actions, the target types the filters name, and `action_name`. */

/** GitLab's event actions (Event.actions), as stored; the `action` filter accepts exactly these. */
export const ACTIVITY_ACTIONS = ['created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired', 'approved'] as const;

export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** The `target_type` filter's values (GitLab's Event::TARGET_TYPES) to the class names stored in `targetType`. */
export const TARGET_TYPES = {
  ISSUE: 'Issue',
  MILESTONE: 'Milestone',
  MERGE_REQUEST: 'MergeRequest',
  NOTE: 'Note',
  PROJECT: 'Project',
  SNIPPET: 'Snippet',
  USER: 'User',
  WIKI: 'WikiPage::Meta',
  DESIGN: 'DesignManagement::Design',
} as const;

/** What a push event stores (GitLab's PushEventPayload). */
export interface PushData {
  commitCount: number;
  /** `pushed`, `created` (a new ref) or `removed` (a deleted ref). */
  action: 'pushed' | 'created' | 'removed';
  refType: 'branch' | 'tag';
  commitFrom: string | null;
  commitTo: string | null;
  ref: string | null;
  commitTitle: string | null;
  refCount: number | null;
}

const DESIGN_ACTION_NAMES: Partial<Record<string, string>> = { created: 'added', updated: 'updated', destroyed: 'removed' };

/** Actions named the same whatever their target. */
const ACTION_NAMES: Partial<Record<string, string>> = {
  closed: 'closed',
  merged: 'accepted',
  joined: 'joined',
  left: 'left',
  expired: 'removed due to membership expiration from',
  destroyed: 'destroyed',
  commented: 'commented on',
};

/** `action_name` as GitLab's Event#action_name words it, first rule that matches. */
export function actionName(event: { action: string; targetType: string | null; pushData: unknown }): string {
  const { action, targetType } = event;
  if (action === 'pushed') {
    const pushed = (event.pushData as Partial<PushData> | null)?.action;
    return pushed === 'created' ? 'pushed new' : pushed === 'removed' ? 'deleted' : 'pushed to';
  }
  if (targetType === TARGET_TYPES.DESIGN) return DESIGN_ACTION_NAMES[action] ?? 'opened';
  const named = ACTION_NAMES[action];
  if (named) return named;
  if (targetType === TARGET_TYPES.WIKI && (action === 'created' || action === 'updated')) return action;
  // A created event without a target is the project's own creation (GitLab says `imported` for imports; there are none here).
  if (action === 'created' && targetType === null) return 'created';
  if (action === 'approved') return 'approved';
  // Created issues, merge requests and milestones, and whatever was reopened or updated.
  return 'opened';
}
