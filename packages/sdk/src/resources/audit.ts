import type { APIClient, RequestOptions } from '../core.ts';
import type { AuditEntry, AuditList, AuditListParams } from '../types.ts';

/** The append-only audit log of human and administrative actions (`audit:read` or `admin`). */
export class Audit {
  constructor(private readonly client: APIClient) {}

  /** One page, newest first; pass the page's `nextCursor` as `cursor` for the next one. */
  list(params: AuditListParams = {}, options?: RequestOptions): Promise<AuditList> {
    return this.client.call('get', '/v1/audit', { query: params }, options);
  }

  /** Every entry matching the filters, newest first, fetching pages of 200 as the loop asks for them. */
  async *all(
    params: Omit<AuditListParams, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<AuditEntry> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.list({ limit: '200', ...params, ...(cursor && { cursor }) }, options);
      yield* page.entries;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }
}
