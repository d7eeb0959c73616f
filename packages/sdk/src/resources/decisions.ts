import type { APIClient, RequestOptions } from '../core.ts';
import { readJsonLines } from '../json-lines.ts';
import { PagePromise } from '../pagination.ts';
import type {
  CurlResult,
  Decision,
  DecisionExportParams,
  DecisionList,
  DecisionListParams,
  ReplayParams,
  ReplayResult,
} from '../types.ts';

/** Stored decisions (interface §4.6, decisions §4). */
export class Decisions {
  constructor(private readonly client: APIClient) {}

  get(decisionId: string, options?: RequestOptions): Promise<Decision> {
    return this.client.call('get', '/v1/decisions/{decisionId}', { path: { decisionId } }, options);
  }

  /**
   * One page of decisions, newest first (`await`), or every decision from `offset` on (`for await … of`), fetched
   * `limit` at a time (default 20 for a page; 100 when iterating without a limit).
   */
  list(params: DecisionListParams = {}, options?: RequestOptions): PagePromise<DecisionList, Decision> {
    return new PagePromise<DecisionList, Decision>(
      (offset, iterating) =>
        this.client.call(
          'get',
          '/v1/decisions',
          { query: { ...params, offset, limit: params.limit ?? (iterating ? 100 : undefined) } },
          options,
        ),
      Number(params.offset ?? 0),
      (page) => page.decisions,
      (page) => page.hasMore,
      (decision) => decision.decisionId,
    );
  }

  /**
   * Every decision matching the filters of `list` (`q` included), newest first, from `GET /v1/decisions/export`
   * (JSON Lines), parsed a line at a time as it arrives: `for await (const d of client.decisions.export({ q }))`.
   * Memory stays bounded however many decisions match, and leaving the loop early ends the download. The request is
   * retried like any other until its response starts; a stream that breaks off, or sends nothing for `timeout` ms,
   * ends the loop with an `APIConnectionError` / `APITimeoutError`.
   */
  async *export(params: DecisionExportParams = {}, options: RequestOptions = {}): AsyncGenerator<Decision> {
    const body = await this.client.request<ReadableStream<Uint8Array> | null | undefined>(
      {
        method: 'GET',
        path: '/v1/decisions/export',
        query: params as Record<string, string | undefined>,
        headers: { accept: 'application/x-ndjson' },
        responseType: 'stream',
      },
      options,
    );
    if (!body) return;
    yield* readJsonLines<Decision>(body, options.timeout ?? this.client.timeout, options.signal);
  }

  /** Re-decides the stored content under another policy; stores a new decision with `replayOf`. */
  replay(decisionId: string, params: ReplayParams, options?: RequestOptions): Promise<ReplayResult> {
    return this.client.call(
      'post',
      '/v1/decisions/{decisionId}/replay',
      { path: { decisionId }, body: params, idempotent: true },
      options,
    );
  }

  /** A shell-safe cURL command reproducing the check; the key appears as `$VERDICT_API_KEY`. */
  curl(decisionId: string, options?: RequestOptions): Promise<CurlResult> {
    return this.client.call('get', '/v1/decisions/{decisionId}/curl', { path: { decisionId } }, options);
  }
}
