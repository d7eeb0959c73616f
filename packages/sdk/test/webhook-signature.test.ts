import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  constructEvent,
  parseSignatureHeader,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '../src/index.ts';

/**
 * Known-answer vectors: HMAC-SHA256 hex of `"<t>.<body>"`, keyed with the secret string as shown (whsec_ prefix
 * included), computed independently with node:crypto and hard-coded here.
 */
const VECTORS = [
  {
    secret: 'whsec_test_secret_1',
    t: 1700000000,
    body: '{"id":"evt_1","type":"decision.created","data":{"id":"dec_1"}}',
    hex: '6cb0480f7207f527ca9f740c8bd7b327bbc8a7bc8889fa43e01b5cd24a82ad4c',
  },
  {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    t: 1763683200,
    body: '{"type":"moderation.completed","data":{"id":"bat_01","text":"héllo ✓"}}',
    hex: 'e93a4c3d69c566c37029efd0603801f7b835072eb0db713a62fda84aa87dd6d9',
  },
  {
    secret: 'whsec_other',
    t: 1700000000,
    body: '',
    hex: '78c9dc98dcb2f73b54d786e202860ef9bd8e483f096e479745b117468bf19252',
  },
];

const nodeHmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');

describe('webhook signatures', () => {
  it('computes the known-answer vectors (and agrees with node:crypto)', () => {
    for (const v of VECTORS) {
      expect(nodeHmac(v.secret, v.t, v.body)).toBe(v.hex);
      expect(computeSignature(v.body, v.secret, v.t)).toBe(v.hex);
      expect(computeSignature(new TextEncoder().encode(v.body), v.secret, v.t)).toBe(v.hex);
    }
  });

  it('accepts a valid signature: string, bytes, ArrayBuffer payloads; Node header arrays', () => {
    for (const v of VECTORS) {
      const header = `t=${v.t},v1=${v.hex}`;
      const now = { now: v.t * 1000 };
      expect(verifyWebhookSignature(v.body, header, v.secret, 300, now)).toBe(true);
      const bytes = new TextEncoder().encode(v.body);
      expect(verifyWebhookSignature(bytes, header, v.secret, 300, now)).toBe(true);
      expect(verifyWebhookSignature(bytes.buffer as ArrayBuffer, header, v.secret, 300, now)).toBe(true);
      expect(verifyWebhookSignature(Buffer.from(v.body), [header], v.secret, 300, now)).toBe(true);
      // Spaces after commas (as proxies may add) and upper-case hex are fine.
      expect(verifyWebhookSignature(v.body, `t=${v.t}, v1=${v.hex.toUpperCase()}`, v.secret, 300, now)).toBe(
        true,
      );
    }
  });

  it('verifies against the current clock by default', () => {
    const t = Math.floor(Date.now() / 1000);
    const body = '{"type":"decision.created","data":{"id":"dec_now"}}';
    expect(verifyWebhookSignature(body, `t=${t},v1=${nodeHmac('whsec_now', t, body)}`, 'whsec_now')).toBe(
      true,
    );
  });

  it('rejects a wrong secret, including the secret without its whsec_ prefix', () => {
    const [v] = VECTORS;
    const header = `t=${v!.t},v1=${v!.hex}`;
    const now = { now: v!.t * 1000 };
    expect(verifyWebhookSignature(v!.body, header, 'whsec_test_secret_2', 300, now)).toBe(false);
    expect(verifyWebhookSignature(v!.body, header, 'test_secret_1', 300, now)).toBe(false);
    expect(verifyWebhookSignature(v!.body, header, '', 300, now)).toBe(false);
  });

  it('rejects a tampered body or timestamp', () => {
    const [v] = VECTORS;
    const now = { now: v!.t * 1000 };
    const tampered = v!.body.replace('dec_1', 'dec_2');
    expect(verifyWebhookSignature(tampered, `t=${v!.t},v1=${v!.hex}`, v!.secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(`${v!.body}\n`, `t=${v!.t},v1=${v!.hex}`, v!.secret, 300, now)).toBe(false);
    expect(verifyWebhookSignature(v!.body, `t=${v!.t + 1},v1=${v!.hex}`, v!.secret, 300, now)).toBe(false);
  });

  it('rejects stale and future timestamps beyond the tolerance, accepts them within', () => {
    const [v] = VECTORS;
    const header = `t=${v!.t},v1=${v!.hex}`;
    const at = (seconds: number) => ({ now: (v!.t + seconds) * 1000 });
    expect(verifyWebhookSignature(v!.body, header, v!.secret, 300, at(300))).toBe(true);
    expect(verifyWebhookSignature(v!.body, header, v!.secret, 300, at(301))).toBe(false); // stale
    expect(verifyWebhookSignature(v!.body, header, v!.secret, 300, at(-300))).toBe(true);
    expect(verifyWebhookSignature(v!.body, header, v!.secret, 300, at(-301))).toBe(false); // from the future
    expect(verifyWebhookSignature(v!.body, header, v!.secret, 3600, at(3000))).toBe(true);
    expect(verifyWebhookSignature(v!.body, header, v!.secret, undefined, at(301))).toBe(false);
  });

  it('accepts any matching v1 entry (secret rotation) and ignores other schemes', () => {
    const [a, , c] = VECTORS;
    const now = { now: a!.t * 1000 };
    const otherSig = nodeHmac('whsec_previous', a!.t, a!.body);
    const headers = [
      `t=${a!.t},v1=${otherSig},v1=${a!.hex}`,
      `t=${a!.t},v1=${a!.hex},v1=${otherSig}`,
      `v1=${c!.hex},t=${a!.t},v0=abc,v1=${otherSig},v1=${a!.hex}`,
      // a malformed v1 entry (another sender's, or a longer future signature) does not spoil the valid ones
      `t=${a!.t},v1=zz,v1=${otherSig},v1=${'ab'.repeat(48)},v1=${a!.hex}`,
    ];
    for (const header of headers) {
      expect(verifyWebhookSignature(a!.body, header, a!.secret, 300, now)).toBe(true);
      expect(verifyWebhookSignature(a!.body, header, 'whsec_previous', 300, now)).toBe(true);
      expect(verifyWebhookSignature(a!.body, header, 'whsec_third', 300, now)).toBe(false);
    }
  });

  it('returns false for malformed headers', () => {
    const [v] = VECTORS;
    const now = { now: v!.t * 1000 };
    const malformed = [
      undefined,
      null,
      '',
      'garbage',
      `v1=${v!.hex}`,
      `t=${v!.t}`,
      `t=,v1=${v!.hex}`,
      `t=abc,v1=${v!.hex}`,
      `t=-${v!.t},v1=${v!.hex}`,
      `t=${v!.t}.5,v1=${v!.hex}`,
      `t=${v!.t},t=${v!.t},v1=${v!.hex}`,
      `t=${v!.t},v1=${v!.hex.slice(0, 63)}`,
      `t=${v!.t},v1=${v!.hex}00`,
      `t=${v!.t},v1=${'z'.repeat(64)}`,
      `t=${v!.t},v1=`,
      `t=${v!.t};v1=${v!.hex}`,
      `t=${v!.t},,v1=${v!.hex}`,
      [] as string[],
    ];
    for (const header of malformed) {
      expect(verifyWebhookSignature(v!.body, header, v!.secret, 300, now), String(header)).toBe(false);
      expect(parseSignatureHeader(header), String(header)).toBeNull();
    }
  });

  it('constructEvent verifies and parses, else throws WebhookVerificationError', () => {
    const [v, w] = VECTORS;
    const event = constructEvent(v!.body, `t=${v!.t},v1=${v!.hex}`, v!.secret, 300, { now: v!.t * 1000 });
    expect(event).toEqual({ id: 'evt_1', type: 'decision.created', data: { id: 'dec_1' } });
    const utf8 = constructEvent(new TextEncoder().encode(w!.body), `t=${w!.t},v1=${w!.hex}`, w!.secret, 300, {
      now: w!.t * 1000,
    });
    expect(utf8.data).toEqual({ id: 'bat_01', text: 'héllo ✓' });

    expect(() =>
      constructEvent(v!.body, `t=${v!.t},v1=${v!.hex}`, 'whsec_wrong', 300, { now: v!.t * 1000 }),
    ).toThrow(WebhookVerificationError);
    expect(() => constructEvent(v!.body, 'nonsense', v!.secret)).toThrow(/missing or malformed/);
    // Authentic but not JSON / not an event.
    const t = Math.floor(Date.now() / 1000);
    expect(() =>
      constructEvent('not json', `t=${t},v1=${nodeHmac('whsec_x', t, 'not json')}`, 'whsec_x'),
    ).toThrow(/not valid JSON/);
    expect(() => constructEvent('[1]', `t=${t},v1=${nodeHmac('whsec_x', t, '[1]')}`, 'whsec_x')).toThrow(
      WebhookVerificationError,
    );
  });
});
