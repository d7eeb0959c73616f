import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/context.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';

/**
 * Verified keys are cached per instance (VERDICT_CACHE_MS) so that a request does not read the database; the
 * cache must never serve a revoked or expired key beyond its bound.
 */
const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** A second instance of the service on the first one's database (as when scaled out). */
async function secondInstance(first: TestApp) {
  const ctx = await createContext(first.config, { bootstrapKey: ADMIN_KEY });
  const app = await buildApp(ctx);
  await app.ready();
  opened.push(async () => {
    await app.close();
    await ctx.close();
  });
  return (key: string) =>
    app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${key}` } });
}

describe.each(engines)('the key cache (%s)', (engine) => {
  it('a key revoked on one instance is refused there at once and on another within one second', async () => {
    const a = await createTestApp({ engine, config: { cacheMs: 500 } });
    opened.push(() => a.close());
    const onB = await secondInstance(a);
    const { key } = await a.newKey(['check']);
    const keyId = (await a.request('GET', '/v1/keys')).body.keys.find(
      (k: { name: string }) => k.name === 'k',
    ).id;
    // both instances have verified (and cached) the key
    expect((await a.request('GET', '/v1/account', { key })).status).toBe(200);
    expect((await onB(key)).statusCode).toBe(200);

    expect((await a.request('DELETE', `/v1/keys/${keyId}`)).status).toBe(200);
    const revokedAt = performance.now();
    const onA = await a.request('GET', '/v1/account', { key });
    expect(onA.status).toBe(401);
    expect(onA.body.error.code).toBe('REVOKED_API_KEY');

    let refusedAfter: number | null = null;
    while (performance.now() - revokedAt < 3000) {
      const res = await onB(key);
      if (res.statusCode === 401) {
        expect(res.json().error.code).toBe('REVOKED_API_KEY');
        refusedAfter = performance.now() - revokedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(refusedAfter).not.toBeNull();
    expect(refusedAfter!).toBeLessThan(1000);
  });

  it('a cached key is refused once it expires, however long the cache would keep it', async () => {
    const a = await createTestApp({ engine, config: { cacheMs: 60_000 } });
    opened.push(() => a.close());
    const account = (await a.request('POST', '/v1/accounts', { body: { name: 'expiring' } })).body.accountId;
    const created = await a.request('POST', '/v1/keys', {
      body: {
        name: 'soon',
        scopes: ['check'],
        accountId: account,
        expiresAt: new Date(Date.now() + 1200).toISOString(),
      },
    });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await a.request('GET', '/v1/account', { key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1300));
    const after = await a.request('GET', '/v1/account', { key });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('EXPIRED_API_KEY');
  });

  it("an account's new quota applies at once on the instance that changed it", async () => {
    const a = await createTestApp({ engine, config: { cacheMs: 60_000 } });
    opened.push(() => a.close());
    const { key, accountId } = await a.newKey(['check']);
    const check = () =>
      a.request('POST', '/v1/check', { key, body: { content: 'hello there', policyId: 'default' } });
    expect((await check()).status).toBe(200);
    expect(
      (await a.request('PATCH', `/v1/accounts/${accountId}`, { body: { monthlyQuota: 1 } })).status,
    ).toBe(200);
    const refused = await check();
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('QUOTA_EXCEEDED');
  });
});
