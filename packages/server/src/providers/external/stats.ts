import type { CircuitState } from './circuit.ts';

const WINDOW = 1000;

/** What GET /v1/providers shows of one provider. */
export interface ProviderHealth {
  name: string;
  kind: string;
  state: CircuitState;
  calls: number;
  failures: number;
  /** Of the last (up to) 1000 calls. */
  errorRate: number;
  latencyMs: { p50: number | null; p99: number | null };
  /** Since when this process counts calls, failures and latencies. */
  since: string;
}

/** Per-provider counters kept in memory: the last calls' latencies and outcomes (spend is stored with decisions). */
export class ProviderStats {
  private readonly latencies: number[] = [];
  private readonly outcomes: boolean[] = [];
  calls = 0;
  failures = 0;
  readonly since = new Date().toISOString();

  /** One HTTP call to the provider (after its retries). */
  record(ok: boolean, latencyMs: number): void {
    this.calls++;
    if (!ok) this.failures++;
    push(this.outcomes, ok);
    if (ok) push(this.latencies, latencyMs);
  }

  snapshot(): Pick<ProviderHealth, 'calls' | 'failures' | 'errorRate' | 'latencyMs' | 'since'> {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const pick = (q: number) =>
      sorted.length === 0
        ? null
        : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
    const failed = this.outcomes.filter((ok) => !ok).length;
    return {
      calls: this.calls,
      failures: this.failures,
      errorRate:
        this.outcomes.length === 0 ? 0 : Math.round((failed / this.outcomes.length) * 10_000) / 10_000,
      latencyMs: { p50: pick(0.5), p99: pick(0.99) },
      since: this.since,
    };
  }
}

function push<T>(list: T[], value: T): void {
  list.push(value);
  if (list.length > WINDOW) list.shift();
}

export const round6 = (usd: number) => Math.round(usd * 1e6) / 1e6;
