import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';

/**
 * Outbound HTTP(S) for user-supplied URLs (image/video URLs, webhook deliveries) that cannot be turned against
 * the service's own network (SSRF). The address is checked where the socket connects, after DNS resolution, so a
 * name that resolves to a public address when validated and to 127.0.0.1 when used (DNS rebinding) cannot get
 * through. Redirects are followed by hand and every hop is checked again.
 */
export type UnsafeUrlReason =
  | 'invalid_url'
  | 'protocol'
  | 'private_address'
  | 'dns'
  | 'connect'
  | 'tls'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'http_status';

export class UnsafeUrlError extends Error {
  constructor(
    readonly reason: UnsafeUrlReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UnsafeUrlError';
  }
}

/** Resolves a host name to every address it has. Injectable so tests can simulate any DNS answer. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface SafeFetchOptions {
  /** VERDICT_ALLOW_PRIVATE_URLS: relaxes ONLY the address check. */
  allowPrivate: boolean;
  /** Default false: https only. */
  allowHttp?: boolean;
  /** Default GET. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Response body cap; exceeding it aborts with reason 'too_large'. */
  maxBytes: number;
  connectTimeoutMs: number;
  /** The whole request, including redirects and body streaming. */
  totalTimeoutMs: number;
  /** Default 3; 0 = do not follow (a 3xx is then returned as is). */
  maxRedirects?: number;
  /** Extra trusted CA certificates (tests, internal CAs), added to Node's bundled roots. */
  ca?: string | Buffer | Array<string | Buffer>;
  signal?: AbortSignal;
  /** Throw UnsafeUrlError('http_status') for a final status outside 2xx. Default false. */
  throwOnHttpError?: boolean;
  /**
   * A keep-alive agent (AI providers: one per provider, so calls reuse connections instead of a TLS handshake
   * each). New sockets still connect through the address check; default: a fresh connection per request.
   */
  agent?: http.Agent;
  /** DNS resolver; default `dns.lookup` (the system resolver). For tests. */
  lookup?: Resolver;
  /**
   * Which addresses count as public when `allowPrivate` is false; default `isPublicAddress`. Tests use it to treat
   * one loopback address as "the internet" and check that everything else is still refused.
   */
  isAllowedAddress?: (address: string) => boolean;
}

export interface SafeFetchResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The final URL, after redirects. */
  url: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

function isPublicV4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

/**
 * Whether an IP address is a public unicast address. Everything else is refused: loopback, private (RFC 1918),
 * link-local (incl. the 169.254.169.254 metadata address), CGNAT, multicast, broadcast, unspecified, reserved and
 * documentation ranges, IPv6 unique-local, and IPv6 forms that embed a non-public IPv4 address (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4, SIIT). Teredo is refused outright (the client address is obfuscated).
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return isPublicV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const p = v6.parts;
  const embeddedTail = () => ipaddr.fromByteArray(v6.toByteArray().slice(12)) as ipaddr.IPv4;
  switch (v6.range()) {
    case 'ipv4Mapped':
      return isPublicV4(v6.toIPv4Address());
    case 'rfc6145':
    case 'rfc6052':
      return isPublicV4(embeddedTail());
    case '6to4':
      return isPublicV4(ipaddr.fromByteArray(v6.toByteArray().slice(2, 6)) as ipaddr.IPv4);
    case 'unicast':
      break;
    default:
      return false;
  }
  // Deprecated IPv4-compatible addresses (::a.b.c.d) reach the embedded IPv4 address on some stacks.
  if (p.slice(0, 6).every((x) => x === 0)) return isPublicV4(embeddedTail());
  // Only global unicast (2000::/3) is routable on the internet.
  return (p[0]! & 0xe000) === 0x2000;
}

/** A URL safe to log: no credentials, no query string or fragment (they may carry tokens). */
export function redactUrl(url: string | URL): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<invalid url>';
  }
}

function parseUrl(raw: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('invalid_url', 'The URL is not valid');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw new UnsafeUrlError(
      'protocol',
      allowHttp ? 'Only http and https URLs are allowed' : 'Only https URLs are allowed',
    );
  }
  if (url.hostname === '') throw new UnsafeUrlError('invalid_url', 'The URL has no host');
  return url;
}

type AddressPolicy = (address: string) => boolean;

function addressPolicy(options: Pick<SafeFetchOptions, 'allowPrivate' | 'isAllowedAddress'>): AddressPolicy {
  return options.allowPrivate ? () => true : (options.isAllowedAddress ?? isPublicAddress);
}

