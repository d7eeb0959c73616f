import type { Db } from '../storage/database.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import type { EventRepository, StoredEvent } from '../storage/repositories/events.ts';
import { type DecisionSideWrite, decisionView } from './decisions.ts';
import type { EventSubscriptions } from './event-subscriptions.ts';
import type { EventType } from './event-types.ts';
import { newId } from './ids.ts';

export { EVENT_TYPES, type EventType, isEventType } from './event-types.ts';

/** The envelope of decisions §6.2, serialised once: every attempt sends the same bytes. */
export function buildEvent(
  accountId: string,
  type: EventType,
  data: Record<string, unknown>,
  options: { targetUrl?: string | null; id?: string; createdAt?: string } = {},
): StoredEvent {
  const id = options.id ?? newId('evt');
  const createdAt = options.createdAt ?? new Date().toISOString();
  return {
    id,
    accountId,
    type,
    payload: JSON.stringify({ id, type, createdAt, data }),
    targetUrl: options.targetUrl ?? null,
    createdAt,
  };
}

export function decisionEventData(d: DecisionRecord): Record<string, unknown> {
  return { id: d.decisionId, ...decisionView(d) };
}

/**
 * The events one stored decision emits: always `decision.created`, plus `flagged` / `blocked` when they apply; with
 * `wanted`, only those of these types.
 */
export function decisionEvents(d: DecisionRecord, wanted: ReadonlySet<string> | null = null): StoredEvent[] {
  let types: EventType[] = ['decision.created'];
  if (d.flagged) types.push('decision.flagged');
  if (d.action === 'block') types.push('decision.blocked');
  if (wanted) types = types.filter((t) => wanted.has(t));
  if (types.length === 0) return [];
  const data = decisionEventData(d);
  return types.map((type) => buildEvent(d.accountId, type, data, { createdAt: d.timestamp }));
}

/**
 * The outbox. Events are written in the transaction of what they report (a decision, a finished batch), so a crash
 * can neither lose nor invent one; the relay of the worker fans them out to deliveries afterwards.
 */
export class EventOutbox {
  private listeners: Array<() => void> = [];

  constructor(
    readonly repository: EventRepository,
    /** Without it, every decision event is recorded whether or not a webhook subscribes to it. */
    private readonly subscriptions?: EventSubscriptions,
  ) {}

  /** The side write registered with `DecisionStore.addSideWrite`: only events some enabled webhook subscribes to. */
  readonly decisionSideWrite: DecisionSideWrite = async (trx, decisions) => {
    const events: StoredEvent[] = [];
    for (const d of decisions) {
      const wanted = this.subscriptions ? await this.subscriptions.typesFor(trx, d.accountId) : null;
      if (wanted?.size === 0) continue;
      for (const event of decisionEvents(d, wanted)) events.push(event);
    }
    await this.record(trx, events);
  };

  /** Records one account's events, only those of types some enabled webhook of it subscribes to. */
  async recordSubscribed(trx: Db, accountId: string, events: StoredEvent[]): Promise<void> {
    const wanted = this.subscriptions ? await this.subscriptions.typesFor(trx, accountId) : null;
    await this.record(trx, wanted ? events.filter((e) => wanted.has(e.type)) : events);
  }

  async record(trx: Db, events: StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.repository.insert(trx, events);
    // The transaction commits after this returns; a relay woken too early finds nothing and polls again.
    const listeners = this.listeners;
    setTimeout(() => {
      for (const listener of listeners) listener();
    }, 5).unref();
  }

  /** Called (soon) after events were recorded in this process, so the relay need not wait for its next poll. */
  onRecorded(listener: () => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}
