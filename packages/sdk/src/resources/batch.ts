import type { APIClient, RequestOptions } from '../core.ts';
import type { AsyncBatchParams, BatchAccepted, BatchParams, BatchResult, BatchStatus } from '../types.ts';

/** Batches of up to 100 items (interface §4.3, §4.4). */
export class Batch {
  constructor(private readonly client: APIClient) {}

  /** Checks 1–100 items now; one decision per item. */
  check(params: BatchParams, options?: RequestOptions): Promise<BatchResult> {
    return this.client.call('post', '/v1/batch/check', { body: params, idempotent: true }, options);
  }

  /** Queues 1–100 items; `moderation.completed` goes to `webhookUrl` when done. */
  checkAsync(params: AsyncBatchParams, options?: RequestOptions): Promise<BatchAccepted> {
    return this.client.call('post', '/v1/batch/check/async', { body: params, idempotent: true }, options);
  }

  /** Status of an asynchronous batch, with its items once completed. */
  get(batchId: string, options?: RequestOptions): Promise<BatchStatus> {
    return this.client.call('get', '/v1/batch/{batchId}', { path: { batchId } }, options);
  }
}