/** The host as a socket wants it: IPv6 literals without brackets. */
function socketHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Checks an IP literal up front (sockets skip `lookup` for those); WHATWG URL parsing has already normalised
 * spellings such as 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 to dotted quads.
 */
function checkLiteral(host: string, allowed: AddressPolicy): void {
  if (net.isIP(host) !== 0 && !allowed(host)) {
    throw new UnsafeUrlError('private_address', 'The URL points to a non-public address');
  }
}

/** A socket `lookup` that resolves with `resolver` and refuses any non-public answer, at connect time. */
function guardedLookup(resolver: Resolver, allowed: AddressPolicy): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    resolver(hostname).then(
      (answers) => {
        const family = typeof options.family === 'number' ? options.family : 0;
        const usable = answers.filter((a) => family === 0 || a.family === family);
        if (usable.length === 0) {
          callback(new UnsafeUrlError('dns', 'The host name did not resolve to an address'));
          return;
        }
        // Any non-public answer refuses the whole name: the attacker controls which one a client would pick.
        if (answers.some((a) => !allowed(a.address))) {
          callback(new UnsafeUrlError('private_address', 'The host name resolves to a non-public address'));
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: unknown) =>
        callback(new UnsafeUrlError('dns', 'The host name could not be resolved', { cause: error })),
    );
  }) as LookupFunction;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

function toUnsafe(error: unknown): UnsafeUrlError {
  if (error instanceof UnsafeUrlError) return error;
  const code = (error as { code?: string } | null)?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL') {
    return new UnsafeUrlError('dns', 'The host name could not be resolved', { cause: error });
  }
  if (TLS_CODE.test(code) || /certificate|ssl|tls/i.test((error as Error | null)?.message ?? '')) {
    return new UnsafeUrlError('tls', 'The TLS connection failed', { cause: error });
  }
  return new UnsafeUrlError('connect', 'The connection failed', { cause: error });
}

const contextsByObject = new WeakMap<object, tls.SecureContext>();
const contextsByString = new Map<string, tls.SecureContext>();

/**
 * A TLS context trusting the default roots plus `ca`, built once per `ca` value: building one parses every root
 * certificate (~30 ms of CPU), far too much to pay per request.
 */
function trustedContext(ca: SafeFetchOptions['ca']): tls.SecureContext | undefined {
  if (ca === undefined) return undefined;
  const cached = typeof ca === 'string' ? contextsByString.get(ca) : contextsByObject.get(ca);
  if (cached) return cached;
  // Node's `ca` replaces the default roots; keep them and add the extra ones.
  const context = tls.createSecureContext({
    ca: [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca])],
  });
  if (typeof ca === 'string') {
    if (contextsByString.size < 16) contextsByString.set(ca, context);
  } else contextsByObject.set(ca, context);
  return context;
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

