import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/**
 * A JSON body's shape is checked before it is parsed: within the byte limit, 28 MB of `{},` took JSON.parse 5 s of
 * the event loop and 860 MB of memory, and a body nested a million levels deep could not be stored (stack overflow).
 */
describe('JSON request bodies: shape limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
  });
  afterAll(() => t.close());

  /** A raw JSON body (a string, sent as is). */
  const post = (url: string, payload: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload,
    });

  it('refuses a body of too many JSON values before parsing it (422 CONTENT_TOO_LARGE)', async () => {
    const payload = `{"content":"hello","policyId":"default","extra":[${'{},'.repeat(9_000_000)}{}]}`;
    const res = await post('/v1/check', payload);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      details: { reason: 'json_values', maxValues: 10_000 },
      requestId: res.headers['x-request-id'],
    });
  });

  it('refuses a body nested deeper than the limit (such metadata was a 500: too deep to measure)', async () => {
    const depth = 1_000_000;
    for (const field of ['metadata', 'extra']) {
      const payload = `{"content":"hello","policyId":"default","${field}":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const res = await post('/v1/check', payload);
      expect(res.statusCode, field).toBe(422);
      expect(res.json().error).toMatchObject({
        code: 'CONTENT_TOO_LARGE',
        details: { reason: 'json_depth', maxDepth: 1000 },
      });
    }
  });

  it('counts only structure: brackets, commas and escaped quotes inside strings are text', async () => {
    const content = `hate:0.9 ${'[{,'.repeat(5_000)} \\" ,] "quoted" \\\\`;
    const res = await post('/v1/check', JSON.stringify({ content, policyId: 'default' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ action: 'block' });
  });

  it('accepts what the spec allows: a batch of 100 items, each with 8 KB of metadata made of small values', async () => {
    // 8 KB of metadata holds ~4,000 values; a batch of them is far over a single check's value limit
    const metadata = { ids: Array.from({ length: 4_000 }, () => 0) };
    expect(JSON.stringify(metadata).length).toBeLessThanOrEqual(8 * 1024);
    const items = Array.from({ length: 100 }, (_, i) => ({ id: `i${i}`, content: `text ${i}`, metadata }));
    const res = await post('/v1/batch/check', JSON.stringify({ policyId: 'default', items }));
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.json().items).toHaveLength(100);
    // and metadata nested as deep as 8 KB allows in practice
    let nested: unknown = 1;
    for (let i = 0; i < 900; i++) nested = [nested];
    const deep = await post(
      '/v1/check',
      JSON.stringify({ content: 'x', policyId: 'default', metadata: { nested } }),
    );
    expect(deep.statusCode, deep.body).toBe(200);
  });

  it('still refuses prototype poisoning and bad JSON as INVALID_JSON', async () => {
    for (const payload of ['{"content":"x","__proto__":{"admin":true}}', '{"content":', '']) {
      const res = await post('/v1/check', payload);
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().error.code).toBe('INVALID_JSON');
    }
  });
});
