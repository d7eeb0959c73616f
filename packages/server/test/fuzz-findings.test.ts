// What `npm run fuzz` (bench/suites/fuzz.ts) found, each fixed and kept here as a test through HTTP, and a short
// fuzz run (500 hostile requests, fixed seed) against a listening app.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFuzz } from '../../../bench/suites/lib/fuzz.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';

let t: TestApp;
let origin: string;

beforeAll(async () => {
  t = await createTestApp({
    config: { rateLimit: { enabled: false, perMinute: 1, burstPerSecond: 1, onRedisError: 'open' } },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => t?.close());

/** A request on `agent`, answered within `timeoutMs` or rejected. */
function send(
  agent: http.Agent,
  options: { method: string; path: string; headers?: Record<string, string>; body?: Buffer },
  timeoutMs = 8000,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        agent,
        method: options.method,
        path: options.path,
        headers: options.headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('fuzz findings', () => {
  it('a multipart upload refused before its body was read to the end closes the connection, so the next request on it is answered', async () => {
    // 2,000 form fields: busboy stops at the 26th part and the route answers 422 with most of the body unread.
    // That body stayed paused on the keep-alive socket, and the next request sent on it was never read (it hung).
    const boundary = '----fuzz1';
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="field"\r\n\r\nx\r\n`;
    const body = Buffer.from(`${part.repeat(2000)}--${boundary}--\r\n`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await send(agent, {
        method: 'POST',
        path: '/v1/video/upload',
        headers: {
          authorization: `Bearer ${ADMIN_KEY}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(body.length),
        },
        body,
      });
      expect(refused.status).toBe(422);
      expect(refused.headers.connection).toBe('close');
      const next = await send(agent, { method: 'GET', path: '/healthz' });
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('a request Node cannot parse (a 20 KB URL: 431) is answered with Connection: close, and the next request gets a fresh socket', async () => {
    // Fastify's own handler answered without Connection: close and then destroyed the socket: a keep-alive client
    // reused it and its next request failed with "socket hang up".
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const tooLong = await send(agent, { method: 'GET', path: `/v1/decisions/${'x'.repeat(20_000)}` });
      expect(tooLong.status).toBe(431);
      expect(tooLong.headers.connection).toBe('close');
      const next = await send(agent, { method: 'GET', path: '/healthz' });
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('a request whose body was read keeps its keep-alive connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const res = await send(agent, {
        method: 'POST',
        path: '/v1/policies',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: Buffer.from('{"policyId": 1}'),
      });
      expect(res.status).toBe(422);
      expect(res.headers.connection).toBe('keep-alive');
    } finally {
      agent.destroy();
    }
  });

  it('500 hostile requests over every operation of /openapi.json (seed 21): no 5xx, every one answered', async () => {
    const summary = await runFuzz({
      origin,
      adminKey: ADMIN_KEY,
      requests: 500,
      seed: 21,
      concurrency: 8,
      timeoutMs: 15_000,
    });
    expect(summary.failures).toEqual([]);
    expect(summary.requests).toBe(500);
    expect(summary.operations).toBeGreaterThan(40);
    expect(summary.serverErrors).toBe(0);
    expect(summary.unanswered).toBe(0);
    expect(summary.serviceUp, JSON.stringify(summary.finalAnswers)).toBe(true);
  }, 120_000);
});

describe.each(engines)(
  'a NUL character (U+0000) in a request is refused with 422, not stored (%s)',
  (engine) => {
    let n: TestApp;
    beforeAll(async () => {
      n = await createTestApp({ engine });
    }, 60_000);
    afterAll(async () => n?.close());

    it('in a JSON body: content, an idempotency key, a webhook field (PostgreSQL answered 500)', async () => {
      // JSON text with the escape, as a client sends it: `\u0000` inside a string
      const bodies = [
        '{"content":"a\\u0000b","policyId":"default"}',
        '{"content":"fine","policyId":"default","requestId":"k\\u0000"}',
        '{"url":"https://example.com/hook","events":["decision.created"],"description":"\\u0000"}',
      ];
      for (const [url, payload] of [
        ['/v1/check', bodies[0]],
        ['/v1/check', bodies[1]],
        ['/v1/webhooks', bodies[2]],
      ] as const) {
        const res = await n.app.inject({
          method: 'POST',
          url,
          payload,
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        });
        expect(res.statusCode, `${url} ${payload}`).toBe(422);
        expect(res.json().error).toMatchObject({
          code: 'INVALID_PARAMETER',
          details: { reason: 'nul_character' },
        });
      }
      // an escaped backslash followed by "u0000" is six ordinary characters
      const ok = await n.request('POST', '/v1/check', {
        body: { content: 'path C:\\u0000 here', policyId: 'default' },
      });
      expect(ok.status).toBe(200);
    });

    it('in a path or query parameter', async () => {
      for (const url of [
        '/v1/batch/%00',
        '/v1/banks/%00',
        '/v1/keys?accountId=%00',
        '/v1/webhooks/a%00b/deliveries',
      ]) {
        const res = await n.request('GET', url);
        expect(res.status, url).toBe(422);
        expect(res.body.error.details.reason).toBe('nul_character');
      }
    });
  },
);
