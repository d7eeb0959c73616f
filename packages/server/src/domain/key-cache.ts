import type { KeyWithAccount } from '../storage/repositories/api-keys.ts';

/**
 * Recently verified keys (with their account's limits), so that an authenticated request does not read the database
 * each time. Correctness does not rest on invalidation alone: an entry is trusted for `ttlMs` at most, so a key
 * revoked, or an account changed, through another instance is refused there within that bound; a change made
 * through this instance clears the cache at once. Expiry is checked on every use against the cached expiry date.
 * Only keys that exist are cached (unknown keys cannot fill it), up to `maxEntries`.
 */
export class KeyCache {
  private readonly entries = new Map<string, { record: KeyWithAccount; until: number }>();
  private seenVersion = -1;

  constructor(
    readonly ttlMs: number,
    /**
     * A number that changes when another process has written to the database (SQLite's data_version): the CLI's
     * `keys revoke` then applies at once, not after `ttlMs`. Null where the database cannot tell (PostgreSQL).
     */
    private readonly externalVersion: (() => number) | null = null,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string, now: number): KeyWithAccount | undefined {
    if (this.externalVersion !== null) {
      const version = this.externalVersion();
      if (version !== this.seenVersion) {
        this.entries.clear();
        this.seenVersion = version;
      }
    }
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.record;
  }

  set(hash: string, record: KeyWithAccount, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(hash, { record, until: now + this.ttlMs });
  }

  /** After any change to a key or an account made through this instance. */
  clear(): void {
    this.entries.clear();
  }
}
