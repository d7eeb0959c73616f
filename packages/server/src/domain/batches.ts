import type { Queue } from '../jobs/queue.ts';
import type { Db } from '../storage/database.ts';
import type { BatchItemResult, BatchRecord, BatchRepository } from '../storage/repositories/batches.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import type { CheckService, PreparedCheck } from './checks.ts';
import { requireField } from './content.ts';
import type { DecisionSideWrite, DecisionStore } from './decisions.ts';
import { AppError, isAppError } from './errors.ts';
import { buildEvent, type EventOutbox } from './events.ts';
import { newId } from './ids.ts';
import type { PolicyService } from './policies/service.ts';
import { type Principal, requireAnyScope, requireScope, workerPrincipal } from './principal.ts';
import {
  coverDecisions,
  type UsageService,
  type UsageUnits,
  units,
  unitsOfType,
  withReservation,
} from './usage.ts';
import { assertPublicWebhookUrl, parseWebhookUrl } from './webhook-url.ts';

export const MAX_BATCH_ITEMS = 100;
const MAX_ITEM_ID_LENGTH = 256;
/** Items evaluated at once: enough to overlap I/O (image fetches), small enough not to hog the providers. */
const EVALUATION_CONCURRENCY = 4;
/** Async batches store their decisions in chunks, each in one transaction with its progress. */
const CHUNK_SIZE = 10;

export const BATCH_TASK = 'batch.process';

export interface BatchRequest {
  policyId?: unknown;
  items?: unknown;
  webhookUrl?: unknown;
}

interface PreparedItem {
  index: number;
  id: string;
  check: PreparedCheck;
}

/** Where a decision of an async batch belongs; kept in the decision's stored request. */
interface BatchTag {
  batchId: string;
  index: number;
  itemId: string;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function itemResult(id: string, d: DecisionRecord): BatchItemResult {
  return { id, safe: d.safe, flagged: d.flagged, action: d.action, decisionId: d.decisionId };
}

function invalidItem(
  index: number,
  id: unknown,
  code: string,
  message: string,
  field?: unknown,
  /** the item error's own details (reason, limits), kept next to index, id and code */
  details?: Record<string, unknown>,
): AppError {
  return new AppError('INVALID_BATCH_ITEM', `Item ${index} is invalid: ${message}`, {
    ...details,
    index,
    id: typeof id === 'string' ? id : null,
    code,
    ...(field !== undefined && { field }),
  });
}

function batchUnits(items: PreparedItem[]): UsageUnits {
  const total = units({});
  for (const { check } of items) {
    const u = unitsOfType(check.contentType);
    total.text += u.text;
    total.image += u.image;
    total.videoFrames += u.videoFrames;
  }
  return total;
}

/** Synchronous and asynchronous batches of checks (interface §4.3, §4.4; decisions §7). */
export class BatchService {
  constructor(
    private readonly db: Db,
    private readonly repository: BatchRepository,
    private readonly policies: PolicyService,
    private readonly checks: CheckService,
    private readonly store: DecisionStore,
    private readonly outbox: EventOutbox,
    private readonly queue: Queue,
    private readonly usage: UsageService,
    private readonly options: { allowPrivateUrls: boolean },
  ) {}

  /** Joins the decisions' transaction: an async batch's progress is stored with its items' decisions. */
  readonly decisionSideWrite: DecisionSideWrite = async (trx, decisions) => {
    const rows = decisions.flatMap((d) => {
      const tag = (d.request as { batch?: BatchTag }).batch;
      return tag ? [{ batchId: tag.batchId, index: tag.index, ...itemResult(tag.itemId, d) }] : [];
    });
    await this.repository.insertResults(trx, rows, new Date().toISOString());
  };

