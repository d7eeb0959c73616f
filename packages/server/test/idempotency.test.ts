import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** A provider that takes a while, so concurrent duplicates overlap the first request. */
class SlowProvider extends KeywordProvider {
  override async evaluate(...args: Parameters<KeywordProvider['evaluate']>) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return super.evaluate(...args);
  }
}

describe.each(engines)('idempotency (%s)', (engine) => {
  let t: TestApp;
  const provider = new SlowProvider();
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: provider } });
  });
  afterAll(() => t.close());

  const decisionsCount = async () =>
    Number(
      (
        await t.ctx.database.db
          .selectFrom('decisions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('replays the stored response for a repeated key (body or header), evaluating nothing again', async () => {
    const first = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'default', requestId: 'k1' },
    });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const calls = provider.calls;
    const count = await decisionsCount();
    const again = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'default' },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.decisionId).toBe(first.body.decisionId);
    expect(again.body).toEqual(first.body);
    expect(provider.calls).toBe(calls);
    expect(await decisionsCount()).toBe(count);
  });

  it('422 IDEMPOTENCY_KEY_REUSED for a different body; 422 INVALID_PARAMETER for differing keys or a long key', async () => {
    await t.request('POST', '/v1/check', { body: { content: 'a', policyId: 'default', requestId: 'k2' } });
    const reused = await t.request('POST', '/v1/check', {
      body: { content: 'b', policyId: 'default', requestId: 'k2' },
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const differ = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'default', requestId: 'x' },
      headers: { 'idempotency-key': 'y' },
    });
    expect(differ.body.error.code).toBe('INVALID_PARAMETER');
    const long = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'default', requestId: 'k'.repeat(256) },
    });
    expect(long.body.error.code).toBe('INVALID_PARAMETER');
    // 255 characters, counted as characters (each emoji is two UTF-16 units)
    const emoji = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'default', requestId: '😀'.repeat(255) },
    });
    expect(emoji.status).toBe(200);
    expect(
      (
        await t.request('POST', '/v1/check', {
          body: { content: 'a', policyId: 'default', requestId: '😀'.repeat(256) },
        })
      ).body.error.code,
    ).toBe('INVALID_PARAMETER');
    // only the top-level requestId is the key: a requestId inside metadata is data
    const nested = { content: 'a', policyId: 'default', requestId: 'k-nested' };
    await t.request('POST', '/v1/check', { body: { ...nested, metadata: { requestId: 'one' } } });
    const otherNested = await t.request('POST', '/v1/check', {
      body: { ...nested, metadata: { requestId: 'two' } },
    });
    expect(otherNested.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers a body nested too deeply to hash with 422, not 500', async () => {
    const depth = 20_000;
    const payload = `{"content":"a","policyId":"default","metadata":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/check',
      headers: {
        authorization: `Bearer ${t.adminKey}`,
        'content-type': 'application/json',
        'idempotency-key': 'deep',
      },
      payload,
    });
    expect(res.statusCode).toBe(422);
  });

  it("a key without the route's permission gets 403, never the stored response of another key", async () => {
    const body = { content: 'a', policyId: 'default', requestId: 'privileged' };
    const first = await t.request('POST', '/v1/check', { body });
    expect(first.status).toBe(200);
    const operator = (await t.request('GET', '/v1/account')).body.accountId as string;
    const reader = await t.newKey(['policies:read'], operator); // same account: its keys share idempotency keys
    const replay = await t.request('POST', '/v1/check', { key: reader.key, body });
    expect(replay.status).toBe(403);
    expect(replay.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    const probe = await t.request('POST', '/v1/check', { key: reader.key, body: { ...body, content: 'b' } });
    expect(probe.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('never stores a new API key: POST /v1/keys is not idempotent, and no stored response holds a vk_ key', async () => {
    const created = await t.request('POST', '/v1/keys', {
      body: { name: 'k', scopes: ['check'] },
      headers: { 'idempotency-key': 'key-create' },
    });
    expect(created.status).toBe(201);
    const rows = await t.ctx.database.db.selectFrom('idempotency_keys').select(['key', 'response']).execute();
    expect(rows.some((r) => r.key === 'key-create')).toBe(false);
    expect(rows.some((r) => (r.response ?? '').includes(created.body.key))).toBe(false);
  });

  it('keys are per account', async () => {
    const other = await t.newKey(['check']);
    const mine = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'default', requestId: 'shared' },
    });
    const theirs = await t.request('POST', '/v1/check', {
      key: other.key,
      body: { content: 'a', policyId: 'default', requestId: 'shared' },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.decisionId).not.toBe(mine.body.decisionId);
  });

  it('concurrent duplicates: exactly one evaluation and one decision; the rest get 409 or the replay', async () => {
    const count = await decisionsCount();
    const calls = provider.calls;
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        t.request('POST', '/v1/check', { body: { content: 'same', policyId: 'default', requestId: 'race' } }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const inUse = responses.filter((r) => r.status === 409);
    expect(ok.length + inUse.length).toBe(8);
    expect(new Set(ok.map((r) => r.body.decisionId)).size).toBe(1);
    for (const r of inUse) expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(provider.calls).toBe(calls + 1);
    expect(await decisionsCount()).toBe(count + 1);
    const later = await t.request('POST', '/v1/check', {
      body: { content: 'same', policyId: 'default', requestId: 'race' },
    });
    expect(later.body.decisionId).toBe(ok[0]!.body.decisionId);
  });

  it("the worker's sweep deletes keys past their 24 hours and keeps the others", async () => {
    await t.request('POST', '/v1/check', {
      body: { content: 'fresh', policyId: 'default', requestId: 'fresh' },
    });
    await t.request('POST', '/v1/check', { body: { content: 'old', policyId: 'default', requestId: 'old' } });
    const db = t.ctx.database.db;
    const dayAgo = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await db.updateTable('idempotency_keys').set({ created_at: dayAgo }).where('key', '=', 'old').execute();
    const worker = startWorker(t.ctx);
    try {
      const deadline = Date.now() + 10_000;
      const keys = async () =>
        (await db.selectFrom('idempotency_keys').select('key').execute()).map((r) => r.key);
      while ((await keys()).includes('old') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await keys()).not.toContain('old');
      expect(await keys()).toContain('fresh');
    } finally {
      await worker.stop();
    }
  });

  it('a failed request releases its key so a corrected retry can run', async () => {
    const failed = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'missing', requestId: 'k3' },
    });
    expect(failed.status).toBe(404);
    const retried = await t.request('POST', '/v1/check', {
      body: { content: 'a', policyId: 'missing', requestId: 'k3' },
    });
    expect(retried.status).toBe(404);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});
