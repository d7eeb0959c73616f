import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashKey } from '../src/domain/keys.ts';
import { SCOPES } from '../src/domain/principal.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

describe.each(engines)('authentication, keys and accounts (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
  });
  afterAll(() => t.close());

  const check = (key: string | null, headers?: Record<string, string>) =>
    t.request('POST', '/v1/check', { key, headers, body: { content: 'hi', policyId: 'default' } });

  it('answers the four 401 codes', async () => {
    const missing = await check(null);
    expect(missing.body.error.code).toBe('MISSING_API_KEY');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="verdict"');
    const wrong = await check('vk_not_a_real_key_000000000');
    expect(wrong.headers['www-authenticate']).toMatch(/^Bearer realm="verdict", error="invalid_token"/);
    expect((await check(null, { authorization: 'Basic abc' })).body.error.code).toBe('INVALID_API_KEY');
    expect((await check('vk_not_a_real_key_000000000')).body.error.code).toBe('INVALID_API_KEY');
    const expiring = await t.request('POST', '/v1/keys', {
      body: { name: 'old', scopes: ['check'], expiresAt: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(expiring.status).toBe(201);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const e = await check(expiring.body.key);
      expect(e.status).toBe(401);
      expect(e.body.error.code).toBe('EXPIRED_API_KEY');
    } finally {
      vi.useRealTimers();
    }
    const live = await t.request('POST', '/v1/keys', { body: { name: 'live', scopes: ['check'] } });
    expect((await check(live.body.key)).status).toBe(200);
    const revoked = await t.request('DELETE', `/v1/keys/${live.body.id}`);
    expect(revoked.body).toEqual({ id: live.body.id, revoked: true });
    const r = await check(live.body.key);
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('REVOKED_API_KEY');
  });

  it('every /v1 route in the OpenAPI document demands a key', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) =>
        Object.keys(ops).map((method) => ({
          path: path.replace(/\{[^}]+\}/g, 'x'),
          method: method.toUpperCase(),
        })),
    );
    const v1 = routes.filter((r) => r.path.startsWith('/v1/') && !r.path.startsWith('/v1/evidence'));
    expect(v1.length).toBeGreaterThanOrEqual(14);
    for (const { path, method } of v1) {
      const res = await t.app.inject({
        method: method as 'GET',
        url: path,
        payload: method === 'GET' ? undefined : {},
      });
      expect(res.statusCode, `${method} ${path}`).toBe(401);
      // /v1/moderations speaks OpenAI's error dialect, whose codes are lower case
      expect(String(res.json().error.code).toUpperCase(), `${method} ${path}`).toBe('MISSING_API_KEY');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    }
  });

  it('stores only a SHA-256 hash; lists show prefix and last 4, never the key', async () => {
    const created = await t.request('POST', '/v1/keys', {
      body: { name: 'ci', scopes: ['check', 'decisions:read'] },
    });
    expect(created.status).toBe(201);
    const { key, id, prefix, last4 } = created.body;
    expect(key).toMatch(/^vk_[A-Za-z0-9_-]{32}$/);
    expect(key.startsWith(prefix)).toBe(true);
    expect(key.endsWith(last4)).toBe(true);
    const rows = await t.ctx.database.db.selectFrom('api_keys').selectAll().where('id', '=', id).execute();
    expect(rows[0]!.key_hash).toBe(hashKey(key));
    expect(JSON.stringify(rows)).not.toContain(key);
    const list = await t.request('GET', '/v1/keys');
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.keys.find((k: any) => k.id === id)).toMatchObject({
      prefix,
      last4,
      scopes: ['check', 'decisions:read'],
    });
  });

  it('enforces scopes with 403 INSUFFICIENT_PERMISSIONS naming the scope', async () => {
    const { key } = await t.newKey(['decisions:read']);
    const res = await check(key);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS', details: { scope: 'check' } });
    const policies = await t.request('GET', '/v1/policies', { key });
    expect(policies.body.error.details.scope).toBe('policies:read');
    const write = await t.request('POST', '/v1/policies', { key, body: { policyId: 'p', yamlContent: 'x' } });
    expect(write.body.error.details.scope).toBe('policies:write');
    expect((await t.request('GET', '/v1/decisions', { key })).status).toBe(200);
    expect(
      (await t.request('POST', '/v1/keys', { key, body: { name: 'x', scopes: ['check'] } })).status,
    ).toBe(403);
  });

  it("an account's admin manages its own keys only; the operator manages every account", async () => {
    const tenant = await t.newKey(['admin']);
    const own = await t.request('POST', '/v1/keys', {
      key: tenant.key,
      body: { name: 'own', scopes: ['check'] },
    });
    expect(own.status).toBe(201);
    expect(own.body.accountId).toBe(tenant.accountId);
    const list = await t.request('GET', '/v1/keys', { key: tenant.key });
    expect(new Set(list.body.keys.map((k: any) => k.accountId))).toEqual(new Set([tenant.accountId]));
    const operatorAccount = (await t.request('GET', '/v1/account')).body.accountId;
    const foreign = await t.request('POST', '/v1/keys', {
      key: tenant.key,
      body: { name: 'x', scopes: ['check'], accountId: operatorAccount },
    });
    expect(foreign.status).toBe(403);
    const operatorKeyId = (await t.request('GET', '/v1/keys')).body.keys.find(
      (k: any) => k.accountId === operatorAccount,
    ).id;
    const revokeForeign = await t.request('DELETE', `/v1/keys/${operatorKeyId}`, { key: tenant.key });
    expect(revokeForeign.status).toBe(404);
    const accounts = await t.request('GET', '/v1/accounts', { key: tenant.key });
    expect(accounts.status).toBe(403);
    expect(accounts.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('creates, lists and updates accounts; shows the own account with its signing secret', async () => {
    const created = await t.request('POST', '/v1/accounts', {
      body: { name: 'Acme', monthlyQuota: 1000, trialEndsAt: '2030-01-01T00:00:00Z' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Acme',
      monthlyQuota: 1000,
      trialEndsAt: '2030-01-01T00:00:00.000Z',
    });
    expect(created.body.accountId).toMatch(/^acc_/);
    expect(created.body.signingSecret).toBeUndefined();
    const patched = await t.request('PATCH', `/v1/accounts/${created.body.accountId}`, {
      body: { monthlyQuota: null, name: 'Acme Inc' },
    });
    expect(patched.body).toMatchObject({ name: 'Acme Inc', monthlyQuota: null });
    const list = await t.request('GET', '/v1/accounts');
    expect(list.body.accounts.map((a: any) => a.accountId)).toContain(created.body.accountId);
    const me = await t.request('GET', '/v1/account');
    expect(me.body.isOperator).toBe(true);
    expect(me.body.signingSecret).toMatch(/^whsec_/);
    // the secret signs every ad-hoc delivery of the account: only its admin keys see it (webhooks keys did too)
    for (const scopes of [
      ['check', 'decisions:read'],
      ['webhooks:read', 'webhooks:write'],
      SCOPES.slice(0, -1),
    ]) {
      const other = await t.newKey(scopes, me.body.accountId);
      const seen = await t.request('GET', '/v1/account', { key: other.key });
      expect(seen.status).toBe(200);
      expect(seen.body.accountId).toBe(me.body.accountId);
      expect(seen.body, scopes.join()).not.toHaveProperty('signingSecret');
    }
    const tenantAdmin = await t.newKey(['admin']);
    const own = await t.request('GET', '/v1/account', { key: tenantAdmin.key });
    expect(own.body.accountId).toBe(tenantAdmin.accountId);
    expect(own.body.signingSecret).toMatch(/^whsec_/);
    expect(own.body.signingSecret).not.toBe(me.body.signingSecret);
    for (const body of [
      {},
      { name: '' },
      { name: 'x', monthlyQuota: -1 },
      { name: 'x', trialEndsAt: 'soon' },
    ]) {
      const bad = await t.request('POST', '/v1/accounts', { body });
      expect(bad.status).toBe(422);
    }
    expect((await t.request('PATCH', '/v1/accounts/acc_nope', { body: { name: 'x' } })).status).toBe(404);
  });

  it('validates key creation input', async () => {
    const cases: [unknown, string][] = [
      [{ scopes: ['check'] }, 'MISSING_REQUIRED_FIELD'],
      [{ name: 'x' }, 'MISSING_REQUIRED_FIELD'],
      [{ name: 'x', scopes: [] }, 'MISSING_REQUIRED_FIELD'],
      [{ name: 'x', scopes: ['root'] }, 'INVALID_SCOPE'],
      [{ name: 'x', scopes: ['check'], expiresAt: 'tomorrow' }, 'INVALID_PARAMETER'],
      [{ name: 'x', scopes: ['check'], expiresAt: 'March 7, 2030' }, 'INVALID_PARAMETER'],
      [{ name: 'x', scopes: ['check'], expiresAt: 12345 }, 'INVALID_PARAMETER'],
      [{ name: 'x', scopes: ['check'], expiresAt: '2030-03-07T10:00' }, 'INVALID_PARAMETER'],
      // already expired: these were 201, keys that could never be used
      [
        { name: 'x', scopes: ['check'], expiresAt: new Date(Date.now() - 1000).toISOString() },
        'INVALID_PARAMETER',
      ],
      [{ name: 'x', scopes: ['check'], expiresAt: '2020-01-01' }, 'INVALID_PARAMETER'],
      [{ name: 'x', scopes: ['check'], rateLimit: { perMinute: 0, burstPerSecond: 1 } }, 'INVALID_PARAMETER'],
      [{ name: 'x', scopes: ['check'], accountId: 'acc_missing' }, 'ACCOUNT_NOT_FOUND'],
      // not strings: these reached the database and answered 500
      ...[[], true, {}, 5, ['acc_x']].map((accountId): [unknown, string] => [
        { name: 'x', scopes: ['check'], accountId },
        'INVALID_PARAMETER',
      ]),
      [{ name: 'x', scopes: [[], {}, 5] }, 'INVALID_SCOPE'],
      [{ name: [], scopes: ['check'] }, 'MISSING_REQUIRED_FIELD'],
    ];
    for (const [body, code] of cases) {
      const res = await t.request('POST', '/v1/keys', { body });
      expect(res.body.error?.code, JSON.stringify(body)).toBe(code);
      expect(res.status, JSON.stringify(body)).toBe(code === 'ACCOUNT_NOT_FOUND' ? 404 : 422);
    }
    const { body: own } = await t.request('GET', '/v1/keys');
    const id = own.keys[0].id;
    for (const body of [{ name: [] }, { name: 5 }, { name: {} }, { rateLimit: 'fast' }, { rateLimit: [] }]) {
      const res = await t.request('PATCH', `/v1/keys/${id}`, { body });
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([422, 'INVALID_PARAMETER']);
    }
    // the same from the query string: a repeated accountId is an array
    const twice = await t.request('GET', '/v1/keys?accountId=acc_a&accountId=acc_b');
    expect([twice.status, twice.body.error?.code]).toEqual([422, 'INVALID_PARAMETER']);
  });

  it('refuses account fields of the wrong type with 422 (trialEndsAt: 5 was the year 5)', async () => {
    const { body: acc } = await t.request('POST', '/v1/accounts', { body: { name: 'typed' } });
    for (const body of [
      { name: [] },
      { name: 5 },
      { name: 'x', monthlyQuota: '5' },
      { name: 'x', monthlyQuota: [] },
      { name: 'x', trialEndsAt: 5 },
      { name: 'x', trialEndsAt: ['2030-01-01'] },
      { name: 'x', trialEndsAt: {} },
      { name: 'x', trialEndsAt: true },
    ]) {
      const created = await t.request('POST', '/v1/accounts', { body });
      expect(created.status, JSON.stringify(body)).toBe(422);
      const patched = await t.request('PATCH', `/v1/accounts/${acc.accountId}`, { body });
      expect(patched.status, JSON.stringify(body)).toBe(422);
    }
    const { body: after } = await t.request('GET', `/v1/accounts`);
    expect(after.accounts.find((a: any) => a.accountId === acc.accountId)).toMatchObject({
      name: 'typed',
      trialEndsAt: null,
    });
  });
});
