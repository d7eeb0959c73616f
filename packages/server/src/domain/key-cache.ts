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

  /** Whether this event-loop turn has read the version already (reset by a setImmediate after the reads). */
  private readThisTurn = false;

  override get(hash: string, now: number): KeyWithAccount | undefined {
    // Read once per event-loop turn: under load a turn serves many requests, and the read (PRAGMA data_version, a
    // look at the WAL index) was 3 % of a check's CPU. A commit by another process (the CLI's `keys revoke`) is seen
    // from the next turn on: at most one event-loop turn later than with a read per request.
    if (this.externalVersion !== null && !this.readThisTurn) {
      this.readThisTurn = true;
      setImmediate(() => {
        this.readThisTurn = false;
      });
      const version = this.externalVersion();
      if (version !== this.seenVersion) {
        this.clear();
        this.seenVersion = version;
      }
    }
    return super.get(hash, now);
  }
}
