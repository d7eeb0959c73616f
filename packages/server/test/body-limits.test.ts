import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

/**
 * Issue 21 §7: a body over an endpoint's limit must be answered, and the client must be able to read the answer —
 * not find the connection cut while it is still sending. Through a real socket, as clients send it.
 */
describe('bodies over the limit, on a real socket', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  function post(body: Buffer, chunked: boolean): Promise<{ status: number; body: any } | { error: string }> {
    return new Promise((resolve) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/check',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${t.adminKey}`,
            ...(!chunked && { 'content-length': body.length }),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', (e) => resolve({ error: e.message }));
      // written in 64 KB pieces with back-pressure, as a client streaming a file does
      let offset = 0;
      const step = () => {
        while (offset < body.length) {
          const more = req.write(body.subarray(offset, offset + 65536));
          offset += 65536;
          if (!more) return void req.once('drain', step);
        }
        req.end();
      };
      step();
    });
  }

  it.each([
    ['with Content-Length', false],
    ['chunked', true],
  ])(
    'a 40 MB body to /v1/check (limit 28 MB) is answered 422 CONTENT_TOO_LARGE, readable by the client (%s)',
    async (_, chunked) => {
      const body = Buffer.from(
        JSON.stringify({ content: 'x'.repeat(40 * 1024 * 1024), policyId: 'default' }),
      );
      const res = await post(body, chunked);
      expect(res).toMatchObject({
        status: 422,
        body: {
          error: { code: 'CONTENT_TOO_LARGE', details: { reason: 'body', maxBytes: 28 * 1024 * 1024 } },
        },
      });
    },
    60_000,
  );
});
