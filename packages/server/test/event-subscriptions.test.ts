import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/context.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { createTestCa, HttpsReceiver, type TestCa } from './helpers/https-receiver.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** A decision records only the events some enabled webhook of its account subscribes to (none: no outbox rows). */
describe.each(engines)('events nobody subscribed to are not recorded (%s)', (engine) => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let a: TestApp;
  beforeAll(async () => {
    ca = createTestCa();
    receiver = new HttpsReceiver(ca);
    await receiver.start();
    a = await createTestApp({
      engine,
      overrides: { textProvider: new KeywordProvider() },
      config: { allowPrivateUrls: true, caFile: ca.caFile, cacheMs: 500 },
    });
  });
  afterAll(async () => {
    await a?.close();
    await receiver?.stop();
    if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  const eventsOf = async (accountId: string) =>
    (
      await a.ctx.database.db
        .selectFrom('events')
        .select(['type'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((e) => e.type);

  it('no webhook: a decision writes no event; a webhook for flags only: only decision.flagged', async () => {
    const { key, accountId } = await a.newKey(['check', 'webhooks:write']);
    const check = (content: string) =>
      a.request('POST', '/v1/check', { key, body: { content, policyId: 'default' } });
    expect((await check('a friendly note')).status).toBe(200);
    expect(await eventsOf(accountId)).toEqual([]);

    const hook = await a.request('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}/flags`, events: ['decision.flagged'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    expect((await check('a friendly note')).status).toBe(200);
    expect(await eventsOf(accountId)).toEqual([]); // allowed: no flagged event, and created is not subscribed
    const flagged = await check('harassment:0.99');
    expect(flagged.body.flagged).toBe(true);
    expect(await eventsOf(accountId)).toEqual(['decision.flagged']);

    // disabled: nothing again
    expect(
      (await a.request('PATCH', `/v1/webhooks/${hook.body.id}`, { key, body: { enabled: false } })).status,
    ).toBe(200);
    await check('harassment:0.99');
    expect(await eventsOf(accountId)).toEqual(['decision.flagged']);
  });

  it('a webhook created through another instance gets the events of this one within the cache time', async () => {
    const ctxB = await createContext(
      a.config,
      { bootstrapKey: ADMIN_KEY },
      { textProvider: new KeywordProvider() },
    );
    const b = await buildApp(ctxB);
    try {
      const { key, accountId } = await a.newKey(['check', 'webhooks:write']);
      const checkOnB = () =>
        b.inject({
          method: 'POST',
          url: '/v1/check',
          headers: { authorization: `Bearer ${key}` },
          payload: { content: 'hello', policyId: 'default' },
        });
      expect((await checkOnB()).statusCode).toBe(200); // B now knows: no subscriptions
      const hook = await a.request('POST', '/v1/webhooks', {
        key,
        body: { url: `${receiver.url}/created`, events: ['decision.created'] },
      });
      expect(hook.status).toBe(201);
      await new Promise((r) => setTimeout(r, 600));
      expect((await checkOnB()).statusCode).toBe(200);
      expect(await eventsOf(accountId)).toEqual(['decision.created']);
    } finally {
      await b.close();
      await ctxB.close();
    }
  });
});
