import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

describe('health, readiness, OpenAPI and docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
  });
  afterAll(() => t.close());

  it('serves /healthz and /readyz without a key', async () => {
    const health = await t.request('GET', '/healthz', { key: null });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await t.request('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ storage: true, models: true, accepting: true });
  });

  it('serves an OpenAPI 3.1 document of every endpoint, with response schemas', async () => {
    const res = await t.request('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/v1/check',
      '/v1/check/dry-run',
      '/v1/policies',
      '/v1/policies/{policyId}',
      '/v1/decisions',
      '/v1/decisions/{decisionId}',
      '/v1/decisions/{decisionId}/replay',
      '/v1/decisions/{decisionId}/curl',
      '/v1/keys',
      '/v1/keys/{id}',
      '/v1/accounts',
      '/v1/accounts/{accountId}',
      '/v1/account',
      '/healthz',
      '/readyz',
    ]) {
      expect(paths).toContain(p);
    }
    const check = res.body.paths['/v1/check'].post;
    expect(Object.keys(check.responses)).toEqual(expect.arrayContaining(['200', '401', '422', '429']));
    expect(check.requestBody.content['application/json'].schema.required).toEqual(['content', 'policyId']);
  });

  it('serves browsable docs at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });

  it('answers unknown routes and media types with the error shape and a request ID', async () => {
    const missing = await t.request('GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      code: 'NOT_FOUND',
      requestId: missing.headers['x-request-id'],
    });
    const xml = await t.app.inject({
      method: 'POST',
      url: '/v1/check',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/xml' },
      payload: '<check/>',
    });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // text/plain is not parsed either (it used to reach the handler as a string: "content is required")
    const text = await t.app.inject({
      method: 'POST',
      url: '/v1/check',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'text/plain' },
      payload: JSON.stringify({ content: 'hi', policyId: 'default' }),
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a JSON body of null, a number or an array with 422 naming the missing field, never 500', async () => {
    for (const url of [
      '/v1/check',
      '/v1/check/dry-run',
      '/v1/check/multimodal',
      '/v1/batch/check',
      '/v1/policies',
    ]) {
      for (const payload of ['null', '1', '[]', '"x"']) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
          payload,
        });
        expect([url, payload, res.statusCode, res.json().error.code]).toEqual([
          url,
          payload,
          422,
          'MISSING_REQUIRED_FIELD',
        ]);
      }
    }
  });

  it('answers malformed or very long IDs in the path with the error shape, never a bare framework error', async () => {
    const long = await t.request('GET', `/v1/decisions/dec_${'x'.repeat(300)}`);
    expect(long.status).toBe(404);
    expect(long.body.error.code).toBe('DECISION_NOT_FOUND');
    expect((await t.request('GET', `/v1/webhooks/wh_${'x'.repeat(300)}`, { key: null })).status).toBe(401);
    const bad = await t.request('GET', '/v1/decisions/%zz');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({
      code: 'INVALID_PARAMETER',
      requestId: bad.headers['x-request-id'],
    });
    // error answers, framework ones included, are no more sniffable than the others
    expect(bad.headers['x-content-type-options']).toBe('nosniff');
    expect(long.headers['x-content-type-options']).toBe('nosniff');
  });

  it('gives every request two minutes to arrive, so slow-body clients cannot hold sockets for ever', () => {
    expect(t.app.server.requestTimeout).toBe(120_000);
  });

  it('takes a trailing slash as the same route', async () => {
    const res = await t.request('GET', '/v1/policies/');
    expect(res.status).toBe(200);
    expect(res.body.policies.map((p: { policyId: string }) => p.policyId)).toContain('default');
  });

  it('readiness turns 503 when storage is gone', async () => {
    const other = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
    await other.ctx.database.close();
    const res = await other.request('GET', '/readyz', { key: null });
    expect(res.status).toBe(503);
    expect(res.body.checks.storage).toBe(false);
    await other.app.close();
  });
});

describe('text model warm-up at start', () => {
  it('is on by default, runs before serving, and answers as a cold process does', async () => {
    const { loadConfig } = await import('../src/config.ts');
    const { tempDir } = await import('./helpers/databases.ts');
    const { LocalTextProvider } = await import('../src/providers/local-text.ts');
    const dir = tempDir();
    expect(loadConfig({ VERDICT_DATA_DIR: dir }).config.textWarmUp).toBe(true);
    expect(loadConfig({ VERDICT_DATA_DIR: dir, VERDICT_TEXT_WARMUP: 'false' }).config.textWarmUp).toBe(false);
    const warm = await createTestApp({ config: { textWarmUp: true } });
    const cold = await createTestApp();
    try {
      const warmText = warm.ctx.providers.get('text');
      const coldText = cold.ctx.providers.get('text');
      expect(warmText).toBeInstanceOf(LocalTextProvider);
      expect((warmText as InstanceType<typeof LocalTextProvider>).warmUpMs).toBeGreaterThan(0);
      expect((coldText as InstanceType<typeof LocalTextProvider>).warmUpMs).toBeNull();
      for (const content of [
        'you are a f*cking idiot, see www.spam.example',
        'FREE entry! txt WIN to 87121',
      ]) {
        const body = { content, policyId: 'default' };
        const a = await warm.request('POST', '/v1/check', { body });
        const b = await cold.request('POST', '/v1/check', { body });
        expect(a.status).toBe(200);
        expect(a.body.categories).toEqual(b.body.categories);
      }
    } finally {
      await warm.close();
      await cold.close();
    }
  });
});
