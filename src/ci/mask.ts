/**
 * Masking of a job's log as it arrives in patches: every masked variable's value becomes `[MASKED]`, as GitLab
 * Runner writes it. A value may be split across two patches, so the end of what arrived that could be the start of
 * a value is held back until the next patch (or the end of the job) says whether it is one. Pure, on bytes.
 */

export const MASKED = Buffer.from('[MASKED]');

export interface Masked {
  /** What may be stored now. */
  store: Buffer;
  /** What must wait for the next patch (empty when `final`). */
  held: Buffer;
}

/** The earliest occurrence of any value at or after `from` (the longest value where several start together). */
function nextOccurrence(data: Buffer, values: readonly Buffer[], from: number): { at: number; length: number } | null {
  let best: { at: number; length: number } | null = null;
  for (const value of values) {
    const at = data.indexOf(value, from);
    if (at < 0) continue;
    if (!best || at < best.at || (at === best.at && value.length > best.length)) best = { at, length: value.length };
  }
  return best;
}

/** The length of the longest end of `data[from..]` that is the start, but not the whole, of a value. */
function pendingPrefix(data: Buffer, values: readonly Buffer[], from: number): number {
  const longest = Math.min(data.length - from, Math.max(0, ...values.map((v) => v.length - 1)));
  for (let length = longest; length > 0; length--) {
    const tail = data.subarray(data.length - length);
    if (values.some((v) => v.length > length && v.subarray(0, length).equals(tail))) return length;
  }
  return 0;
}

/**
 * Masks `held` followed by `incoming`. Unless `final`, an end that could begin a value is held back rather than
 * stored; with `final` (the job ended) everything is stored, since an unfinished value is not a value.
 */
export function maskTrace(held: Buffer, incoming: Buffer, secrets: readonly string[], final: boolean): Masked {
  const data = held.length ? Buffer.concat([held, incoming]) : incoming;
  const values = [...new Set(secrets.filter((s) => s.length > 0))].map((s) => Buffer.from(s));
  if (values.length === 0) return { store: data, held: Buffer.alloc(0) };
  const parts: Buffer[] = [];
  let position = 0;
  for (let found = nextOccurrence(data, values, 0); found; found = nextOccurrence(data, values, position)) {
    parts.push(data.subarray(position, found.at), MASKED);
    position = found.at + found.length;
  }
  const keep = final ? 0 : pendingPrefix(data, values, position);
  parts.push(data.subarray(position, data.length - keep));
  return { store: Buffer.concat(parts), held: Buffer.from(data.subarray(data.length - keep)) };
}
