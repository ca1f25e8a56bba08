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

/** Rows grouped by a key, one query per batch, in key order (an empty list for a key without rows). */
export function groupedLoader<T>(fetch: (keys: number[]) => Promise<T[]>, keyOf: (row: T) => number): DataLoader<number, T[]> {
  return new DataLoader<number, T[]>(async (keys) => {
    const byKey = new Map<number, T[]>(keys.map((k) => [k, []]));
    for (const row of await fetch([...keys])) byKey.get(keyOf(row))?.push(row);
    return keys.map((k) => byKey.get(k) ?? []);
  });
}
