import fs from 'node:fs';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics, one registry per service instance (tests run several in one process). Process
 * figures (RSS, heap, event-loop lag, GC) come from prom-client's defaults; the rest are counted where they happen.
 * Gauges that need I/O (queue depth, database size) are read when scraped, not on any request path.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'verdict_http_requests_total',
    help: 'HTTP requests answered, by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'verdict_http_request_duration_seconds',
    help: 'Time from the request to its answer, by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly decisions = new Counter({
    name: 'verdict_decisions_total',
    help: 'Decisions stored (committed), by action and content type',
    labelNames: ['action', 'content_type'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'verdict_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (succeeded, failed)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  /** Each call to a model or provider (the bundled ones and the operator's), timed where it is made. */
  readonly providerDuration = new Histogram({
    name: 'verdict_provider_call_duration_seconds',
    help: 'Time a model or AI provider took to judge one item, by provider, content type and outcome',
    labelNames: ['provider', 'content_type', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly webhookLatency = new Histogram({
    name: 'verdict_webhook_delivery_duration_seconds',
    help: 'Time a webhook endpoint took to answer a delivery attempt',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(sources: {
    queueDepth: () => Promise<number>;
    /** How long the oldest job that could run has been waiting (ms), or null when none waits. */
    oldestJobAgeMs?: () => Promise<number | null>;
    sqliteFile: string | null;
    /** The operator's external providers and their circuit state (closed, open, half_open). */
    providers?: () => Array<{ name: string; state: string }>;
  }) {
    collectDefaultMetrics({ register: this.registry, prefix: 'verdict_' });
    const providers = sources.providers;
    if (providers) {
      new Gauge({
        name: 'verdict_provider_circuit_state',
        help: "An external provider's circuit breaker: 1 for its current state (closed, open, half_open), else 0",
        labelNames: ['provider', 'state'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const p of providers()) {
            for (const state of ['closed', 'open', 'half_open']) {
              this.set({ provider: p.name, state }, p.state === state ? 1 : 0);
            }
          }
        },
      });
    }
    new Gauge({
      name: 'verdict_queue_jobs_pending',
      help: 'Background jobs waiting, delayed or running',
      registers: [this.registry],
      async collect() {
        this.set(await sources.queueDepth().catch(() => Number.NaN));
      },
    });
    const oldest = sources.oldestJobAgeMs;
    if (oldest) {
      new Gauge({
        name: 'verdict_queue_oldest_job_age_seconds',
        help: 'How long the oldest background job that is due has waited to start (0 when none waits)',
        registers: [this.registry],
        async collect() {
          const ms = await oldest().catch(() => Number.NaN);
          this.set(ms === null ? 0 : ms / 1000);
        },
      });
    }
    const file = sources.sqliteFile;
    if (file !== null) {
      const size = (path: string) => {
        try {
          return fs.statSync(path).size;
        } catch {
          return 0;
        }
      };
      new Gauge({
        name: 'verdict_sqlite_database_bytes',
        help: 'Size of the SQLite database file',
        registers: [this.registry],
        collect() {
          this.set(size(file));
        },
      });
      new Gauge({
        name: 'verdict_sqlite_wal_bytes',
        help: 'Size of the SQLite write-ahead log',
        registers: [this.registry],
        collect() {
          this.set(size(`${file}-wal`));
        },
      });
    }
  }
}
