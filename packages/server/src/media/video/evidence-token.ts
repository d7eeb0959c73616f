import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Evidence URLs carry a token naming a blob and an expiry, signed with a server secret (HMAC-SHA256). Neither part
 * can be changed without the secret, so a token cannot be forged, pointed at another blob or extended.
 */
export interface EvidenceClaim {
  key: string;
  expiresAt: Date;
}

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

/** HMAC-SHA256 truncated to 128 bits: plenty against forgery, and it keeps URLs short. */
function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(`verdict-evidence.${payload}`).digest().subarray(0, 16);
}

export function signEvidence(secret: Buffer, claim: EvidenceClaim): string {
  const payload = b64(`${claim.key}|${Math.floor(claim.expiresAt.getTime() / 1000)}`);
  return `${payload}.${b64(mac(secret, payload))}`;
}

/** The claim of a well-signed, unexpired token; null for anything else. */
export function verifyEvidence(secret: Buffer, token: string, now = new Date()): EvidenceClaim | null {
  if (token.length > 512) return null;
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!match) return null;
  const [, payload, signature] = match as unknown as [string, string, string];
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const decoded = Buffer.from(payload, 'base64url').toString('utf8');
  const at = decoded.lastIndexOf('|');
  if (at <= 0) return null;
  const expires = Number(decoded.slice(at + 1));
  if (!Number.isSafeInteger(expires) || expires * 1000 <= now.getTime()) return null;
  return { key: decoded.slice(0, at), expiresAt: new Date(expires * 1000) };
}
