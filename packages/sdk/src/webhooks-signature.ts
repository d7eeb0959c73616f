import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

/** Name of the signature header of webhook deliveries (header names are case-insensitive). */
export const SIGNATURE_HEADER = 'x-service-signature';

/** A raw request body: the exact bytes received, or their text. Never a re-serialised object. */
export type WebhookPayload = string | Uint8Array | ArrayBuffer;

/** What a header can look like in common frameworks (Node gives `string | string[] | undefined`). */
export type SignatureHeaderValue = string | readonly string[] | null | undefined;

export interface VerifyOptions {
  /** The current time, for tests; default `Date.now()`. */
  now?: number | Date;
}

/** The envelope of every event (decisions §6.2). */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  data: T & { id?: string };
}

/** Thrown by `constructEvent` when a payload is not authentic or not an event. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const encoder = new TextEncoder();
const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;

function bytesOf(payload: WebhookPayload): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  if (payload instanceof Uint8Array) return payload;
  return new Uint8Array(payload);
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Compares two equal-length MACs without an early exit, so timing reveals nothing about where they differ. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Parses `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; null when the header is malformed. Other schemes are ignored. */
export function parseSignatureHeader(
  header: SignatureHeaderValue,
): { timestamp: number; signatures: string[] } | null {
  const value = typeof header === 'string' ? header : Array.isArray(header) ? header.join(',') : null;
  if (!value || value.length > 8192) return null;
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^\d{1,12}$/.test(val)) return null;
      timestamp = Number(val);
    } else if (key === 'v1') {
      // a malformed entry (another sender's, a future length) is skipped; the others may still verify
      if (HEX_SIGNATURE.test(val)) signatures.push(val);
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/** Hex HMAC-SHA256 of `"<t>.<raw body>"` keyed with the secret exactly as shown (prefix included). */
export function computeSignature(payload: WebhookPayload, secret: string, timestamp: number): string {
  const body = bytesOf(payload);
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  const mac = hmac(sha256, encoder.encode(secret), message);
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Checks an `X-Service-Signature` header: true when any `v1=` entry is the HMAC-SHA256 of `"<t>.<raw body>"` under
 * `secret` and `t` is within `toleranceSeconds` of now (in either direction). Malformed headers give false.
 * Pass the raw body exactly as received: a re-serialised JSON object will not verify.
 */
export function verifyWebhookSignature(
  payload: WebhookPayload,
  signatureHeader: SignatureHeaderValue,
  secret: string,
  toleranceSeconds = 300,
  options: VerifyOptions = {},
): boolean {
  if (typeof secret !== 'string' || secret === '') return false;
  const parsed = parseSignatureHeader(signatureHeader);
  if (!parsed) return false;
  const now = options.now === undefined ? Date.now() : Number(options.now);
  if (Math.abs(Math.floor(now / 1000) - parsed.timestamp) > toleranceSeconds) return false;
  const expected = hexToBytes(computeSignature(payload, secret, parsed.timestamp));
  let match = false;
  // Every entry is compared (no early exit) so timing does not tell which one matched.
  for (const signature of parsed.signatures) {
    if (timingSafeEqual(expected, hexToBytes(signature))) match = true;
  }
  return match;
}

/** Verifies a delivery and parses its event; throws `WebhookVerificationError` when either fails. */
export function constructEvent<T = Record<string, unknown>>(
  payload: WebhookPayload,
  signatureHeader: SignatureHeaderValue,
  secret: string,
  toleranceSeconds = 300,
  options: VerifyOptions = {},
): WebhookEvent<T> {
  if (!verifyWebhookSignature(payload, signatureHeader, secret, toleranceSeconds, options)) {
    throw new WebhookVerificationError(
      parseSignatureHeader(signatureHeader)
        ? 'The signature does not match the payload, or its timestamp is outside the tolerance'
        : 'The signature header is missing or malformed',
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(bytesOf(payload)));
  } catch {
    throw new WebhookVerificationError('The payload is not valid JSON');
  }
  if (!event || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('The payload is not an event (no "type")');
  }
  return event as WebhookEvent<T>;
}
