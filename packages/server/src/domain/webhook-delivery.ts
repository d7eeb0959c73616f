import { performance } from 'node:perf_hooks';
import { redactUrl, safeFetch, UnsafeUrlError } from '../media/safe-fetch.ts';
import type { AccountRepository } from '../storage/repositories/accounts.ts';
import type { EventRepository, StoredEvent } from '../storage/repositories/events.ts';
import type { WebhookRepository } from '../storage/repositories/webhooks.ts';
import { newId } from './ids.ts';
import { activeSecrets, signatureHeader } from './webhook-signature.ts';

/** Delays between attempts of decisions §6.4 (before jitter). */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
export const DELIVERY_TIMEOUT_MS = 15_000;
/** An endpoint whose every delivery failed for this long is disabled. */
export const FAILING_DISABLE_AFTER_MS = 5 * 86_400_000;
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export const DELIVER_TASK = 'webhook.deliver';

export interface DeliveryJobData {
  eventId: string;
  /** null: the event's ad-hoc `targetUrl`, signed with the account's signing secret. */
  webhookId: string | null;
}

export interface AttemptResult {
  success: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  retryAfterMs: number | null;
}

export type DeliveryOutcome =
  | { kind: 'delivered' | 'skipped' | 'disabled' | 'gave_up' }
  | { kind: 'retry'; delayMs: number; reason: string };

/** `Retry-After` as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

export function jittered(delayMs: number, random = Math.random()): number {
  return Math.round(delayMs * (0.8 + 0.4 * random));
}

export interface DelivererOptions {
  allowPrivate: boolean;
  ca?: string | Buffer | Array<string | Buffer>;
  retryScheduleMs: number[];
  /** Per attempt; decisions §6.4 says 15 s. */
  timeoutMs?: number;
}

/** Sends signed events, logs every attempt, and decides retries, 410s and disabling (decisions §6.3–6.5). */
export class WebhookDeliverer {
  /** Told of every delivery attempt of an event (metrics). */
  onAttempt: ((success: boolean, durationMs: number) => void) | null = null;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly events: EventRepository,
    private readonly accounts: AccountRepository,
    readonly options: DelivererOptions,
  ) {}

  /** Attempts in all for one event and destination: the first plus one per scheduled retry. */
  get maxAttempts(): number {
    return this.options.retryScheduleMs.length + 1;
  }

  /** One signed POST; never throws for the receiver's failures. */
  async send(
    url: string,
    event: Pick<StoredEvent, 'id' | 'type' | 'payload'>,
    secrets: string[],
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const duration = () => Math.round((performance.now() - started) * 10) / 10;
    try {
      const response = await safeFetch(url, {
        allowPrivate: this.options.allowPrivate,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-signature': signatureHeader(secrets, event.payload),
          'x-service-event-id': event.id,
          'x-service-event-type': event.type,
        },
        body: event.payload,
        maxBytes: 256 * 1024,
        connectTimeoutMs: Math.min(10_000, this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
        totalTimeoutMs: this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        maxRedirects: 0,
        ...(this.options.ca !== undefined && { ca: this.options.ca }),
        ...(signal && { signal }),
      });
      const success = response.status >= 200 && response.status < 300;
      return {
        success,
        responseCode: response.status,
        durationMs: duration(),
        error: success ? null : `HTTP ${response.status}`,
        retryAfterMs: parseRetryAfter(response.headers['retry-after']),
      };
    } catch (error) {
      const message =
        error instanceof UnsafeUrlError
          ? `${error.reason}: ${error.message}`
          : 'delivery failed unexpectedly';
      return {
        success: false,
        responseCode: null,
        durationMs: duration(),
        error: message,
        retryAfterMs: null,
      };
    }
  }

  /** One attempt of a queued delivery. The caller turns a `retry` outcome into a delayed retry of the job. */
  async deliver(
    data: DeliveryJobData,
    attempt: number,
    maxAttempts: number,
    signal?: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const event = await this.events.get(data.eventId);
    if (!event) return { kind: 'skipped' };
    let url: string;
    let secrets: string[];
    const webhook = data.webhookId ? await this.webhooks.get(data.webhookId) : null;
    if (data.webhookId) {
      // Deleted or disabled since the event was fanned out: nothing to do.
      if (!webhook?.enabled || webhook.accountId !== event.accountId) return { kind: 'skipped' };
      url = webhook.url;
      secrets = activeSecrets(webhook);
    } else {
      const account = await this.accounts.get(event.accountId);
      if (!account || !event.targetUrl) return { kind: 'skipped' };
      url = event.targetUrl;
      secrets = [account.signingSecret];
    }
    const result = await this.send(url, event, secrets, signal);
    this.onAttempt?.(result.success, result.durationMs);
    const now = new Date();
    await this.webhooks.insertDelivery({
      id: newId('dlv'),
      accountId: event.accountId,
      webhookId: data.webhookId,
      eventId: event.id,
      eventType: event.type,
      url: redactUrl(url),
      attempt,
      status: result.success ? 'succeeded' : 'failed',
      responseCode: result.responseCode,
      durationMs: result.durationMs,
      error: result.error,
      timestamp: now.toISOString(),
    });
    if (result.success) {
      if (webhook?.failingSince) await this.webhooks.markHealthy(webhook.id);
      return { kind: 'delivered' };
    }
    if (result.responseCode === 410) {
      if (webhook)
        await this.webhooks.disable(webhook.id, 'The endpoint answered 410 Gone', now.toISOString());
      return { kind: 'disabled' };
    }
    if (webhook) {
      const failingSince = await this.webhooks.markFailing(webhook.id, now.toISOString());
      if (now.getTime() - Date.parse(failingSince) >= FAILING_DISABLE_AFTER_MS) {
        await this.webhooks.disable(
          webhook.id,
          `Every delivery failed since ${failingSince} (5 days)`,
          now.toISOString(),
        );
        return { kind: 'disabled' };
      }
    }
    if (attempt >= maxAttempts) return { kind: 'gave_up' };
    const schedule = this.options.retryScheduleMs;
    const scheduled = jittered(schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 60_000);
    const delayMs = Math.max(scheduled, result.retryAfterMs ?? 0);
    return { kind: 'retry', delayMs, reason: result.error ?? 'delivery failed' };
  }
}
