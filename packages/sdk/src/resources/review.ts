import type { APIClient, RequestOptions } from '../core.ts';
import type {
  Appeal,
  AppealList,
  AppealParams,
  Decision,
  QualityParams,
  QualityReport,
  ReviewClaim,
  ReviewClaimParams,
  ReviewParams,
  ReviewQueue,
  ReviewQueueItem,
  ReviewQueueParams,
  Statement,
  StatementExportParams,
} from '../types.ts';

type Overturn = Omit<ReviewParams, 'outcome' | 'action'>;

/** Human review of decisions, appeals and statements of reasons (scope `review`; appeals also `check`). */
export class Review {
  constructor(private readonly client: APIClient) {}

  /** Pending entries, appeals first, then oldest first, each with its decision. */
  queue(params: ReviewQueueParams = {}, options?: RequestOptions): Promise<ReviewQueue> {
    return this.client.call('get', '/v1/review/queue', { query: params }, options);
  }

  /** Leases up to `limit` (default 1) available entries to this key for `leaseSeconds` (default 600). */
  claim(params: ReviewClaimParams = {}, options?: RequestOptions): Promise<ReviewClaim> {
    return this.client.call('post', '/v1/review/queue/claim', { body: params }, options);
  }

  /** Gives a claimed entry back to the queue before its lease ends. */
  release(itemId: string, options?: RequestOptions): Promise<ReviewQueueItem> {
    return this.client.call('post', '/v1/review/queue/{itemId}/release', { path: { itemId } }, options);
  }

  /** Records a review: `confirm`, or `overturn` with the `action` that applies instead. */
  decide(decisionId: string, params: ReviewParams, options?: RequestOptions): Promise<Decision> {
    return this.client.call(
      'post',
      '/v1/decisions/{decisionId}/review',
      { path: { decisionId }, body: params },
      options,
    );
  }

  /** Confirms the decision's current action. */
  confirm(decisionId: string, params: Overturn = {}, options?: RequestOptions): Promise<Decision> {
    return this.decide(decisionId, { ...params, outcome: 'confirm' }, options);
  }

  /** Overturns the decision to another action; the automated `action` stays in the record. */
  overturn(
    decisionId: string,
    action: NonNullable<ReviewParams['action']>,
    params: Overturn = {},
    options?: RequestOptions,
  ): Promise<Decision> {
    return this.decide(decisionId, { ...params, outcome: 'overturn', action }, options);
  }

  /** Files an appeal on behalf of the platform's user; the decision goes to the front of the queue. */
  appeal(decisionId: string, params: AppealParams, options?: RequestOptions): Promise<Appeal> {
    return this.client.call(
      'post',
      '/v1/decisions/{decisionId}/appeals',
      { path: { decisionId }, body: params },
      options,
    );
  }

  /** A decision's appeals, oldest first. */
  appeals(decisionId: string, options?: RequestOptions): Promise<AppealList> {
    return this.client.call('get', '/v1/decisions/{decisionId}/appeals', { path: { decisionId } }, options);
  }

  /**
   * Per category, a policy's automated decisions against the reviewers' labels: precision, recall and the threshold
   * that would have met `targetPrecision` (scope `decisions:read` or `review`).
   */
  quality(params: QualityParams, options?: RequestOptions): Promise<QualityReport> {
    return this.client.call('get', '/v1/quality', { query: params }, options);
  }

  /** The statement of reasons of a decision (DSA Article 17) as JSON. */
  statement(decisionId: string, options?: RequestOptions): Promise<Statement> {
    return this.client.call('get', '/v1/decisions/{decisionId}/statement', { path: { decisionId } }, options);
  }

  /** The statement of reasons as readable text. */
  async statementText(decisionId: string, options?: RequestOptions): Promise<string> {
    const blob = await this.client.request<Blob>(
      {
        method: 'GET',
        path: `/v1/decisions/${encodeURIComponent(decisionId)}/statement`,
        query: { format: 'text' },
        responseType: 'blob',
      },
      options,
    );
    return blob.text();
  }

  /**
   * Statements of reasons as JSON lines (one per restricted decision, or every decision with `all: 'true'`),
   * oldest first. The server streams them; this reads the whole export, so bound it with `from` / `to`.
   */
  async exportStatements(params: StatementExportParams = {}, options?: RequestOptions): Promise<Statement[]> {
    const blob = await this.client.request<Blob>(
      { method: 'GET', path: '/v1/statements/export', query: params, responseType: 'blob' },
      options,
    );
    const text = await blob.text();
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Statement);
  }
}
