/**
 * A merge request's diffs capped as GitLab caps them (Gitlab::Git::DiffCollection over Gitlab::Git::Diff, with
 * Commit.max_diff_options: the `diff_max_files` 1,000 and `diff_max_lines` 50,000 settings, 5 KiB a file for
 * `max_bytes`; their tenth, 100 files and 5,000 lines, as the safe limits; `diff_max_patch_bytes` 200 KiB a file):
 *
 * - a file whose patch reaches `max_patch_bytes` is `too_large`, its diff emptied;
 * - when not expanded, a file whose patch reaches a tenth of that is `collapsed`, its diff emptied, and so is every
 *   file with lines once the collection passed a safe limit (`safe_max_files` files, `safe_max_lines` lines,
 *   `safe_max_bytes` bytes);
 * - the collection stops (`overflow`) before the file that would make `max_files` files, or reach `max_lines` lines
 *   or `max_bytes` bytes; a collection of one file is always expanded.
 *
 * Patches stream from one `git diff-tree -p` (Repository#streamPatches): a page reads only the patches up to its end
 * (and, for its count, up to the cap), holding one patch at a time, and no file past the cap is read at all.
 */
import type { FileDiff, Repository } from '../../git/repository.js';

/** Gitlab::Git::Diff::DEFAULT_MAX_PATCH_BYTES, the default of `diff_max_patch_bytes`. */
export const MAX_PATCH_BYTES = 200 * 1024;
/** ApplicationSetting defaults of `diff_max_files` and `diff_max_lines`. */
export const MAX_FILES = 1000;
export const MAX_LINES = 50_000;
/** Commit::DIFF_SAFE_LIMIT_FACTOR: the safe limits are a tenth of the maximums. */
const SAFE_FACTOR = 10;

/** A file's diff as GitLab's API shows it. */
export interface CappedDiff extends FileDiff {
  collapsed: boolean;
  tooLarge: boolean;
}

export interface DiffCollectionOptions {
  /** DiffCollection's `limits`: stop at the maximums (`overflow`). */
  limits: boolean;
  /** DiffCollection's `expanded`: false collapses big files and every file past a safe limit. */
  expanded: boolean;
  /**
   * Collapse files of a tenth of `max_patch_bytes` or more when shown even though the collection counted them
   * expanded: a merge request diff is stored expanded (Gitaly's `collapse_diffs` off) and shown unexpanded.
   */
  collapseShown?: boolean;
}

export interface DiffWindow {
  skip: number;
  take: number;
}

export interface DiffCollectionResult {
  /** The diffs in the window (all of them without one). */
  diffs: CappedDiff[];
  /** How many diffs the collection holds (up to where it stopped). */
  size: number;
  overflow: boolean;
}

/** Gitlab::Git::Util.count_lines. */
function countLines(text: string): number {
  if (!text) return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/**
 * Walks the diffs from `from` to `to` as DiffCollection#each_serialized_patch does, keeping those in `window`.
 * With `countAll` false the walk ends at the window's end (the size is then a lower bound).
 */
export async function diffCollection(
  repository: Repository,
  from: string,
  to: string,
  options: DiffCollectionOptions,
  window: DiffWindow | null = null,
  countAll = true,
): Promise<DiffCollectionResult> {
  const maxFiles = MAX_FILES;
  const maxLines = MAX_LINES;
  const maxBytes = maxFiles * 5 * 1024;
  const safeMaxFiles = Math.min(maxFiles, MAX_FILES / SAFE_FACTOR);
  const safeMaxLines = Math.min(maxLines, MAX_LINES / SAFE_FACTOR);
  const safeMaxBytes = safeMaxFiles * 5 * 1024;
  const safePatchBytes = MAX_PATCH_BYTES / SAFE_FACTOR;
  const listing = repository.diffEntries(from, to);
  let files: FileDiff[] = [];
  let expanded = !options.limits || options.expanded;
  let shownCollapse = false;
  let lines = 0;
  let bytes = 0;
  let size = 0;
  let overflow = false;
  let overSafe = false;
  const diffs: CappedDiff[] = [];
  const end = window ? window.skip + window.take : Infinity;
  const listed = listing.then((all) => {
    files = all;
    // DiffCollection#expand_diff?: one file, no limits or expanded.
    expanded ||= files.length === 1;
    shownCollapse = !expanded || (options.collapseShown === true && files.length !== 1);
    if (options.limits && files.length > maxFiles) overflow = true;
    return files.slice(0, options.limits ? maxFiles : files.length);
  });
  await repository.streamPatches(from, to, listed, MAX_PATCH_BYTES, (file, patchBytes) => {
    const { typeChanged: _t, ...plain } = file;
    let diff = file.diff;
    // Gitlab::Git::Diff#prune_diff_if_eligible.
    const tooLarge = patchBytes >= MAX_PATCH_BYTES;
    let collapsed = false;
    if (tooLarge) diff = '';
    else if (!expanded && patchBytes >= safePatchBytes) {
      diff = '';
      collapsed = true;
    }
    let lineCount = countLines(diff);
    if (!expanded && lineCount > 0) {
      overSafe ||= size >= safeMaxFiles || lines > safeMaxLines || bytes >= safeMaxBytes;
      if (overSafe) {
        diff = '';
        lineCount = 0;
        collapsed = true;
      }
    }
    lines += lineCount;
    bytes += Buffer.byteLength(diff);
    if (options.limits && (lines >= maxLines || bytes >= maxBytes)) {
      overflow = true;
      return false;
    }
    if (shownCollapse && !collapsed && !tooLarge && patchBytes >= safePatchBytes) {
      diff = '';
      collapsed = true;
    }
    if (size >= (window?.skip ?? 0) && size < end) diffs.push({ ...plain, diff, collapsed, tooLarge });
    size++;
    return countAll || size < end;
  });
  return { diffs, size, overflow };
}
