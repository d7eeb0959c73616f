import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { createTestCa, HttpsReceiver, type TestCa } from './helpers/https-receiver.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';
import { freePort } from './helpers/process.ts';

const SCOPES = ['check', 'webhooks:read', 'webhooks:write', 'decisions:read'];
const SCHEDULE = [200, 400, 800, 1600];

describe('webhooks: registration, signed deliveries, retries and disabling', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let worker: RunningWorker;
  let pathCounter = 0;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = new HttpsReceiver(ca);
    await receiver.start();
    t = await createTestApp({
      overrides: { textProvider: new KeywordProvider() },
      config: { allowPrivateUrls: true, caFile: ca.caFile, webhookRetrySchedule: SCHEDULE },
    });
    t.ctx.webhookDeliverer.options.timeoutMs = 1000;
    worker = startWorker(t.ctx, { pollMs: 50 });
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 1000 });
    await t?.close();
    await receiver?.stop();
    if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  /** A fresh account (so tests do not see each other's events) with a webhook on its own receiver path. */
  async function setup(events: string[] = ['decision.created'], target: HttpsReceiver = receiver) {
    const { key, accountId } = await t.newKey(SCOPES);
    const path = `/hook-${++pathCounter}`;
    const res = await t.request('POST', '/v1/webhooks', {
      key,
      body: { url: `${target.url}${path}`, events, description: 'test hook' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    target.secrets.push(res.body.secret);
    const check = (content: string) =>
      t.request('POST', '/v1/check', { key, body: { content, policyId: 'default' } });
    const hits = () => target.requests.filter((r) => r.path === path);
    return { key, accountId, path, webhook: res.body, check, hits };
  }

  const deliveries = async (key: string, id: string, query = '') =>
    (await t.request('GET', `/v1/webhooks/${id}/deliveries${query}`, { key })).body.deliveries as any[];

  it('registers a webhook: 201 with a whsec_ secret shown only at creation; list and get never show it', async () => {
    const { key, webhook } = await setup(['decision.created', 'decision.flagged']);
    expect(webhook).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      url: expect.stringMatching(/^https:\/\/localhost:\d+\/hook-\d+$/),
      events: ['decision.created', 'decision.flagged'],
      description: 'test hook',
      enabled: true,
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_/),
    });
    const got = await t.request('GET', `/v1/webhooks/${webhook.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(got.body.id).toBe(webhook.id);
    const list = await t.request('GET', '/v1/webhooks', { key });
    expect(list.body.webhooks.map((w: any) => w.id)).toEqual([webhook.id]);
    expect(list.body.webhooks[0].secret).toBeUndefined();
  });

  it('creating is idempotent: the same key replays the same webhook', async () => {
    const { key } = await t.newKey(SCOPES);
    const body = { url: `${receiver.url}/idem`, events: ['decision.created'] };
    const a = await t.request('POST', '/v1/webhooks', { key, body, headers: { 'idempotency-key': 'wh-1' } });
    const b = await t.request('POST', '/v1/webhooks', { key, body, headers: { 'idempotency-key': 'wh-1' } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body.id).toBe(a.body.id);
    // the secret is shown once: the replay answers without it
    expect(a.body.secret).toMatch(/^whsec_/);
    expect(b.body).not.toHaveProperty('secret');
    expect(JSON.stringify(b.body)).not.toContain(a.body.secret);
    expect((await t.request('GET', '/v1/webhooks', { key })).body.webhooks).toHaveLength(1);
  });

  it('rejects invalid registrations with the spec codes and stores nothing', async () => {
    const { key } = await t.newKey(SCOPES);
    const closedPort = await freePort();
    const cases: Array<[unknown, string, string?]> = [
      [{ events: ['decision.created'] }, 'MISSING_REQUIRED_FIELD', 'url'],
      [
        { url: `http://localhost:${receiver.port}/x`, events: ['decision.created'] },
        'INVALID_WEBHOOK_URL',
        'url',
      ],
      [{ url: 'not a url', events: ['decision.created'] }, 'INVALID_WEBHOOK_URL', 'url'],
      [{ url: 42, events: ['decision.created'] }, 'INVALID_WEBHOOK_URL', 'url'],
      [
        { url: `https://user:pw@localhost:${receiver.port}/`, events: ['decision.created'] },
        'INVALID_WEBHOOK_URL',
      ],
      [{ url: `${receiver.url}/x` }, 'MISSING_REQUIRED_FIELD', 'events'],
      [{ url: `${receiver.url}/x`, events: [] }, 'MISSING_REQUIRED_FIELD', 'events'],
      [{ url: `${receiver.url}/x`, events: 'decision.created' }, 'INVALID_PARAMETER', 'events'],
      [{ url: `${receiver.url}/x`, events: ['decision.created', 'decision.deleted'] }, 'INVALID_EVENT_TYPE'],
      [
        { url: `${receiver.url}/x`, events: ['decision.created'], description: 'd'.repeat(501) },
        'INVALID_PARAMETER',
      ],
      [{ url: `${receiver.url}/x`, events: ['decision.created'], enabled: 'yes' }, 'INVALID_PARAMETER'],
      [{ url: `https://127.0.0.1:${closedPort}/x`, events: ['decision.created'] }, 'WEBHOOK_URL_UNREACHABLE'],
    ];
    for (const [body, code, field] of cases) {
      const res = await t.request('POST', '/v1/webhooks', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      if (field) expect(res.body.error.details.field).toBe(field);
    }
    expect((await t.request('GET', '/v1/webhooks', { key })).body.webhooks).toEqual([]);
  });

  it('refuses a certificate the service does not trust: WEBHOOK_URL_UNREACHABLE', async () => {
    const other = createTestCa(); // a receiver whose CA the service does not know
    const stranger = new HttpsReceiver(other);
    await stranger.start();
    try {
      const { key } = await t.newKey(SCOPES);
      const res = await t.request('POST', '/v1/webhooks', {
        key,
        body: { url: `${stranger.url}/x`, events: ['decision.created'] },
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'WEBHOOK_URL_UNREACHABLE', details: { reason: 'tls' } });
    } finally {
      await stranger.stop();
      fs.rmSync(other.dir, { recursive: true, force: true });
    }
  });

  it('refuses private addresses unless VERDICT_ALLOW_PRIVATE_URLS', async () => {
    const strict = await createTestApp({ config: { caFile: ca.caFile } });
    try {
      for (const url of [`${receiver.url}/x`, `https://127.0.0.1:${receiver.port}/x`, 'https://10.0.0.1/x']) {
        const res = await strict.request('POST', '/v1/webhooks', {
          body: { url, events: ['decision.created'] },
        });
        expect(res.status, url).toBe(422);
        expect(res.body.error.code, url).toBe('INVALID_WEBHOOK_URL');
      }
      expect((await strict.request('GET', '/v1/webhooks')).body.webhooks).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('needs webhooks:read to read and webhooks:write to change; other accounts get 404 WEBHOOK_NOT_FOUND', async () => {
    const { webhook } = await setup();
    const reader = await t.newKey(['webhooks:read']);
    const checker = await t.newKey(['check']);
    expect((await t.request('GET', '/v1/webhooks', { key: reader.key })).status).toBe(200);
    const denied = await t.request('POST', '/v1/webhooks', {
      key: reader.key,
      body: { url: `${receiver.url}/x`, events: ['decision.created'] },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: { scope: 'webhooks:write' },
    });
    const listDenied = await t.request('GET', '/v1/webhooks', { key: checker.key });
    expect(listDenied.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: { scope: 'webhooks:read' },
    });
    expect((await t.request('GET', '/v1/webhooks', { key: null })).status).toBe(401);
    const stranger = await t.newKey(SCOPES);
    const id = webhook.id;
    for (const [method, url, body] of [
      ['GET', `/v1/webhooks/${id}`, undefined],
      ['PATCH', `/v1/webhooks/${id}`, { description: 'x' }],
      ['DELETE', `/v1/webhooks/${id}`, undefined],
      ['POST', `/v1/webhooks/${id}/test`, { eventType: 'decision.created' }],
      ['POST', `/v1/webhooks/${id}/rotate-secret`, {}],
      ['GET', `/v1/webhooks/${id}/deliveries`, undefined],
      ['GET', '/v1/webhooks/whk_doesnotexist', undefined],
    ] as const) {
      const res = await t.request(method, url, { key: stranger.key, ...(body && { body }) });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe('WEBHOOK_NOT_FOUND');
    }
  });

  it('updates URL, events, description and enabled; validates updates; deletes with { id, deleted: true }', async () => {
    const { key, webhook } = await setup();
    const patched = await t.request('PATCH', `/v1/webhooks/${webhook.id}`, {
      key,
      body: {
        events: ['decision.blocked'],
        description: 'only blocks',
        enabled: false,
        url: `${receiver.url}/moved`,
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      events: ['decision.blocked'],
      description: 'only blocks',
      enabled: false,
      url: `${receiver.url}/moved`,
    });
    expect(patched.body.secret).toBeUndefined();
    for (const [body, code] of [
      [{ events: ['nope'] }, 'INVALID_EVENT_TYPE'],
      [{ events: [] }, 'MISSING_REQUIRED_FIELD'],
      [{ url: 'http://example.com/' }, 'INVALID_WEBHOOK_URL'],
      [{ url: null }, 'INVALID_WEBHOOK_URL'],
      [{ url: `https://127.0.0.1:${await freePort()}/` }, 'WEBHOOK_URL_UNREACHABLE'],
      [{ enabled: 'no' }, 'INVALID_PARAMETER'],
    ] as const) {
      const res = await t.request('PATCH', `/v1/webhooks/${webhook.id}`, { key, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe(code);
    }
    const after = await t.request('GET', `/v1/webhooks/${webhook.id}`, { key });
    expect(after.body).toMatchObject({ events: ['decision.blocked'], url: `${receiver.url}/moved` });
    const del = await t.request('DELETE', `/v1/webhooks/${webhook.id}`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: webhook.id, deleted: true });
    expect((await t.request('GET', `/v1/webhooks/${webhook.id}`, { key })).status).toBe(404);
  });

  it('test sends one signed event synchronously and logs it', async () => {
    const { key, webhook, hits, path } = await setup();
    const ok = await t.request('POST', `/v1/webhooks/${webhook.id}/test`, {
      key,
      body: { eventType: 'moderation.completed' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, responseCode: 200 });
    expect(typeof ok.body.durationMs).toBe('number');
    expect(hits()).toHaveLength(1);
    expect(hits()[0]!).toMatchObject({ eventType: 'moderation.completed', eventId: ok.body.eventId });
    expect(hits()[0]!.json).toMatchObject({ id: ok.body.eventId, type: 'moderation.completed' });
    expect(hits()[0]!.verifiedWith).toBe(webhook.secret);

    receiver.responder = (r) => (r.path === path ? { status: 500 } : { status: 200 });
    const failed = await t.request('POST', `/v1/webhooks/${webhook.id}/test`, {
      key,
      body: { eventType: 'decision.created' },
    });
    receiver.responder = () => ({ status: 200 });
    expect(failed.body).toMatchObject({ success: false, responseCode: 500 });
    const bad = await t.request('POST', `/v1/webhooks/${webhook.id}/test`, {
      key,
      body: { eventType: 'x.y' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('INVALID_EVENT_TYPE');
    const missing = await t.request('POST', `/v1/webhooks/${webhook.id}/test`, { key, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      details: { field: 'eventType' },
    });
    const log = await deliveries(key, webhook.id);
    expect(log.map((d) => d.status)).toEqual(['failed', 'succeeded']);
    expect(log[0]).toMatchObject({ attempt: 1, responseCode: 500, eventType: 'decision.created' });
    // a test moderation.failed is shaped like a real batch failure
    await t.request('POST', `/v1/webhooks/${webhook.id}/test`, {
      key,
      body: { eventType: 'moderation.failed' },
    });
    expect(hits()[hits().length - 1]!.json.data).toMatchObject({
      status: 'failed',
      processedItems: 0,
      error: { code: expect.any(String), message: expect.any(String) },
    });
  });

  it('delivers decision.created / flagged / blocked for every stored decision, signed, with data.id', async () => {
    const { webhook, check, hits } = await setup([
      'decision.created',
      'decision.flagged',
      'decision.blocked',
    ]);
    const safe = await check('hello there');
    const blocked = await check('hate:0.95');
    await receiver.waitFor(() => hits().length >= 4, 10_000, 'four events');
    await sleep(300);
    const byType = (decisionId: string) =>
      hits()
        .filter((h) => h.json.data.id === decisionId)
        .map((h) => h.eventType)
        .sort();
    expect(byType(safe.body.decisionId)).toEqual(['decision.created']);
    expect(byType(blocked.body.decisionId)).toEqual([
      'decision.blocked',
      'decision.created',
      'decision.flagged',
    ]);
    for (const hit of hits()) {
      expect(hit.verifiedWith).toBe(webhook.secret);
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.json).toMatchObject({
        id: hit.eventId,
        type: hit.eventType,
        createdAt: expect.any(String),
        data: { id: expect.stringMatching(/^dec_/), decisionId: expect.stringMatching(/^dec_/) },
      });
      expect(hit.eventId).toMatch(/^evt_/);
      expect(hit.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    }
    expect(hits().find((h) => h.eventType === 'decision.blocked')!.json.data).toMatchObject({
      action: 'block',
      flagged: true,
      safe: false,
      content: 'hate:0.95',
      policyId: 'default',
    });
  });

  it('retries after 500s and timeouts with the same event ID, and logs every attempt', async () => {
    const { key, webhook, check, path, hits } = await setup();
    let calls = 0;
    receiver.responder = (r) => {
      if (r.path !== path) return { status: 200 };
      calls++;
      if (calls === 1) return { status: 500 };
      if (calls === 2) return { status: 200, delayMs: 1500 }; // over the 1 s test timeout
      return { status: 200 };
    };
    try {
      const res = await check('retry me');
      await receiver.waitFor(() => hits().length >= 3, 10_000, 'three attempts');
      await sleep(500);
      expect(hits()).toHaveLength(3);
      expect(new Set(hits().map((h) => h.eventId)).size).toBe(1);
      expect(hits()[0]!.json.data.id).toBe(res.body.decisionId);
      expect(hits().every((h) => h.body === hits()[0]!.body)).toBe(true);
      const log = await deliveries(key, webhook.id);
      expect(log.map((d) => [d.attempt, d.status, d.responseCode])).toEqual([
        [3, 'succeeded', 200],
        [2, 'failed', null],
        [1, 'failed', 500],
      ]);
      expect(log[1].error).toMatch(/timeout/);
      expect(log.every((d) => d.eventId === hits()[0]!.eventId)).toBe(true);
      const gaps = hits().map((h, i, all) => (i === 0 ? 0 : h.at - all[i - 1]!.at));
      expect(gaps[1]).toBeGreaterThanOrEqual(150); // 200 ms ± 20 %
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  });

  it('honours Retry-After', async () => {
    const { check, path, hits } = await setup();
    let calls = 0;
    receiver.responder = (r) => {
      if (r.path !== path) return { status: 200 };
      return ++calls === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 };
    };
    try {
      await check('later please');
      await receiver.waitFor(() => hits().length >= 2, 10_000, 'the retry');
      expect(hits()[1]!.at - hits()[0]!.at).toBeGreaterThanOrEqual(1950);
      expect(hits()[1]!.eventId).toBe(hits()[0]!.eventId);
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  });

  it('gives up after the last scheduled retry', async () => {
    const { key, webhook, check, path, hits } = await setup();
    receiver.responder = (r) => (r.path === path ? { status: 500 } : { status: 200 });
    try {
      await check('never works');
      await receiver.waitFor(() => hits().length >= SCHEDULE.length + 1, 15_000, 'all attempts');
      await sleep(800);
      expect(hits()).toHaveLength(SCHEDULE.length + 1);
      const log = await deliveries(key, webhook.id);
      expect(log.map((d) => d.attempt)).toEqual([5, 4, 3, 2, 1]);
      // Failing for a few seconds is not five days: the endpoint stays enabled.
      expect((await t.request('GET', `/v1/webhooks/${webhook.id}`, { key })).body.enabled).toBe(true);
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  });

  it('410 Gone disables the endpoint at once', async () => {
    const { key, webhook, check, path, hits } = await setup();
    receiver.responder = (r) => (r.path === path ? { status: 410 } : { status: 200 });
    try {
      await check('gone');
      await receiver.waitFor(() => hits().length >= 1, 10_000, 'the delivery');
      await sleep(800);
      expect(hits()).toHaveLength(1);
      const got = await t.request('GET', `/v1/webhooks/${webhook.id}`, { key });
      expect(got.body.enabled).toBe(false);
      expect(got.body.disabledReason).toMatch(/410/);
      await check('after disabling');
      await sleep(600);
      expect(hits()).toHaveLength(1);
      // Re-enabling clears the reason and deliveries resume.
      receiver.responder = () => ({ status: 200 });
      const on = await t.request('PATCH', `/v1/webhooks/${webhook.id}`, { key, body: { enabled: true } });
      expect(on.body).toMatchObject({ enabled: true, disabledReason: null });
      await check('back on');
      await receiver.waitFor(() => hits().length === 2, 10_000, 'delivery after re-enabling');
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  });

  it('disables an endpoint whose every delivery failed for 5 days', async () => {
    const { key, webhook, check, path, hits } = await setup();
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString();
    await t.ctx.database.db
      .updateTable('webhooks')
      .set({ failing_since: sixDaysAgo })
      .where('id', '=', webhook.id)
      .execute();
    receiver.responder = (r) => (r.path === path ? { status: 502 } : { status: 200 });
    try {
      await check('still failing');
      await receiver.waitFor(() => hits().length >= 1, 10_000, 'the delivery');
      await sleep(600);
      expect(hits()).toHaveLength(1);
      const got = await t.request('GET', `/v1/webhooks/${webhook.id}`, { key });
      expect(got.body.enabled).toBe(false);
      expect(got.body.disabledReason).toMatch(/5 days/);
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  });

  it('a receiver that is down for a while gets the event once it is back', async () => {
    const flaky = new HttpsReceiver(ca);
    await flaky.start();
    try {
      const { check, hits } = await setup(['decision.created'], flaky);
      await flaky.stop();
      const res = await check('while you were out');
      await sleep(900);
      await flaky.start();
      await flaky.waitFor(() => hits().length >= 1, 10_000, 'delivery after the receiver returned');
      expect(hits()[0]!.json.data.id).toBe(res.body.decisionId);
      expect(hits()[0]!.verifiedWith).not.toBeNull();
    } finally {
      await flaky.stop();
    }
  });

  it('rotating the secret signs with both secrets (one v1= each) for 24 h', async () => {
    const { key, webhook, check, hits } = await setup();
    const rotated = await t.request('POST', `/v1/webhooks/${webhook.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(webhook.secret);
    await check('after rotation');
    await receiver.waitFor(() => hits().length >= 1, 10_000, 'the delivery');
    const header = hits()[0]!.headers['x-service-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    const { verifySignature } = await import('./helpers/https-receiver.ts');
    expect(verifySignature(header, hits()[0]!.body, rotated.body.secret)).toBe(true);
    expect(verifySignature(header, hits()[0]!.body, webhook.secret)).toBe(true);
    expect(verifySignature(header, hits()[0]!.body, 'whsec_wrong')).toBe(false);
  });

  it('lists deliveries newest first with limit (default 20, max 100)', async () => {
    const { key, webhook, check, hits } = await setup();
    for (let i = 0; i < 3; i++) await check(`message ${i}`);
    await receiver.waitFor(() => hits().length >= 3, 10_000, 'three deliveries');
    await sleep(200);
    const all = await deliveries(key, webhook.id);
    expect(all).toHaveLength(3);
    expect(Object.keys(all[0]).sort()).toEqual(
      [
        'attempt',
        'durationMs',
        'error',
        'eventId',
        'eventType',
        'id',
        'responseCode',
        'status',
        'timestamp',
      ].sort(),
    );
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort().reverse());
    expect(await deliveries(key, webhook.id, '?limit=2')).toHaveLength(2);
    // pages: offset reaches the older attempts, hasMore says whether there are more
    const page = await t.request('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=2&offset=1`, { key });
    expect(page.body.deliveries.map((d: any) => d.id)).toEqual(all.slice(1, 3).map((d) => d.id));
    expect(page.body).toMatchObject({ limit: 2, offset: 1, hasMore: all.length > 3 });
    const last = await t.request('GET', `/v1/webhooks/${webhook.id}/deliveries?offset=${all.length - 1}`, {
      key,
    });
    expect(last.body.deliveries.map((d: any) => d.id)).toEqual([all[all.length - 1]!.id]);
    expect(last.body.hasMore).toBe(false);
    for (const limit of ['0', '101', 'abc']) {
      const res = await t.request('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=${limit}`, { key });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
    }
  });

  it('every delivery the receiver got carried a valid signature', () => {
    expect(receiver.requests.length).toBeGreaterThan(20);
    expect(receiver.requests.filter((r) => r.verifiedWith === null)).toEqual([]);
  });
});
