/**
 * Who may remove an award (lib/api/award_emoji.rb's `award.user == current_user || can_admin_all_resources?`): the
 * user who awarded it, and administrators. Who may read and award follows each noteable kind (notes/noteables.ts).
 * Registered through this module's manifest into the one table of src/auth/policy.ts.
 */
import { administrator, anyOf, type Rule } from '../../auth/rules.js';

/** What deciding about one award reads. */
export interface AwardSubject {
  userId: number;
}

/** The award is the viewer's own; asked of one award at a time, never a list filter. */
const awarder: Rule<AwardSubject, never> = {
  allows: (actor, award) => !!actor.viewer && actor.viewer.id === award.userId,
  where: () => false,
};

export const awardEmojiPolicy = {
  destroy_award_emoji: anyOf<AwardSubject, never>(administrator, awarder),
};

type AwardEmojiPolicyRules = typeof awardEmojiPolicy;

declare module '../../auth/policy.js' {
  interface Abilities extends AwardEmojiPolicyRules {}
}
