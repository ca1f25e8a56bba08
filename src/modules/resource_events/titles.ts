/**
 * A title change marked as GitLab's system note marks it (Gitlab::Diff::InlineDiffMarkdownMarker over CharDiff):
 * the changed span of the old title wrapped in `{-…-}`, of the new one in `{+…+}`. The span is what lies between
 * the longest common start and end, which is what diff-match-patch finds for one edit.
 */
function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a: readonly string[], b: readonly string[], limit: number): number {
  let n = 0;
  while (n < a.length - limit && n < b.length - limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

function mark(chars: readonly string[], start: number, end: number, symbol: '-' | '+'): string {
  if (start >= end) return chars.join('');
  return `${chars.slice(0, start).join('')}{${symbol}${chars.slice(start, end).join('')}${symbol}}${chars.slice(end).join('')}`;
}

/** The old and new titles, marked; unmarked when the old title is empty (InlineDiff skips those). */
export function markTitleChange(before: string, after: string): [string, string] {
  if (before === '') return [before, after];
  const a = [...before];
  const b = [...after];
  const prefix = commonPrefix(a, b);
  const suffix = commonSuffix(a, b, prefix);
  return [mark(a, prefix, a.length - suffix, '-'), mark(b, prefix, b.length - suffix, '+')];
}
