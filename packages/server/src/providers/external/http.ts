import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { type Resolver, safeFetch, UnsafeUrlError } from '../../media/safe-fetch.ts';
import { ProviderError } from '../provider.ts';
import { CircuitBreaker } from './circuit.ts';
import type { ExternalProviderConfig } from './config-file.ts';
import { ProviderStats } from './stats.ts';

/** How outbound provider calls connect: extra CAs (VERDICT_CA_FILE) and, for tests, the resolver. */
export interface ProviderFetchOptions {
  ca?: string;
  lookup?: Resolver;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;
const MAX_WAITING = 1000;
const BASE_BACKOFF_MS = 100;

/**
 * The HTTP side of an external provider: JSON POSTs through the safe fetcher (https, public addresses unless the
 * operator set allowPrivateNetwork), at most `maxConcurrency` at once, retried with backoff on 429, 5xx and
 * connection failures, all within `timeoutMs`, behind a circuit breaker. The key is sent in a header and never put
 * in an error message or log line.
 */
export class ProviderHttp {
  readonly breaker: CircuitBreaker;
  readonly stats = new ProviderStats();
  private running = 0;
  private readonly waiting: { resolve: () => void; timer: NodeJS.Timeout }[] = [];
  /** Calls in flight right now, and the most ever seen at once (tests check the bound). */
  peakInFlight = 0;
  /** Connections are kept alive between calls: a TLS handshake per call would cost more than many answers. */
  private readonly agent: http.Agent;

  constructor(
    readonly config: ExternalProviderConfig,
    private readonly fetchOptions: ProviderFetchOptions = {},
  ) {
    this.breaker = new CircuitBreaker(config.circuitBreaker.failures, config.circuitBreaker.openMs);
    const options = { keepAlive: true, maxSockets: config.maxConcurrency, timeout: 60_000 };
    this.agent = config.url.startsWith('https:') ? new https.Agent(options) : new http.Agent(options);
  }

  close(): void {
    this.agent.destroy();
  }

  /** POSTs `body` as JSON to `url`; the parsed JSON answer, or ProviderError. */
  async postJson(
    url: string,
    body: unknown,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const name = this.config.name;
    const deadline = performance.now() + this.config.timeoutMs;
    if (!this.breaker.tryAcquire()) throw new ProviderError(name, 'circuit open after repeated failures');
    try {
      await this.acquireSlot(deadline);
    } catch (error) {
      this.breaker.release();
      throw error;
    }
    const started = performance.now();
    try {
      const json = await this.attempts(url, JSON.stringify(body), headers, deadline, signal);
      this.breaker.success();
      this.stats.record(true, performance.now() - started);
      return json;
    } catch (error) {
      this.breaker.failure();
      this.stats.record(false, performance.now() - started);
      throw error;
    } finally {
      this.releaseSlot();
    }
  }

  private async attempts(
    url: string,
    body: string,
    headers: Record<string, string>,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const name = this.config.name;
    let last = 'no attempt';
    for (let attempt = 0; attempt <= this.config.retries; attempt++) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      let retryAfterMs: number | null = null;
      try {
        const response = await safeFetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
          allowPrivate: this.config.allowPrivateNetwork,
          allowHttp: this.config.allowPrivateNetwork,
          maxBytes: MAX_RESPONSE_BYTES,
          connectTimeoutMs: Math.min(remaining, 5000),
          totalTimeoutMs: remaining,
          maxRedirects: 0,
          agent: this.agent,
          ...(this.fetchOptions.ca && { ca: this.fetchOptions.ca }),
          ...(this.fetchOptions.lookup && { lookup: this.fetchOptions.lookup }),
          ...(signal && { signal }),
        });
        if (response.status >= 200 && response.status < 300) {
          try {
            return JSON.parse(response.body.toString('utf8'));
          } catch {
            throw new ProviderError(name, 'the provider answered with malformed JSON');
          }
        }
        last = `HTTP ${response.status}`;
        if (response.status !== 429 && response.status < 500) {
          // 4xx: a wrong key or a request the provider refuses; repeating it cannot help
          throw new ProviderError(name, `the provider refused the request (HTTP ${response.status})`);
        }
        const header = Number(response.headers['retry-after']);
        if (Number.isFinite(header) && header >= 0) retryAfterMs = header * 1000;
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        if (signal?.aborted) throw new ProviderError(name, 'the request was cancelled');
        const reason = error instanceof UnsafeUrlError ? error.reason : 'network';
        if (reason === 'private_address' || reason === 'protocol' || reason === 'invalid_url')
          throw new ProviderError(
            name,
            `the provider URL is not allowed (${reason}); see allowPrivateNetwork`,
          );
        if (reason === 'too_large') throw new ProviderError(name, 'the provider answer is larger than 1 MB');
        last = reason;
        if (reason === 'timeout') break;
      }
      if (attempt === this.config.retries) break;
      const backoff = retryAfterMs ?? BASE_BACKOFF_MS * 2 ** attempt * (0.8 + Math.random() * 0.4);
      if (performance.now() + backoff >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, backoff));
    }
    throw new ProviderError(
      name,
      last === 'timeout' || deadline - performance.now() <= 0
        ? `no answer within ${this.config.timeoutMs} ms`
        : `the provider failed (${last})`,
    );
  }

  private acquireSlot(deadline: number): Promise<void> {
    if (this.running < this.config.maxConcurrency) {
      this.running++;
      this.peakInFlight = Math.max(this.peakInFlight, this.running);
      return Promise.resolve();
    }
    if (this.waiting.length >= MAX_WAITING)
      return Promise.reject(new ProviderError(this.config.name, 'too many calls waiting for the provider'));
    return new Promise((resolve, reject) => {
      const entry = {
        resolve,
        timer: setTimeout(
          () => {
            this.waiting.splice(this.waiting.indexOf(entry), 1);
            reject(new ProviderError(this.config.name, `no free slot within ${this.config.timeoutMs} ms`));
          },
          Math.max(0, deadline - performance.now()),
        ),
      };
      this.waiting.push(entry);
    });
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(); // the slot passes on: `running` stays as it is
    } else this.running--;
  }
}
