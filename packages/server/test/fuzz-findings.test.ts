// What `npm run fuzz` (bench/suites/fuzz.ts) found, each fixed and kept here as a test through HTTP, and a short
// fuzz run (500 hostile requests, fixed seed) against a listening app.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFuzz } from '../../../bench/suites/lib/fuzz.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';

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
    expect(summary.serviceUp).toBe(true);
  }, 120_000);
});
