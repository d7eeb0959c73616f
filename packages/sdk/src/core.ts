import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  errorFromResponse,
  parseErrorBody,
  VerdictError,
} from './errors.ts';
import { isRetryableStatus, retryDelay } from './retries.ts';
import type { HttpMethod, PathParams, Paths, QueryParams, RequestBody, ResponseBody } from './types.ts';

/** The options the client passes to `fetch`: a URL string and these, nothing else. */
export interface FetchInit {
  method: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** JSON text, or a multipart form (video uploads). */
  body?: string | FormData;
  /** Aborted on the time-out (which covers the response's body too) or the caller's own signal. */
  signal: AbortSignal;
}

/** What the client reads of a response; the Fetch API's `Response` is one. */
export interface FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  /** Read as it arrives for `responseType: 'stream'` (the decisions export). */
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  /** For `responseType: 'blob'` (evidence JPEGs, statements). */
  blob(): Promise<Blob>;
}

/**
 * The part of `fetch` the client uses. The global `fetch` is one; a transport of its own (a proxy agent, a test
 * double, a runtime without `fetch`) need implement only this much.
 */
export type Fetch = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface ClientOptions {
  /** API key (`vk_…`); default the `VERDICT_API_KEY` environment variable where there is one. */
  apiKey?: string;
  /** Base address of the service; default `VERDICT_URL`, else `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** Retries of 429, 5xx and network failures; default 3. */
  maxRetries?: number;
  /** Milliseconds for each attempt, response body included; default 30000. */
  timeout?: number;
  /** A `fetch` implementation (see `Fetch` for the part of fetch the client uses); default the global one. */
  fetch?: Fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /** How to wait between attempts; for tests and custom schedulers. Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Options of a single call. */
export interface RequestOptions {
  /** Idempotency key of an evaluating or creating POST; default a fresh one, reused across its retries. */
  idempotencyKey?: string;
  timeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface RawRequest {
  method: Uppercase<HttpMethod>;
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /** Sends an `Idempotency-Key` (decisions §5), the same on every retry. */
  idempotent?: boolean;
  headers?: Record<string, string>;
  /**
   * `blob` for binary responses (evidence JPEGs); `stream` for a body read as it arrives (the export's JSON Lines:
   * the time-out then covers the response's headers, and the reader times out its own waits); default JSON (a
   * success that is not JSON is an error).
   */
  responseType?: 'json' | 'blob' | 'stream';
  /**
   * Whether a failure after the request may have been processed (network error, time-out, 5xx) is retried. Default:
   * yes, except for a POST without an idempotency key (a second webhook secret rotation or test event); a 429 is
   * always retried, since it was refused before any work. Dry-runs, which change nothing, set it.
   */
  repeatable?: boolean;
}

/** A successful response: its parsed body, status and headers. */
export interface RawResponse<T> {
  data: T;
  status: number;
  headers: Headers;
}

function envVar(name: string): string | undefined {
  // No Node built-ins: `process` is read only where it exists (Node, Deno, Bun), so browsers are fine.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A random idempotency key, from Web Crypto (browsers, Node ≥ 19) or `Math.random` where there is none. */
export function newIdempotencyKey(): string {
  const cryptoObj = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (cryptoObj?.randomUUID) return `sdk_${cryptoObj.randomUUID()}`;
  let hex = '';
  for (let i = 0; i < 32; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return `sdk_${hex}`;
}

/**
 * By its tag rather than `instanceof FormData`: in Node, reading the global `FormData` loads undici (a tenth of a
 * second), which a client given a transport of its own and JSON bodies never needs. A form from another realm or
 * a spec-conformant polyfill is recognised too.
 */
function isFormData(body: unknown): body is FormData {
  return Object.prototype.toString.call(body) === '[object FormData]';
}

async function readBody(response: FetchResponse, responseType: RawRequest['responseType']): Promise<unknown> {
  if (response.status === 204) return undefined;
  if (responseType === 'blob' && response.ok) return response.blob();
  if (responseType === 'stream' && response.ok) return response.body;
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** Transport: authentication, time-outs, retries with backoff, idempotency keys and typed errors. */
export class APIClient {
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #apiKey: string;
  readonly #fetch: Fetch | undefined;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #headers: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? envVar('VERDICT_API_KEY');
    if (!apiKey) {
      throw new VerdictError({
        code: 'MISSING_API_KEY',
        message: 'No API key: pass { apiKey } or set VERDICT_API_KEY',
      });
    }
    this.#apiKey = apiKey;
    this.baseUrl = (options.baseUrl ?? envVar('VERDICT_URL') ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    this.maxRetries = options.maxRetries ?? 3;
    this.timeout = options.timeout ?? 30_000;
    this.#fetch = options.fetch;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#headers = options.defaultHeaders ?? {};
  }

  /** Builds the URL of a path with its query; `undefined` and `null` values are left out. */
  buildUrl(path: string, query?: RawRequest['query']): string {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** Sends a request, retrying as documented; resolves with the body of a 2xx response. */
  async request<T>(req: RawRequest, options: RequestOptions = {}): Promise<T> {
    return (await this.requestRaw<T>(req, options)).data;
  }

  async requestRaw<T>(req: RawRequest, options: RequestOptions = {}): Promise<RawResponse<T>> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeout = options.timeout ?? this.timeout;
    // header names in lower case, so that an `Idempotency-Key` given in any case is one header, not two
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const extra of [this.#headers, req.headers, options.headers])
      for (const [name, value] of Object.entries(extra ?? {})) headers[name.toLowerCase()] = value;
    headers.authorization = `Bearer ${this.#apiKey}`;
    let body: FetchInit['body'];
    if (isFormData(req.body)) body = req.body;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    if (req.idempotent) {
      // One key for the whole operation, so a retry after a lost response cannot evaluate twice. A `requestId`
      // in the body, or an Idempotency-Key header passed in, is the same mechanism.
      const bodyKey = (req.body as { requestId?: unknown } | undefined)?.requestId;
      headers['idempotency-key'] =
        options.idempotencyKey ??
        headers['idempotency-key'] ??
        (typeof bodyKey === 'string' ? bodyKey : newIdempotencyKey());
    }
    const repeatable = req.repeatable ?? (req.method !== 'POST' || req.idempotent === true);
    const url = this.buildUrl(req.path, req.query);

    for (let retry = 0; ; retry++) {
      let outcome: { response: FetchResponse; body: unknown };
      try {
        outcome = await this.#attempt(
          url,
          { method: req.method, headers, body },
          timeout,
          options.signal,
          req.responseType,
        );
      } catch (error) {
        if (error instanceof APIUserAbortError) throw error;
        if (retry < maxRetries && repeatable) {
          await this.#wait(retryDelay(retry, null) ?? 0, options.signal);
          continue;
        }
        throw error;
      }
      const { response } = outcome;
      if (response.ok) {
        if (req.responseType === undefined && typeof outcome.body === 'string') {
          // a proxy's or captive portal's page, or a broken body: never hand it on as a result (a moderation
          // client reading `action` from it would let everything through)
          throw new VerdictError({
            status: response.status,
            code: 'INVALID_RESPONSE',
            message: `HTTP ${response.status} with a body that is not the service's JSON`,
            details: outcome.body.slice(0, 500),
            requestId: response.headers.get('x-request-id') ?? undefined,
            headers: response.headers,
          });
        }
        return { data: outcome.body as T, status: response.status, headers: response.headers };
      }
      const parsed = parseErrorBody(response.status, outcome.body);
      if (
        retry < maxRetries &&
        isRetryableStatus(response.status, parsed.code) &&
        (repeatable || response.status === 429)
      ) {
        const retryAfter = response.headers.get('retry-after') ?? parsed.retryAfter?.toString() ?? null;
        const delay = retryDelay(retry, retryAfter);
        if (delay !== null) {
          await this.#wait(delay, options.signal);
          continue;
        }
      }
      throw errorFromResponse(response.status, outcome.body, response.headers);
    }
  }

  async #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted)
        throw new APIUserAbortError({ code: 'ABORTED', message: 'Request aborted', cause: error });
      throw error;
    }
  }

  /** One attempt: the time-out covers the whole response, body included. */
  async #attempt(
    url: string,
    init: Omit<FetchInit, 'signal'>,
    timeout: number,
    signal: AbortSignal | undefined,
    responseType?: RawRequest['responseType'],
  ): Promise<{ response: FetchResponse; body: unknown }> {
    if (signal?.aborted) throw new APIUserAbortError({ code: 'ABORTED', message: 'Request aborted' });
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const fetchImpl: Fetch = this.#fetch ?? globalThis.fetch;
    try {
      const response = await fetchImpl(url, { ...init, signal: controller.signal });
      return { response, body: await readBody(response, responseType) };
    } catch (error) {
      if (signal?.aborted) {
        throw new APIUserAbortError({ code: 'ABORTED', message: 'Request aborted', cause: error });
      }
      if (timedOut) {
        throw new APITimeoutError({
          code: 'TIMEOUT',
          message: `No complete response within ${timeout} ms`,
          cause: error,
        });
      }
      const cause = error as { message?: string; cause?: { code?: string; message?: string } };
      throw new APIConnectionError({
        code: 'CONNECTION_ERROR',
        message: `Could not reach ${this.baseUrl}: ${cause.cause?.code ?? cause.cause?.message ?? cause.message ?? String(error)}`,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A typed call of one documented operation: path, parameters, body and result all come from `Paths`. */
  async call<P extends keyof Paths, M extends HttpMethod>(
    method: M,
    path: P,
    args: {
      path?: PathParams<P, M>;
      query?: QueryParams<P, M>;
      body?: RequestBody<P, M> | FormData;
      idempotent?: boolean;
      repeatable?: boolean;
      headers?: Record<string, string>;
    },
    options?: RequestOptions,
  ): Promise<ResponseBody<P, M>> {
    const params = (args.path ?? {}) as Record<string, string>;
    const resolved = (path as string).replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (typeof value !== 'string' || value === '') {
        throw new VerdictError({ code: 'MISSING_REQUIRED_FIELD', message: `${name} is required` });
      }
      return encodeURIComponent(value);
    });
    return this.request(
      {
        method: method.toUpperCase() as Uppercase<HttpMethod>,
        path: resolved,
        query: args.query as RawRequest['query'],
        body: args.body,
        idempotent: args.idempotent,
        repeatable: args.repeatable,
        headers: args.headers,
      },
      options,
    );
  }
}
