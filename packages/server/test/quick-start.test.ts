import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

describe('an empty key is a missing key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
  });
  afterAll(() => t.close());

  // what `-H "Authorization: Bearer $VERDICT_API_KEY"` sends when the variable is not set
  for (const authorization of ['Bearer ', 'Bearer', 'bearer    ', '   ']) {
    it(`${JSON.stringify(authorization)} is 401 MISSING_API_KEY`, async () => {
      const res = await t.request('POST', '/v1/check', {
        key: null,
        headers: { authorization },
        body: { content: 'hi', policyId: 'default' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('MISSING_API_KEY');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="verdict"');
    });
  }

  it('a key that is not a bearer token stays INVALID_API_KEY', async () => {
    const res = await t.request('POST', '/v1/check', {
      key: null,
      headers: { authorization: 'Basic abc' },
      body: { content: 'hi', policyId: 'default' },
    });
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });
});
