import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

describe('POST /v1/check (text) and dry-run', () => {
  let t: TestApp;
  const provider = new KeywordProvider();
  beforeAll(async () => {
    t = await createTestApp({ overrides: { textProvider: provider } });
  });
  afterAll(() => t.close());

  it('returns a complete decision under the default policy', async () => {
    const res = await t.request('POST', '/v1/check', {
      body: { content: 'hello there', policyId: 'default' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const r = res.body;
    expect(r.decisionId).toMatch(/^dec_[0-9A-Z]{26}$/);
    expect(r).toMatchObject({
      safe: true,
      flagged: false,
      action: 'allow',
      provider: 'test-keywords',
      cost: 0,
    });
    expect(typeof r.latency).toBe('number');
    // one entry per policy category, in the policy's order (decisions §1)
    expect(r.categories.map((c: any) => c.category)).toEqual([
      'hate',
      'harassment',
      'violence',
      'sexual',
      'self_harm',
      'toxicity',
      'profanity',
      'spam',
      'suggestive',
    ]);
    const suggestive = r.categories.find((c: any) => c.category === 'suggestive');
    expect(suggestive).toEqual({
      category: 'suggestive',
      score: 0,
      threshold: 0.8,
      triggered: false,
      evaluated: false,
    });
  });

  it('applies thresholds and picks the most severe action', async () => {
    const warn = await t.request('POST', '/v1/check', {
      body: { content: 'spam:0.85', policyId: 'default' },
    });
    expect(warn.body).toMatchObject({ safe: false, flagged: true, action: 'warn' });
    const block = await t.request('POST', '/v1/check', {
      body: { content: 'spam:0.85 hate:0.6 violence:0.9', policyId: 'default' },
    });
    expect(block.body).toMatchObject({ safe: false, flagged: true, action: 'block' });
    const hate = block.body.categories.find((c: any) => c.category === 'hate');
    expect(hate).toMatchObject({ score: 0.6, threshold: 0.5, triggered: true, evaluated: true });
  });

  it.each([
    [{ policyId: 'default' }, 422, 'MISSING_REQUIRED_FIELD', 'content'],
    [{ content: 'x' }, 422, 'MISSING_REQUIRED_FIELD', 'policyId'],
    [{ content: '   ', policyId: 'default' }, 422, 'INVALID_CONTENT', 'content'],
    [{ content: 42, policyId: 'default' }, 422, 'INVALID_CONTENT', 'content'],
    [{ content: 'x', policyId: 'default', contentType: 'audio' }, 422, 'INVALID_CONTENT_TYPE', 'contentType'],
    [{ content: 'x', policyId: 'bad id!' }, 422, 'INVALID_POLICY_ID', 'policyId'],
    [{ content: 'x', policyId: 'a'.repeat(65) }, 422, 'INVALID_POLICY_ID', 'policyId'],
    [{ content: 'x', policyId: 'nope' }, 404, 'POLICY_NOT_FOUND', undefined],
    [{ content: 'x', policyId: 'default', language: 'xx' }, 422, 'UNSUPPORTED_LANGUAGE', 'language'],
    [{ content: 'x', policyId: 'default', metadata: 'str' }, 422, 'INVALID_METADATA', 'metadata'],
    [{ content: 'x', policyId: 'default', metadata: [1] }, 422, 'INVALID_METADATA', 'metadata'],
    [
      { content: 'x', policyId: 'default', metadata: { a: 'b'.repeat(9000) } },
      422,
      'INVALID_METADATA',
      'metadata',
    ],
    [{ content: 'x', policyId: '' }, 422, 'INVALID_POLICY_ID', 'policyId'],
    [{ content: 'x'.repeat(32 * 1024 + 1), policyId: 'default' }, 422, 'CONTENT_TOO_LARGE', 'content'],
    [{ content: 'é'.repeat(16 * 1024 + 1), policyId: 'default' }, 422, 'CONTENT_TOO_LARGE', 'content'],
  ])('rejects %j with %i %s', async (body, status, code, field) => {
    const res = await t.request('POST', '/v1/check', { body });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.requestId).toBe(res.headers['x-request-id']);
    if (field) expect(res.body.error.details.field).toBe(field);
  });

  it('accepts exactly 32 KB of UTF-8 and every supported language, and auto', async () => {
    const ok = await t.request('POST', '/v1/check', {
      body: { content: 'a'.repeat(32 * 1024), policyId: 'default' },
    });
    expect(ok.status).toBe(200);
    for (const language of ['de', 'ja', 'auto']) {
      const res = await t.request('POST', '/v1/check', {
        body: { content: 'hallo', policyId: 'default', language },
      });
      expect(res.status).toBe(200);
    }
  });

  it('replaces lone UTF-16 surrogates by U+FFFD: the text checked and stored is the same valid text', async () => {
    // JSON can carry half of a surrogate pair ("\ud800"); it is not a character
    const payload = '{"content":"hate:0.9 a\\ud800b \\udc00c \\ud83d\\ude00","policyId":"default"}';
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/check',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(200);
    const stored = await t.request('GET', `/v1/decisions/${res.json().decisionId}`);
    expect(stored.body.content).toBe('hate:0.9 a\ufffdb \ufffdc 😀');
    // a 32 KB text of lone surrogates is 96 KB of UTF-8 once they are characters: too large
    const big = await t.request('POST', '/v1/check', {
      body: { content: '\ud800'.repeat(11_000), policyId: 'default' },
    });
    expect(big.body.error.code).toBe('CONTENT_TOO_LARGE');
  });

  it('answers malformed JSON with 400 INVALID_JSON and oversized bodies with 422', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/check',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload: '{"content": "x",',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_JSON');
    const big = await t.app.inject({
      method: 'POST',
      url: '/v1/policies',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ policyId: 'p', yamlContent: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(422);
    expect(big.json().error).toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      details: { reason: 'body', maxBytes: 1024 * 1024 },
    });
  });

  it('maps a provider failure to 502 PROVIDER_ERROR and hides internals of unexpected errors', async () => {
    const { ProviderError } = await import('../src/providers/provider.ts');
    provider.failWith = new ProviderError('test-keywords', 'model crashed: secret internal detail');
    const res = await t.request('POST', '/v1/check', { body: { content: 'x', policyId: 'default' } });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('PROVIDER_ERROR');
    expect(JSON.stringify(res.body)).not.toContain('secret');
    provider.failWith = new TypeError('cannot read properties of undefined (secret)');
    const crash = await t.request('POST', '/v1/check', { body: { content: 'x', policyId: 'default' } });
    expect(crash.status).toBe(500);
    expect(crash.body.error).toMatchObject({ code: 'INTERNAL_ERROR', message: 'An internal error occurred' });
    expect(JSON.stringify(crash.body)).not.toContain('secret');
    provider.failWith = null;
  });

  it('dry-run applies mock scores without calling the provider or storing anything', async () => {
    const before = provider.calls;
    const listBefore = await t.request('GET', '/v1/decisions?limit=100');
    const res = await t.request('POST', '/v1/check/dry-run', {
      body: { policyId: 'default', mockScores: { hate: 0.7, profanity: 0.9 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dryRun: true,
      action: 'block',
      flagged: true,
      safe: false,
      policyId: 'default',
    });
    expect(res.body.categories.find((c: any) => c.category === 'profanity')).toMatchObject({
      triggered: true,
    });
    expect(res.body.categories.find((c: any) => c.category === 'spam')).toMatchObject({
      evaluated: false,
      score: 0,
    });
    expect(provider.calls).toBe(before);
    const listAfter = await t.request('GET', '/v1/decisions?limit=100');
    expect(listAfter.body.decisions.length).toBe(listBefore.body.decisions.length);
    const none = await t.request('POST', '/v1/check/dry-run', { body: { policyId: 'strict' } });
    expect(none.body.action).toBe('allow');
    for (const mockScores of [{ hate: 2 }, { nope: 0.1 }, [0.1], { hate: 'x' }]) {
      const bad = await t.request('POST', '/v1/check/dry-run', { body: { policyId: 'default', mockScores } });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe('INVALID_PARAMETER');
    }
    const missing = await t.request('POST', '/v1/check/dry-run', { body: {} });
    expect(missing.body.error.code).toBe('MISSING_REQUIRED_FIELD');
  });
});
