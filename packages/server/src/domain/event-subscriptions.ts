import type { Db } from '../storage/database.ts';
import type { WebhookRepository } from '../storage/repositories/webhooks.ts';

/**
 * Which event types an account's enabled webhooks subscribe to, so that a decision records only the events someone
 * will receive (most accounts subscribe to few or none; the outbox rows, their JSON and the relay's work for the
 * rest were a large share of a check's cost). Read at most every `ttlMs` per account; a webhook change made
 * through this instance clears it at once, one made through another instance applies here within `ttlMs`.
 * Trusting a stale "subscribed" is harmless (the relay finds no webhook and drops the event); a stale "not
 * subscribed" is what the bound limits.
 */
export class EventSubscriptions {
  private readonly entries = new Map<string, { types: ReadonlySet<string>; until: number }>();

  constructor(
    private readonly webhooks: WebhookRepository,
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The subscribed types of an account; `executor` is the open transaction the caller writes in. */
  async typesFor(executor: Db, accountId: string, now = Date.now()): Promise<ReadonlySet<string>> {
    const entry = this.entries.get(accountId);
    if (entry && entry.until > now) return entry.types;
    const hooks = await this.webhooks.enabledFor(executor, [accountId]);
    const types = new Set(hooks.flatMap((h) => h.events));
    if (this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(accountId, { types, until: now + this.ttlMs });
    }
    return types;
  }

  clear(): void {
    this.entries.clear();
  }
}