  /** Validates the whole request, every item included, before anything is evaluated or stored. */
  private async validate(principal: Principal, body: BatchRequest): Promise<PreparedItem[]> {
    requireScope(principal, 'check');
    requireField(body.policyId, 'policyId');
    const { items } = body;
    if (items === undefined || items === null || (Array.isArray(items) && items.length === 0)) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'items is required and must hold at least one item', {
        field: 'items',
      });
    }
    if (!Array.isArray(items)) {
      throw new AppError('INVALID_PARAMETER', 'items must be an array', { field: 'items' });
    }
    if (items.length > MAX_BATCH_ITEMS) {
      throw new AppError('TOO_MANY_ITEMS', `A batch holds at most ${MAX_BATCH_ITEMS} items`, {
        field: 'items',
        maxItems: MAX_BATCH_ITEMS,
        received: items.length,
      });
    }
    // Policy errors concern the whole batch, not an item.
    await this.policies.resolve(principal, body.policyId);
    const seen = new Set<string>();
    const prepared: PreparedItem[] = [];
    for (const [index, item] of items.entries()) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        throw invalidItem(index, undefined, 'INVALID_PARAMETER', 'an item must be an object');
      }
      const { id } = item as { id?: unknown };
      if (id === undefined || id === null) {
        throw invalidItem(index, id, 'MISSING_REQUIRED_FIELD', 'id is required', `items[${index}].id`);
      }
      if (typeof id !== 'string' || id === '' || id.length > MAX_ITEM_ID_LENGTH) {
        throw invalidItem(
          index,
          id,
          'INVALID_PARAMETER',
          `id must be a string of 1–${MAX_ITEM_ID_LENGTH} characters`,
          `items[${index}].id`,
        );
      }
      if (seen.has(id)) {
        throw invalidItem(
          index,
          id,
          'DUPLICATE_ITEM_ID',
          `id "${id}" appears more than once`,
          `items[${index}].id`,
        );
      }
      seen.add(id);
      try {
        const check = await this.checks.prepare(principal, this.itemRequest(item, body.policyId), {
          fieldPrefix: `items[${index}].`,
        });
        prepared.push({ index, id, check });
      } catch (error) {
        if (isAppError(error))
          throw invalidItem(index, id, error.code, error.message, error.details?.field, error.details);
        throw error;
      }
    }
    return prepared;
  }

  private itemRequest(item: object, policyId: unknown) {
    const { content, contentType, language, metadata, doNotStore } = item as Record<string, unknown>;
    return { content, contentType, language, metadata, doNotStore, policyId };
  }

  private evaluateAll(principal: Principal, items: PreparedItem[]): Promise<DecisionRecord[]> {
    return mapLimit(items, EVALUATION_CONCURRENCY, async (item) => {
      try {
        return await this.checks.evaluate(principal, item.check, { requestId: null, path: '/v1/check' });
      } catch (error) {
        // Content found invalid only when fetched or decoded (a private, missing or non-image URL) is an invalid
        // item like one refused up front; quota and provider errors concern the whole batch.
        if (isAppError(error) && error.status < 500 && error.status !== 402 && error.status !== 429)
          throw invalidItem(
            item.index,
            item.id,
            error.code,
            error.message,
            error.details?.field,
            error.details,
          );
        throw error;
      }
    });
  }

  /** `POST /v1/batch/check`: one stored decision per item, all stored together. */
  async checkSync(principal: Principal, body: BatchRequest) {
    const prepared = await this.validate(principal, body);
    // A batch that would cross the quota is refused whole, before any item is evaluated.
    return withReservation(this.usage, principal, batchUnits(prepared), async (reservation) => {
      const records = await this.evaluateAll(principal, prepared);
      reservation.cover(records);
      await this.store.save(records);
      return {
        items: records.map((d, i) => {
          const { id, check } = prepared[i]!;
          return { ...itemResult(id, d), ...(check.warnings.length > 0 && { warnings: check.warnings }) };
        }),
      };
    });
  }

  /** `POST /v1/batch/check/async`: validated now, evaluated by the queue, announced by `moderation.completed`. */
  async submit(principal: Principal, body: BatchRequest, options: { requestId: string | null }) {
    requireScope(principal, 'check');
    const url = parseWebhookUrl(body.webhookUrl, 'webhookUrl');
    const prepared = await this.validate(principal, body);
    await assertPublicWebhookUrl(url, this.options.allowPrivateUrls, 'webhookUrl');
    const now = new Date().toISOString();
    const batch: BatchRecord = {
      batchId: newId('bat'),
      accountId: principal.accountId,
      keyId: principal.keyId,
      status: 'processing',
      policyId: prepared[0]!.check.policy.policyId,
      totalItems: prepared.length,
      items: (body.items as object[]).map((item) => ({
        id: (item as { id: string }).id,
        ...this.itemRequest(item, undefined),
      })),
      webhookUrl: url.toString(),
      requestId: options.requestId,
      error: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    // The whole batch is reserved now; its decisions, stored later by the worker, are covered by this reservation.
    await withReservation(this.usage, principal, batchUnits(prepared), async () => {
      await this.repository.insert(batch);
    });
    // The batch is accepted once stored: should the enqueue fail (the queue's Redis is down) or the process die
    // before it, the worker's sweep enqueues the batch again, so the answer stays 202 and the batch "processing".
    await this.enqueue(batch.batchId).catch(() => {});
    return { batchId: batch.batchId, status: 'processing' as const, totalItems: batch.totalItems };
  }

  async enqueue(batchId: string): Promise<void> {
    await this.queue.enqueue([
      { name: BATCH_TASK, data: { batchId }, id: `batch.${batchId}`, maxAttempts: 5 },
    ]);
  }

  async get(principal: Principal, batchId: string) {
    requireAnyScope(principal, 'decisions:read', 'check');
    const batch = await this.repository.get(batchId, principal.accountId);
    if (!batch) throw new AppError('BATCH_NOT_FOUND', `Batch ${batchId} does not exist`, { batchId });
    const results = await this.repository.results(batchId);
    return {
      batchId: batch.batchId,
      status: batch.status,
      totalItems: batch.totalItems,
      processedItems: results.length,
      policyId: batch.policyId,
      createdAt: batch.createdAt,
      completedAt: batch.completedAt,
      ...(batch.status === 'completed' && { items: results.map(({ index: _i, ...r }) => r) }),
      ...(batch.error && { error: batch.error }),
    };
  }

  /**
   * The queue task: evaluates the items not yet stored, a chunk at a time, each chunk's decisions and progress in
   * one transaction. After a crash it resumes where the last committed chunk ended, so no item is decided twice.
   */
  async process(batchId: string, signal?: AbortSignal): Promise<void> {
    const batch = await this.repository.get(batchId);
    if (batch?.status !== 'processing') return;
    const principal = workerPrincipal(batch.keyId, batch.accountId);
    const done = new Set((await this.repository.results(batchId)).map((r) => r.index));
    const pending = batch.items
      .map((item, index) => ({ item, index }))
      .filter(({ index }) => !done.has(index));
    for (let i = 0; i < pending.length; i += CHUNK_SIZE) {
      if (signal?.aborted) throw new Error('Batch processing was interrupted');
      const chunk: PreparedItem[] = [];
      for (const { item, index } of pending.slice(i, i + CHUNK_SIZE)) {
        const check = await this.checks.prepare(principal, this.itemRequest(item, batch.policyId), {
          fieldPrefix: `items[${index}].`,
        });
        chunk.push({ index, id: item.id as string, check });
      }
      const records = await this.evaluateAll(principal, chunk);
      records.forEach((record, k) => {
        const tag: BatchTag = { batchId, index: chunk[k]!.index, itemId: chunk[k]!.id };
        record.request = { ...record.request, batch: tag };
      });
      coverDecisions(records); // metered when the batch was accepted
      await this.store.save(records);
    }
    const items = (await this.repository.results(batchId)).map(({ index: _i, ...r }) => r);
    await this.db.transaction().execute(async (trx) => {
      if (!(await this.repository.finish(trx, batchId, 'completed', null, new Date().toISOString()))) return;
      const data = { id: batchId, batchId, status: 'completed', totalItems: batch.totalItems, items };
      await this.outbox.record(trx, [
        buildEvent(batch.accountId, 'moderation.completed', data, { targetUrl: batch.webhookUrl }),
      ]);
    });
  }

  /** The batch failed for good (its job used up its attempts): `moderation.failed`. */
  async fail(batchId: string, error: unknown): Promise<void> {
    const batch = await this.repository.get(batchId);
    if (batch?.status !== 'processing') return;
    const processedItems = await this.repository.processedCount(batchId);
    const failure = isAppError(error)
      ? { code: error.code, message: error.message, ...(error.details && { details: error.details }) }
      : { code: 'INTERNAL_ERROR', message: 'The batch could not be processed' };
    await this.db.transaction().execute(async (trx) => {
      if (!(await this.repository.finish(trx, batchId, 'failed', failure, new Date().toISOString()))) return;
      const data = {
        id: batchId,
        batchId,
        status: 'failed',
        totalItems: batch.totalItems,
        processedItems,
        error: failure,
      };
      await this.outbox.record(trx, [
        buildEvent(batch.accountId, 'moderation.failed', data, { targetUrl: batch.webhookUrl }),
      ]);
    });
  }

  /** Batches still processing with no progress for a while: enqueued again (a no-op while their job exists). */
  async resumeStalled(idleMs: number): Promise<number> {
    const ids = await this.repository.processingIds(new Date(Date.now() - idleMs).toISOString());
    for (const id of ids) await this.enqueue(id);
    return ids.length;
  }
}