interface Hop {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One request/response without redirects. Rejects with UnsafeUrlError only. */
function requestOnce(
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body: string | Uint8Array | undefined;
    readBody: (status: number) => boolean;
    maxBytes: number;
    connectTimeoutMs: number;
    signal: AbortSignal;
    lookup: LookupFunction;
    secureContext: tls.SecureContext | undefined;
    agent?: http.Agent | undefined;
  },
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    const finish = (error: unknown, hop?: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      init.signal.removeEventListener('abort', onAbort);
      if (error) {
        req.destroy();
        reject(toUnsafe(error));
      } else resolve(hop!);
    };
    const onAbort = () => {
      const reason = init.signal.reason;
      finish(
        reason instanceof UnsafeUrlError ? reason : new UnsafeUrlError('timeout', 'The request was aborted'),
      );
    };
    const client = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = client.request({
      protocol: url.protocol,
      hostname: socketHost(url),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: init.method,
      headers,
      ...(url.username !== '' && {
        auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
      }),
      agent: init.agent ?? false,
      lookup: init.lookup,
      ...(init.secureContext && { secureContext: init.secureContext }),
    });
    connectTimer = setTimeout(
      () => finish(new UnsafeUrlError('timeout', 'Connecting took too long')),
      init.connectTimeoutMs,
    );
    req.on('socket', (socket) => {
      // a kept-alive socket is connected already
      if (req.reusedSocket) clearTimeout(connectTimer);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('error', (error) => finish(error));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const responseHeaders = flattenHeaders(res.headers);
      if (!init.readBody(status)) {
        finish(null, { status, headers: responseHeaders, body: Buffer.alloc(0) });
        req.destroy();
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > init.maxBytes) {
        finish(new UnsafeUrlError('too_large', `The response is larger than ${init.maxBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > init.maxBytes) {
          finish(new UnsafeUrlError('too_large', `The response is larger than ${init.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () =>
        finish(null, { status, headers: responseHeaders, body: Buffer.concat(chunks, size) }),
      );
      res.on('error', (error) => finish(error));
      res.on('aborted', () => finish(new UnsafeUrlError('connect', 'The connection closed mid-response')));
    });
    if (init.signal.aborted) onAbort();
    else init.signal.addEventListener('abort', onAbort, { once: true });
    req.end(init.body);
  });
}

/**
 * Fetches a URL with SSRF protection, a body size cap, connect and total time limits, and hand-followed,
 * re-checked redirects. Throws UnsafeUrlError (never a raw socket error); messages never contain the URL.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResponse> {
  const allowHttp = options.allowHttp ?? false;
  const maxRedirects = options.maxRedirects ?? 3;
  const allowed = addressPolicy(options);
  const lookup = guardedLookup(options.lookup ?? systemResolver, allowed);
  const secureContext = trustedContext(options.ca);
  const controller = new AbortController();
  const total = setTimeout(
    () =>
      controller.abort(
        new UnsafeUrlError('timeout', `The request took longer than ${options.totalTimeoutMs} ms`),
      ),
    options.totalTimeoutMs,
  );
  const onOuterAbort = () => controller.abort(new UnsafeUrlError('timeout', 'The request was aborted'));
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (options.signal?.aborted) onOuterAbort();
  try {
    let url = parseUrl(rawUrl, allowHttp);
    let method: string = options.method ?? 'GET';
    let body = options.body;
    let headers: Record<string, string> = {
      'user-agent': 'Verdict/1.0 (+content moderation)',
      'accept-encoding': 'identity',
      ...options.headers,
    };
    for (let redirects = 0; ; redirects++) {
      checkLiteral(socketHost(url), allowed);
      const follow = (status: number) => maxRedirects > 0 && REDIRECT_STATUSES.has(status);
      const hop = await requestOnce(url, {
        method,
        headers,
        body,
        readBody: (status) => !follow(status),
        maxBytes: options.maxBytes,
        connectTimeoutMs: options.connectTimeoutMs,
        signal: controller.signal,
        lookup,
        secureContext,
        agent: options.agent,
      });
      const location = hop.headers.location;
      if (!follow(hop.status) || location === undefined) {
        if (options.throwOnHttpError && (hop.status < 200 || hop.status > 299)) {
          throw new UnsafeUrlError('http_status', `The server answered HTTP ${hop.status}`);
        }
        return { ...hop, url: url.toString() };
      }
      if (redirects >= maxRedirects) {
        throw new UnsafeUrlError('too_many_redirects', `More than ${maxRedirects} redirects`);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new UnsafeUrlError('invalid_url', 'The redirect location is not a valid URL');
      }
      next = parseUrl(next.toString(), allowHttp);
      if (next.origin !== url.origin) {
        // Credentials meant for one origin must not leak to another.
        const { authorization: _a, cookie: _c, ...rest } = headers;
        headers = rest;
      }
      if (hop.status === 303 || ((hop.status === 301 || hop.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        const { 'content-type': _t, ...rest } = headers;
        headers = rest;
      }
      url = next;
    }
  } finally {
    clearTimeout(total);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/** Opens (and closes) a TLS connection to an https URL's host, with the same address checks; throws UnsafeUrlError. */
export async function checkTlsConnection(
  rawUrl: string,
  options: Pick<SafeFetchOptions, 'allowPrivate' | 'connectTimeoutMs' | 'ca' | 'lookup' | 'isAllowedAddress'>,
): Promise<void> {
  const url = parseUrl(rawUrl, false);
  const host = socketHost(url);
  const allowed = addressPolicy(options);
  checkLiteral(host, allowed);
  const secureContext = trustedContext(options.ca);
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const socket = tls.connect({
      host,
      port: url.port === '' ? 443 : Number(url.port),
      ...(net.isIP(host) === 0 && { servername: host }),
      lookup: guardedLookup(options.lookup ?? systemResolver, allowed),
      ...(secureContext && { secureContext }),
    });
    const finish = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        socket.destroy();
        reject(toUnsafe(error));
      } else {
        socket.end();
        resolve();
      }
    };
    const timer = setTimeout(
      () => finish(new UnsafeUrlError('timeout', 'Connecting took too long')),
      options.connectTimeoutMs,
    );
    socket.once('secureConnect', () => finish(null));
    socket.once('error', (error) => finish(error));
  });
}
