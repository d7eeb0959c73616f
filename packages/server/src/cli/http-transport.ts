import http from 'node:http';
import { Readable } from 'node:stream';
import type { FetchInit, FetchResponse } from '@verdict/sdk';

/*
 * The CLI's transport for @verdict/sdk, over node:http and node:https: the part of `fetch` the SDK uses (its `Fetch`
 * type). Node's global `fetch` (undici) costs a short-lived process about a third of a second: its code is loaded on
 * first use, and at exit Node waits for V8 to finish compiling undici's WebAssembly HTTP parser in the background
 * (measured: a bare `fetch` script 0.48 s against 0.16 s for the same request over node:http, `node -e 0` 0.14 s).
 * A CLI call is one or a few requests, so that was most of its time. The SDK keeps the global `fetch` as its default.
 */

/** Redirect statuses that `fetch` follows. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** `fetch`'s limit. */
const MAX_REDIRECTS = 20;
/** Statuses whose response has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Dropped when a redirect turns the request into a GET without a body (Fetch standard, "request-body-header"). */
const BODY_HEADERS = [
  'content-encoding',
  'content-language',
  'content-location',
  'content-type',
  'content-length',
];
/** Dropped when a redirect leads to another origin, as undici's `fetch` does. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * `fetch` for the SDK over node:http(s): the method, headers and a JSON body; the signal (the SDK's time-out and the
 * caller's abort) ends the request and a body still being read; redirects are followed like `fetch` does; the
 * response gives its status, headers (the Fetch API's `Headers` interface), `text()`, `blob()` and `body` as a web
 * stream. A multipart body (`FormData`, the video upload) is handed to the global `fetch`: `FormData` is undici's
 * own, so its cost is paid by then, and undici encodes the form.
 */
export async function httpFetch(url: string, init: FetchInit): Promise<FetchResponse> {
  if (init.body !== undefined && typeof init.body !== 'string') return globalThis.fetch(url, init);
  const { signal } = init;
  let target = new URL(url);
  let method = init.method.toUpperCase();
  let body = init.body;
  const headers = { ...init.headers };
  for (let redirects = 0; ; redirects++) {
    const message = await send(target, method, headers, body, signal);
    const status = message.statusCode ?? 0;
    const location = message.headers.location;
    if (!REDIRECTS.has(status) || location === undefined) return new HttpResponse(message, method, signal);
    message.resume(); // the redirect's own body is not wanted
    let next: URL;
    try {
      next = new URL(location, target);
    } catch (error) {
      throw new TypeError('fetch failed', { cause: error });
    }
    if (redirects === MAX_REDIRECTS)
      throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new TypeError('fetch failed', {
        cause: new Error(`URL scheme "${next.protocol}" is not supported`),
      });
    if (
      (status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((status === 301 || status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      for (const name of BODY_HEADERS) delete headers[name];
    }
    if (next.origin !== target.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
    target = next;
  }
}

async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError('fetch failed', {
      cause: new Error(`URL scheme "${url.protocol}" is not supported`),
    });
  // node:https (and TLS) only for https URLs: most CLI calls go to a local http service
  const transport = url.protocol === 'https:' ? await import('node:https') : http;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    let request: http.ClientRequest;
    try {
      request = transport.request(url, {
        method,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal,
      });
    } catch (error) {
      // e.g. a header value with a line break (an API key pasted with its newline)
      reject(new TypeError('fetch failed', { cause: error }));
      return;
    }
    request.once('response', (message) => {
      // whoever reads the body hears of its errors; one nobody reads (a redirect's, a 204's) must not crash the CLI
      message.on('error', () => {});
      resolve(message);
    });
    request.on('error', (error) => {
      reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    request.end(body);
  });
}

class HttpResponse implements FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: ResponseHeaders;
  readonly #message: http.IncomingMessage;
  readonly #signal: AbortSignal;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #used = false;

  constructor(message: http.IncomingMessage, method: string, signal: AbortSignal) {
    this.#message = message;
    this.#signal = signal;
    this.status = message.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status <= 299;
    this.headers = new ResponseHeaders(message.rawHeaders);
    if (NULL_BODY.has(this.status) || method === 'HEAD') {
      this.#stream = null;
      message.resume(); // nothing to read: free the connection for the next request
    }
  }

  /** The body as a web stream, created on first use (the SDK streams only the decisions export). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined) {
      this.#used = true;
      this.#stream = Readable.toWeb(this.#message) as ReadableStream<Uint8Array>;
    }
    return this.#stream;
  }

  async text(): Promise<string> {
    // TextDecoder, as `fetch` does: UTF-8, a byte order mark dropped, invalid sequences replaced
    return new TextDecoder().decode(await this.#bytes());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.#bytes()], { type: this.headers.get('content-type') ?? '' });
  }

  #bytes(): Promise<Buffer> {
    if (this.#used) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#used = true;
    if (this.#stream === null) return Promise.resolve(Buffer.alloc(0));
    const message = this.#message;
    const signal = this.#signal;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onAbort = () => {
        message.destroy();
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      message.on('data', (chunk: Buffer) => chunks.push(chunk));
      message.once('end', () => {
        signal.removeEventListener('abort', onAbort);
        resolve(Buffer.concat(chunks));
      });
      message.once('error', (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? signal.reason : new TypeError('terminated', { cause: error }));
      });
    });
  }
}

/**
 * A response's headers with the Fetch API's `Headers` interface and its guard for responses (immutable), without
 * loading undici as the global `Headers` does. Names are case-insensitive; several values of a name read as one,
 * joined by ", ", except through `getSetCookie`; iteration is in name order.
 */
export class ResponseHeaders implements Headers {
  readonly #values = new Map<string, string[]>();

  /** `raw`: names and values in turn, as node:http's `rawHeaders`. */
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const list = this.#values.get(name);
      if (list) list.push(raw[i + 1]!);
      else this.#values.set(name, [raw[i + 1]!]);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase())?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }

  append(): void {
    throw new TypeError('Headers of a response are immutable');
  }

  set(): void {
    throw new TypeError('Headers of a response are immutable');
  }

  delete(): void {
    throw new TypeError('Headers of a response are immutable');
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#pairs()) callback.call(thisArg, value, name, this);
  }

  entries() {
    return this.#pairs().values();
  }

  keys() {
    return this.#pairs()
      .map(([name]) => name)
      .values();
  }

  values() {
    return this.#pairs()
      .map(([, value]) => value)
      .values();
  }

  [Symbol.iterator]() {
    return this.entries();
  }

  /** The Fetch standard's "sort and combine": by name, each name once, but every Set-Cookie on its own. */
  #pairs(): [string, string][] {
    const pairs: [string, string][] = [];
    for (const name of [...this.#values.keys()].sort()) {
      const values = this.#values.get(name)!;
      if (name === 'set-cookie') for (const value of values) pairs.push([name, value]);
      else pairs.push([name, values.join(', ')]);
    }
    return pairs;
  }
}
