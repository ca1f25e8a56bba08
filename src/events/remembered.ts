/**
 * Values remembered across requests (a token's viewer, a user's memberships) until they may be stale: each lives
 * at most its time to live, and whoever owns the memory forgets entries when the event bus says what changed. A
 * load that was under way when such news arrived is not remembered (it may have read the old rows). Failures are
 * never remembered. Concurrent loads of one key share one query.
 */
export interface RememberedOptions<V> {
  ttlMs: number;
  /** Keys remembered at most; the oldest are forgotten first. */
  size: number;
  /** When a loaded value stops being good, besides its time to live (a token's expiry day). */
  goodUntil?: (value: V) => number;
}

export class Remembered<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  private readonly pending = new Map<K, Promise<V>>();
  /** Counts forget() calls: a load started before the latest is not remembered. */
  private generation = 0;

  constructor(private readonly options: RememberedOptions<V>) {}

  get(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.until > Date.now()) return Promise.resolve(hit.value);
    if (hit) this.entries.delete(key);
    return this.pending.get(key) ?? this.load(key, load);
  }

  /** The remembered value, if it is still good; never loads. */
  peek(key: K): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  /** Forgets, at once, every entry `concerned` picks; loads under way are not remembered. */
  forget(concerned: (key: K, value: V) => boolean): void {
    this.generation += 1;
    this.pending.clear();
    for (const [key, { value }] of this.entries) if (concerned(key, value)) this.entries.delete(key);
  }

  clear(): void {
    this.forget(() => true);
  }

  private load(key: K, load: () => Promise<V>): Promise<V> {
    const generation = this.generation;
    const started = Date.now();
    const loading = load();
    this.pending.set(key, loading);
    const settled = () => {
      if (this.pending.get(key) === loading) this.pending.delete(key);
    };
    loading.then((value) => {
      settled();
      if (generation !== this.generation) return;
      const until = Math.min(started + this.options.ttlMs, this.options.goodUntil?.(value) ?? Infinity);
      if (until <= Date.now()) return;
      if (this.entries.size >= this.options.size) this.entries.delete(this.entries.keys().next().value as K);
      this.entries.set(key, { value, until });
    }, settled);
    return loading;
  }
}
