/**
 * GitLab's RelativePositioning (the issues of an epic, the issues of a project): positions are integers between 0 and PostgreSQL's largest
 * integer, the first item starts halfway, new items go IDEAL_DISTANCE before the first, and a move lands halfway
 * between its neighbours (IDEAL_DISTANCE beyond the one neighbour at an end).
 */
const MIN_POSITION = 0;
const MAX_POSITION = 2147483647;
const START_POSITION = Math.floor(MAX_POSITION / 2);
const IDEAL_DISTANCE = 2 ** 9 - 1;
const MIN_GAP = 2;

/** Where an item goes to be first, before the current first position (null: none yet). */
export function positionAtStart(first: number | null): number {
  if (first === null) return START_POSITION;
  return Math.max(first - IDEAL_DISTANCE, MIN_POSITION);
}

/**
 * RelativePositioning's rebalancing: the position of the item at `index` once a list is spread out again
 * IDEAL_DISTANCE apart, the item at `anchor` landing on the start position.
 */
export function spreadPosition(index: number, anchor: number): number {
  return START_POSITION + (index - anchor) * IDEAL_DISTANCE;
}

/** The position between two neighbours (null: that end of the list); null when there is no room left between them. */
export function positionBetween(before: number | null, after: number | null): number | null {
  const low = before ?? MIN_POSITION;
  const high = after ?? MAX_POSITION;
  const [a, b] = low <= high ? [low, high] : [high, low];
  if (b - a < MIN_GAP) return null;
  const halfway = Math.floor((a + b) / 2);
  if (b - halfway < IDEAL_DISTANCE) return halfway;
  if (before === null) return b - IDEAL_DISTANCE;
  if (after === null) return a + IDEAL_DISTANCE;
  return halfway;
}
