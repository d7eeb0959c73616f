import type { KeyWithAccount } from '../storage/repositories/api-keys.ts';
import { TtlCache } from './ttl-cache.ts';

/**
 * Recently verified keys (with their account's limits), so that an authenticated request does not read the database
 * each time. Correctness does not rest on invalidation alone: an entry is trusted for `ttlMs` at most, so a key
 * revoked, or an account changed, through another instance is refused there within that bound; a change made
 * through this instance clears the cache at once. Expiry is checked on every use against the cached expiry date.
 * Only keys that exist are cached (unknown keys cannot fill it).
 */
export class KeyCache extends TtlCache<string, KeyWithAccount> {
  private seenVersion = -1;

  constructor(
    ttlMs: number,
    /**
     * A number that changes when another process has written to the database (SQLite's data_version): the CLI's
     * `keys revoke` then applies at once, not after `ttlMs`. Null where the database cannot tell (PostgreSQL).
     */
    private readonly externalVersion: (() => number) | null = null,
  ) {
    super(ttlMs);
  }

  override get(hash: string, now: number): KeyWithAccount | undefined {
    if (this.externalVersion !== null) {
      const version = this.externalVersion();
      if (version !== this.seenVersion) {
        this.clear();
        this.seenVersion = version;
      }
    }
    return super.get(hash, now);
  }
}
