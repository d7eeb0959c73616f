import type { APIClient, RequestOptions } from '../core.ts';
import type { Stats, StatsParams } from '../types.ts';

/** Decision statistics over time, computed by the service's database. */
export class StatsResource {
  constructor(private readonly client: APIClient) {}

  /**
   * Every `bucket` (minute, hour or day) from `from` to `to` (ISO 8601; default the last 24 hours): count, action mix,
   * flag and block rates, p50/p99 latency and category triggers, plus the range's totals.
   */
  get(params: StatsParams = {}, options?: RequestOptions): Promise<Stats> {
    return this.client.call('get', '/v1/stats', { query: params }, options);
  }
}
