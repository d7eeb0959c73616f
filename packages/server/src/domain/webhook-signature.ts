import { createHmac } from 'node:crypto';
import type { WebhookRecord } from '../storage/repositories/webhooks.ts';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/**
 * `X-Service-Signature` of decisions §6.3: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, with
 * one `v1=` per valid secret while a secret is being rotated. Keyed with the secret string exactly as shown.
 */
export function signatureHeader(secrets: string[], body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`,
  );
  return `t=${timestamp},${signatures.join(',')}`;
}

/** The secrets a webhook signs with now: its current one, and the previous one for 24 h after a rotation. */
export function activeSecrets(webhook: WebhookRecord, now = new Date()): string[] {
  const secrets = [webhook.secret];
  if (
    webhook.previousSecret &&
    webhook.previousSecretExpiresAt &&
    webhook.previousSecretExpiresAt > now.toISOString()
  ) {
    secrets.push(webhook.previousSecret);
  }
  return secrets;
}
