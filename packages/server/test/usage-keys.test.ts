import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const thisMonth = () => new Date().toISOString().slice(0, 7);
const lastMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15)).toISOString().slice(0, 7);
};

describe.each(engines)('GET /v1/usage/keys: checks per API key (%s)', (engine) => {
  let t: TestApp;
  let accountId: string;
  let admin: string;
  const keys: Record<'admin' | 'web' | 'old' | 'reader', { id: string; key: string; prefix: string }> =
    {} as never;
  const ids: string[] = [];

  const usage = (key: string, query = '') => t.request('GET', `/v1/usage/keys${query}`, { key });
  const check = async (key: string, content: string) => {
    const res = await t.request('POST', '/v1/check', { key, body: { content, policyId: 'default' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(res.body.decisionId);
    return res.body.decisionId as string;
  };

  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    accountId = (await t.request('POST', '/v1/accounts', { body: { name: 'platform' } })).body.accountId;
    const key = async (name: string, scopes: string[]) => {
      const res = await t.request('POST', '/v1/keys', { body: { name, scopes, accountId } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return { id: res.body.id, key: res.body.key, prefix: res.body.prefix };
    };
    keys.admin = await key('platform admin', ['admin']);
    keys.web = await key('web app', ['check']);
    keys.old = await key('old staging', ['check']);
    keys.reader = await key('reader', ['decisions:read']);
    admin = keys.admin.key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts each key’s decisions of the month, every key listed, most checks first', async () => {
    const empty = await usage(admin);
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body).toMatchObject({ accountId, month: thisMonth(), checks: 0, unattributed: 0 });
    expect(empty.body.keys.map((k: { name: string }) => k.name).sort()).toEqual(
      ['old staging', 'platform admin', 'reader', 'web app'].sort(),
    );

    for (const text of ['hello', 'spam:0.9 buy now', 'good morning']) await check(keys.web.key, text);
    await check(keys.old.key, 'a message from staging');
    const own = await check(admin, 'hate:0.9 you people');
    // a replay is a decision made with the key that asked for it
    const replay = await t.request('POST', `/v1/decisions/${own}/replay`, {
      key: admin,
      body: { policyId: 'permissive' },
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect((await t.request('DELETE', `/v1/keys/${keys.old.id}`)).status).toBe(200);

    const res = await usage(admin);
    expect(res.status).toBe(200);
    expect(res.body.checks).toBe(6);
    expect(res.body.keys.map((k: { name: string; checks: number }) => [k.name, k.checks])).toEqual([
      ['web app', 3],
      ['platform admin', 2],
      ['old staging', 1],
      ['reader', 0],
    ]);
    expect(res.body.keys[0]).toEqual({
      keyId: keys.web.id,
      name: 'web app',
      prefix: keys.web.prefix,
      last4: keys.web.key.slice(-4),
      revoked: false,
      checks: 3,
      byContentType: { text: 3, image: 0, video: 0, multimodal: 0 },
    });
    expect(res.body.keys[2]).toMatchObject({ keyId: keys.old.id, revoked: true });
    // never the key itself
    expect(JSON.stringify(res.body)).not.toContain(keys.web.key);
  });

  it('windows by UTC month, and reports decisions that carry no key apart', async () => {
    const db = t.ctx.database.db;
    // one of web app's decisions made last month, and one stored before decisions recorded their key
    const earlier = `${lastMonth()}-20T12:00:00.000Z`;
    await db.updateTable('decisions').set({ created_at: earlier }).where('id', '=', ids[0]!).execute();
    await db.updateTable('decisions').set({ key_id: null }).where('id', '=', ids[1]!).execute();

    const now = await usage(admin);
    expect(now.body.checks).toBe(5);
    expect(now.body.unattributed).toBe(1);
    expect(now.body.keys.find((k: { keyId: string }) => k.keyId === keys.web.id).checks).toBe(1);

    const before = await usage(admin, `?month=${lastMonth()}`);
    expect(before.body).toMatchObject({ month: lastMonth(), checks: 1, unattributed: 0 });
    expect(before.body.keys[0]).toMatchObject({ keyId: keys.web.id, checks: 1 });
    expect((await usage(admin, '?month=2020-01')).body.checks).toBe(0);
  });

  it("counts only the caller's account", async () => {
    const tenant = await t.newKey(['admin', 'check']);
    await check(tenant.key, 'hello from another tenant');
    const theirs = await usage(tenant.key);
    expect(theirs.body.checks).toBe(1);
    expect(theirs.body.keys).toHaveLength(1);
    const ours = await usage(admin);
    expect(ours.body.checks).toBe(5);
    expect(ours.body.keys.map((k: { keyId: string }) => k.keyId)).not.toContain(theirs.body.keys[0].keyId);
  });

  it('needs an admin key, a YYYY-MM month and no unknown parameter', async () => {
    const denied = await usage(keys.reader.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: { scope: 'admin' },
    });
    expect((await usage(keys.web.key)).status).toBe(403);
    expect((await t.request('GET', '/v1/usage/keys', { key: null })).status).toBe(401);

    for (const query of ['?month=2026-13', '?month=26-01', '?month=']) {
      const res = await usage(admin, query);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toMatch(/^INVALID_/);
    }
    const unknown = await usage(admin, '?groupBy=key');
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: { field: 'groupBy' } });
  });
});
