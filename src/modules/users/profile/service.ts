/** Owns users' statuses (GitLab's UserStatus) and preferences (GitLab's UserPreference). */
import type { PrismaClient } from '../../../db/database.js';
import { atLeastOneOf, invalid } from '../../../errors.js';
import type { ServiceBase } from '../../module.js';
import type { UserRow } from '../service.js';

export type UserStatusRow = Awaited<ReturnType<PrismaClient['userStatus']['findUniqueOrThrow']>>;
export type PreferencesRow = Awaited<ReturnType<PrismaClient['userPreference']['findUniqueOrThrow']>>;

/** A status as shown: its fields, or all null where none is set (GitLab presents `{}` with the UserStatus entity). */
export interface StatusView {
  emoji: string | null;
  message: string | null;
  availability: string | null;
  clearStatusAt: Date | null;
}

export interface StatusInput {
  emoji?: string | null;
  message?: string | null;
  availability?: string | null;
  /** A key of CLEAR_AFTER. */
  clearStatusAfter?: string | null;
}

export interface PreferencesInput {
  viewDiffsFileByFile?: boolean | null;
  showWhitespaceInDiffs?: boolean | null;
  passUserIdentitiesToCiJwt?: boolean | null;
  /** `id` or `iid` (GraphQL only). */
  visibilityPipelineIdType?: string | null;
  /** An IssueSort value (GraphQL only), stored lower-cased as GitLab stores it. */
  issuesSort?: string | null;
}

/** GitLab's UserStatus::CLEAR_STATUS_QUICK_OPTIONS, in milliseconds. */
export const CLEAR_AFTER: Readonly<Record<string, number>> = {
  '30_minutes': 30 * 60_000,
  '3_hours': 3 * 3_600_000,
  '8_hours': 8 * 3_600_000,
  '1_day': 86_400_000,
  '3_days': 3 * 86_400_000,
  '7_days': 7 * 86_400_000,
  '30_days': 30 * 86_400_000,
};

const DEFAULT_EMOJI = 'speech_balloon';
const AVAILABILITIES = ['not_set', 'busy'];
const MAXIMUM_MESSAGE_LENGTH = 100;
/** Emoji are named as GitLab names them (`smirk`, `+1`, `flag_gb`): no spaces or punctuation beyond these. */
const EMOJI_NAME = /^[a-z0-9_+-]{1,100}$/;

export const BLANK_STATUS: StatusView = { emoji: null, message: null, availability: null, clearStatusAt: null };

export class UserProfileService {
  constructor(private readonly base: ServiceBase) {}

  /** The user's status, if one is set and has not cleared itself. Readable by anyone who may read the user. */
  async status(user: UserRow): Promise<UserStatusRow | null> {
    const row = await this.base.loaders.users.statusById.load(user.id);
    return row && (!row.clearStatusAt || row.clearStatusAt.getTime() > Date.now()) ? row : null;
  }

  /**
   * Sets the viewer's status (GitLab's Users::SetStatusService): what is left out is cleared; no emoji, message nor
   * availability removes the status; a message alone gets the default emoji.
   */
  async setStatus(input: StatusInput): Promise<StatusView> {
    const viewer = this.base.access.requireViewer();
    await this.base.access.authorize('update_user', { id: viewer.id });
    const db = this.base.db;
    const cleared = !input.emoji && !input.message && (!input.availability || input.availability === 'not_set');
    if (cleared) {
      await db.userStatus.deleteMany({ where: { userId: viewer.id } });
      return BLANK_STATUS;
    }
    const errors: Record<string, string[]> = {};
    if (input.emoji && !EMOJI_NAME.test(input.emoji)) errors.emoji = ['does not exist'];
    if (input.message && input.message.length > MAXIMUM_MESSAGE_LENGTH) errors.message = [`is too long (maximum is ${MAXIMUM_MESSAGE_LENGTH} characters)`];
    if (Object.keys(errors).length) throw invalid(errors);
    const after = input.clearStatusAfter ? CLEAR_AFTER[input.clearStatusAfter] : undefined;
    const data = {
      emoji: input.emoji || DEFAULT_EMOJI,
      message: input.message || null,
      availability: input.availability && AVAILABILITIES.includes(input.availability) ? input.availability : 'not_set',
      clearStatusAt: after === undefined ? null : new Date(Date.now() + after),
    };
    return db.userStatus.upsert({ where: { userId: viewer.id }, create: { userId: viewer.id, ...data }, update: data });
  }

  /** The viewer's preferences (every user has a row, made with the user). */
  async preferences(user: UserRow): Promise<PreferencesRow | null> {
    if (!(await this.base.access.can('update_user', user)) || this.base.viewer?.id !== user.id) return null;
    return this.base.db.userPreference.findUnique({ where: { userId: user.id } });
  }

  /** Changes the viewer's preferences; at least one is required (GitLab's `at_least_one_of`). */
  async updatePreferences(input: PreferencesInput): Promise<PreferencesRow> {
    const viewer = this.base.access.requireViewer();
    const data = {
      ...(input.viewDiffsFileByFile != null ? { viewDiffsFileByFile: input.viewDiffsFileByFile } : {}),
      ...(input.showWhitespaceInDiffs != null ? { showWhitespaceInDiffs: input.showWhitespaceInDiffs } : {}),
      ...(input.passUserIdentitiesToCiJwt != null ? { passUserIdentitiesToCiJwt: input.passUserIdentitiesToCiJwt } : {}),
      ...(input.visibilityPipelineIdType != null ? { visibilityPipelineIdType: input.visibilityPipelineIdType } : {}),
      ...(input.issuesSort != null ? { issuesSort: input.issuesSort.toLowerCase() } : {}),
    };
    if (!Object.keys(data).length) throw atLeastOneOf('viewDiffsFileByFile', 'showWhitespaceInDiffs', 'passUserIdentitiesToCiJwt');
    return this.base.db.userPreference.upsert({ where: { userId: viewer.id }, create: { userId: viewer.id, ...data }, update: data });
  }
}
