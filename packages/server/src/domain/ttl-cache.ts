/**
 * A map whose entries are trusted for `ttlMs` at most, holding at most `maxEntries` (emptied when full, so it never
 * grows without bound). The per-instance caches of what another instance may change (keys, webhook subscriptions)
 * are built on it: the lifetime bounds how stale a copy can be.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: K, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
