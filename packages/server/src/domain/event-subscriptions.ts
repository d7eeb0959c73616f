import type { Db } from '../storage/database.ts';
import type { WebhookRepository } from '../storage/repositories/webhooks.ts';
import { TtlCache } from './ttl-cache.ts';

/**
 * Which event types an account's enabled webhooks subscribe to, so that a decision records only the events someone
 * will receive (most accounts subscribe to few or none; the outbox rows, their JSON and the relay's work for the
 * rest were a large share of a check's cost). Read at most every `ttlMs` per account; a webhook change made
 * through this instance clears it at once, one made through another instance applies here within `ttlMs`.
 * Trusting a stale "subscribed" is harmless (the relay finds no webhook and drops the event); a stale "not
 * subscribed" is what the bound limits.
 */
export class EventSubscriptions {
  private readonly cache: TtlCache<string, ReadonlySet<string>>;

  constructor(
    private readonly webhooks: WebhookRepository,
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  /** The subscribed types of an account; `executor` is the open transaction the caller writes in. */
  async typesFor(executor: Db, accountId: string, now = Date.now()): Promise<ReadonlySet<string>> {
    const cached = this.cache.get(accountId, now);
    if (cached) return cached;
    const hooks = await this.webhooks.enabledFor(executor, [accountId]);
    const types = new Set(hooks.flatMap((h) => h.events));
    this.cache.set(accountId, types, now);
    return types;
  }

  clear(): void {
    this.cache.clear();
  }
}
