/** The by-key loader every module uses: one `findMany` with `in` per batch, results in key order, null when missing. */
import DataLoader from 'dataloader';

export function byKeyLoader<K extends string | number, T>(
  fetch: (keys: readonly K[]) => Promise<T[]>,
  keyOf: (row: T) => K,
): DataLoader<K, T | null> {
  return new DataLoader<K, T | null>(async (keys) => {
    const rows = await fetch(keys);
    const found = new Map(rows.map((row) => [keyOf(row), row]));
    return keys.map((k) => found.get(k) ?? null);
  });
}

/** Counts keyed by id from one grouped query per batch; an id the query does not return counts 0. */
export function countLoader(fetch: (ids: number[]) => Promise<{ key: number; count: bigint | number }[]>): DataLoader<number, number> {
  return new DataLoader<number, number>(async (ids) => {
    const counts = new Map((await fetch([...ids])).map((r) => [Number(r.key), Number(r.count)]));
    return ids.map((id) => counts.get(id) ?? 0);
  });
}
