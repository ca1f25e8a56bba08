/**
 * A project's merge request settings that `POST /projects` and `PUT /projects/:id` take beside the CI/CD ones
 * (./ci-settings.ts): GitLab's merge_method, squash_option (project_setting), remove_source_branch_after_merge,
 * merge_commit_template and squash_commit_template (project_setting), suggestion_commit_message; their validations
 * (Grape's `values:` of API::Helpers::ProjectsHelpers, the models' lengths) and what storing them writes. Merges
 * honour them in src/modules/merge_requests/git.ts.
 */
import { invalidArgument } from '../../errors.js';

/** GitLab's Project#merge_method values: a merge commit, a merge commit over a rebased source, or fast-forward only. */
export const MERGE_METHODS = ['merge', 'rebase_merge', 'ff'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];
/** ProjectSetting's squash_option enum. */
export const SQUASH_OPTIONS = ['never', 'always', 'default_on', 'default_off'] as const;

/** Project::MAX_COMMIT_TEMPLATE_LENGTH (ProjectSetting's validations) and MAX_SUGGESTIONS_TEMPLATE_LENGTH. */
const MAX_COMMIT_TEMPLATE_LENGTH = 500;
const MAX_SUGGESTIONS_TEMPLATE_LENGTH = 255;

export interface ProjectMergeSettingsInput {
  /** `merge`, `rebase_merge` or `ff`. */
  mergeMethod?: string | null;
  /** `never`, `always`, `default_on` or `default_off`. */
  squashOption?: string | null;
  /** New merge requests' default of removing their source branch on merge. */
  removeSourceBranchAfterMerge?: boolean | null;
  /** Merge commit message template (empty: GitLab's default message). */
  mergeCommitTemplate?: string | null;
  /** Squash commit message template (empty: the title). */
  squashCommitTemplate?: string | null;
  /** Commit message of applied suggestions. */
  suggestionCommitMessage?: string | null;
}

export const MERGE_SETTINGS_ARGUMENTS = ['mergeMethod', 'squashOption', 'removeSourceBranchAfterMerge', 'mergeCommitTemplate', 'squashCommitTemplate', 'suggestionCommitMessage'] as const;

/** GitLab's validation errors of the given settings, by field (a value outside Grape's `values:` is a 400 first). */
export function mergeSettingsErrors(input: ProjectMergeSettingsInput): Record<string, string[]> {
  if (input.mergeMethod != null && !(MERGE_METHODS as readonly string[]).includes(input.mergeMethod)) throw invalidArgument('merge_method');
  if (input.squashOption != null && !(SQUASH_OPTIONS as readonly string[]).includes(input.squashOption)) throw invalidArgument('squash_option');
  const errors: Record<string, string[]> = {};
  const tooLong = (value: string | null | undefined, max: number) => value != null && [...value].length > max;
  if (tooLong(input.mergeCommitTemplate, MAX_COMMIT_TEMPLATE_LENGTH)) errors.mergeCommitTemplate = [`is too long (maximum is ${MAX_COMMIT_TEMPLATE_LENGTH} characters)`];
  if (tooLong(input.squashCommitTemplate, MAX_COMMIT_TEMPLATE_LENGTH)) errors.squashCommitTemplate = [`is too long (maximum is ${MAX_COMMIT_TEMPLATE_LENGTH} characters)`];
  if (tooLong(input.suggestionCommitMessage, MAX_SUGGESTIONS_TEMPLATE_LENGTH)) errors.suggestionCommitMessage = [`is too long (maximum is ${MAX_SUGGESTIONS_TEMPLATE_LENGTH} characters)`];
  return errors;
}

/** The given settings as a Prisma update; a template or message given empty is stored as none (Rails' blank). */
export function mergeSettingsData(input: ProjectMergeSettingsInput): {
  mergeMethod?: string;
  squashOption?: string;
  removeSourceBranchAfterMerge?: boolean;
  mergeCommitTemplate?: string | null;
  squashCommitTemplate?: string | null;
  suggestionCommitMessage?: string | null;
} {
  const text = (value: string | null | undefined) => (value === undefined ? undefined : value || null);
  const data = {
    mergeMethod: input.mergeMethod ?? undefined,
    squashOption: input.squashOption ?? undefined,
    removeSourceBranchAfterMerge: input.removeSourceBranchAfterMerge ?? undefined,
    mergeCommitTemplate: text(input.mergeCommitTemplate),
    squashCommitTemplate: text(input.squashCommitTemplate),
    suggestionCommitMessage: text(input.suggestionCommitMessage),
  };
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
}

/** Project#ff_merge_must_be_possible?: `ff` and `rebase_merge` merge only a source that contains the target's head. */
export function ffMergeMustBePossible(project: { mergeMethod: string }): boolean {
  return project.mergeMethod === 'ff' || project.mergeMethod === 'rebase_merge';
}

/**
 * MergeRequest#squash_on_merge?: the project's `always` and `never` decide over the merge request's own `squash`
 * (given with the merge, or as it is set).
 */
export function squashOnMerge(project: { squashOption: string }, squash: boolean): boolean {
  if (project.squashOption === 'always') return true;
  if (project.squashOption === 'never') return false;
  return squash;
}
