import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import type { ProviderInput, ProviderResult } from '../src/providers/provider.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { createTestCa, HttpsReceiver, type TestCa } from './helpers/https-receiver.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** The keyword provider, failing from its `failAfter`-th call on (a crash in the middle of a batch). */
class FailingProvider extends KeywordProvider {
  failAfter = Number.POSITIVE_INFINITY;
  override async evaluate(input: ProviderInput): Promise<ProviderResult> {
    if (this.calls >= this.failAfter) {
      this.calls++;
      throw new Error('provider crashed');
    }
    return super.evaluate(input);
  }
}

const SCOPES = ['check', 'decisions:read', 'webhooks:read', 'webhooks:write'];

describe('batches: synchronous and asynchronous', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let worker: RunningWorker;
  const provider = new FailingProvider();
  let n = 0;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = new HttpsReceiver(ca);
    await receiver.start();
    t = await createTestApp({
      overrides: { textProvider: provider },
      config: { allowPrivateUrls: true, caFile: ca.caFile, webhookRetrySchedule: [200, 400] },
    });
    worker = startWorker(t.ctx, { pollMs: 50 });
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 1000 });
    await t?.close();
    await receiver?.stop();
    if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  const items = (count: number, prefix = 'item') =>
    Array.from({ length: count }, (_, i) => ({
      id: `${prefix}-${i}`,
      content: i % 3 === 2 ? `hate:0.9 number ${i}` : `hello number ${i}`,
    }));

  async function account() {
    const { key, accountId } = await t.newKey(SCOPES);
    // only admin keys see the signing secret of the account's webhookUrl deliveries
    const { key: admin } = await t.newKey(['admin'], accountId);
    const signingSecret = (await t.request('GET', '/v1/account', { key: admin })).body
      .signingSecret as string;
    receiver.secrets.push(signingSecret);
    const path = `/batch-${++n}`;
    return { key, accountId, signingSecret, path, webhookUrl: `${receiver.url}${path}` };
  }

  const countRows = async (table: 'decisions' | 'batches' | 'events' | 'jobs', accountId?: string) => {
    let query = t.ctx.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    if (accountId && table !== 'jobs') query = query.where('account_id', '=', accountId);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };

  it('sync: one stored decision per item, in order, with id/safe/flagged/action/decisionId', async () => {
    const { key } = await account();
    const res = await t.request('POST', '/v1/batch/check', {
      key,
      body: { policyId: 'default', items: items(5) },
    });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(5);
    expect(res.body.items.map((i: any) => i.id)).toEqual(['item-0', 'item-1', 'item-2', 'item-3', 'item-4']);
    expect(res.body.items[0]).toEqual({
      id: 'item-0',
      safe: true,
      flagged: false,
      action: 'allow',
      decisionId: expect.stringMatching(/^dec_/),
    });
    expect(res.body.items[2]).toMatchObject({ safe: false, flagged: true, action: 'block' });
    expect(new Set(res.body.items.map((i: any) => i.decisionId)).size).toBe(5);
    const stored = await t.request('GET', `/v1/decisions/${res.body.items[2].decisionId}`, { key });
    expect(stored.body).toMatchObject({ content: 'hate:0.9 number 2', action: 'block', policyId: 'default' });
  });

  it('sync: validates every item before evaluating any; nothing is stored for a rejected request', async () => {
    const { key, accountId } = await account();
    const ok = { id: 'ok', content: 'fine' };
    const cases: Array<[unknown, number, string, Record<string, unknown>?]> = [
      [{ policyId: 'default' }, 422, 'MISSING_REQUIRED_FIELD', { field: 'items' }],
      [{ policyId: 'default', items: [] }, 422, 'MISSING_REQUIRED_FIELD', { field: 'items' }],
      [{ policyId: 'default', items: 'x' }, 422, 'INVALID_PARAMETER', { field: 'items' }],
      [{ items: [ok] }, 422, 'MISSING_REQUIRED_FIELD', { field: 'policyId' }],
      [{ policyId: 'no-such-policy', items: [ok] }, 404, 'POLICY_NOT_FOUND'],
      [{ policyId: 'bad id!', items: [ok] }, 422, 'INVALID_POLICY_ID'],
      [{ policyId: 'default', items: items(101) }, 422, 'TOO_MANY_ITEMS', { maxItems: 100 }],
      [
        { policyId: 'default', items: [ok, { content: 'no id' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, id: null, code: 'MISSING_REQUIRED_FIELD' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 7, content: 'numeric id' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, id: null, code: 'INVALID_PARAMETER' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'b', content: 'x' }, { id: 'ok', content: 'dup' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 2, id: 'ok', code: 'DUPLICATE_ITEM_ID' },
      ],
      [
        { policyId: 'default', items: [ok, 'not an object'] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, code: 'INVALID_PARAMETER' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'm' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, id: 'm', code: 'MISSING_REQUIRED_FIELD', field: 'items[1].content' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'e', content: '   ' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, id: 'e', code: 'INVALID_CONTENT' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'big', content: 'a'.repeat(33 * 1024) }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, code: 'CONTENT_TOO_LARGE' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'ct', content: 'x', contentType: 'audio' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, code: 'INVALID_CONTENT_TYPE' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'md', content: 'x', metadata: [1] }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, code: 'INVALID_METADATA' },
      ],
      [
        { policyId: 'default', items: [ok, { id: 'lang', content: 'x', language: 'xx' }] },
        422,
        'INVALID_BATCH_ITEM',
        { index: 1, code: 'UNSUPPORTED_LANGUAGE' },
      ],
    ];
    const callsBefore = provider.calls;
    for (const [body, status, code, details] of cases) {
      const res = await t.request('POST', '/v1/batch/check', { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (details) expect(res.body.error.details).toMatchObject(details);
    }
    expect(provider.calls).toBe(callsBefore); // nothing was evaluated
    expect(await countRows('decisions', accountId)).toBe(0);
    expect(await countRows('events', accountId)).toBe(0);
    // An item found invalid only when its URL is fetched (after the others were evaluated) is reported the same
    // way, with its own reason, and nothing is stored or counted.
    const usageBefore = (await t.request('GET', '/v1/usage', { key })).body;
    const fetched = await t.request('POST', '/v1/batch/check', {
      key,
      body: {
        policyId: 'default',
        items: [ok, { id: 'img', content: `${receiver.url}/not-an-image.png`, contentType: 'image' }],
      },
    });
    expect(fetched.status).toBe(422);
    expect(fetched.body.error.code).toBe('INVALID_BATCH_ITEM');
    expect(fetched.body.error.details).toMatchObject({
      index: 1,
      id: 'img',
      code: 'INVALID_IMAGE_URL',
      field: 'items[1].content',
    });
    expect(await countRows('decisions', accountId)).toBe(0);
    expect((await t.request('GET', '/v1/usage', { key })).body).toEqual(usageBefore);
    const noScope = await t.newKey(['decisions:read']);
    const denied = await t.request('POST', '/v1/batch/check', {
      key: noScope.key,
      body: { policyId: 'default', items: [ok] },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('sync: idempotent — a repeat replays the same decisions and stores nothing new', async () => {
    const { key, accountId } = await account();
    const body = { policyId: 'default', items: items(3) };
    const a = await t.request('POST', '/v1/batch/check', {
      key,
      body,
      headers: { 'idempotency-key': 'b-1' },
    });
    const b = await t.request('POST', '/v1/batch/check', {
      key,
      body,
      headers: { 'idempotency-key': 'b-1' },
    });
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await countRows('decisions', accountId)).toBe(3);
  });

  it('async: 202, processed by the queue, then one signed moderation.completed to webhookUrl and to subscribers', async () => {
    const { key, accountId, signingSecret, path, webhookUrl } = await account();
    const hookPath = `/subscriber-${n}`;
    const hook = await t.request('POST', '/v1/webhooks', {
      key,
      body: { url: `${receiver.url}${hookPath}`, events: ['moderation.completed'] },
    });
    expect(hook.status).toBe(201);
    receiver.secrets.push(hook.body.secret);
    const res = await t.request('POST', '/v1/batch/check/async', {
      key,
      body: { policyId: 'default', items: items(25), webhookUrl },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      batchId: expect.stringMatching(/^bat_/),
      status: 'processing',
      totalItems: 25,
    });
    const { batchId } = res.body;
    const atTarget = () => receiver.requests.filter((r) => r.path === path);
    const atHook = () => receiver.requests.filter((r) => r.path === hookPath);
    await receiver.waitFor(
      () => atTarget().length >= 1 && atHook().length >= 1,
      15_000,
      'moderation.completed',
    );
    await sleep(300);
    expect(atTarget()).toHaveLength(1);
    const event = atTarget()[0]!;
    expect(event.verifiedWith).toBe(signingSecret);
    expect(atHook()[0]!.verifiedWith).toBe(hook.body.secret);
    expect(atHook()[0]!.eventId).toBe(event.eventId);
    expect(event.eventType).toBe('moderation.completed');
    expect(event.json).toMatchObject({
      id: event.eventId,
      type: 'moderation.completed',
      data: { id: batchId, batchId, status: 'completed', totalItems: 25 },
    });
    expect(event.json.data.items).toHaveLength(25);
    const status = await t.request('GET', `/v1/batch/${batchId}`, { key });
    expect(status.body).toMatchObject({ batchId, status: 'completed', totalItems: 25, processedItems: 25 });
    expect(status.body.items).toEqual(event.json.data.items);
    expect(status.body.items.map((i: any) => i.id)).toEqual(items(25).map((i) => i.id));
    expect(status.body.items[2]).toMatchObject({ action: 'block', flagged: true, safe: false });
    expect(await countRows('decisions', accountId)).toBe(25);
  });

  it('async: validation codes, and nothing is stored or queued for a rejected request', async () => {
    const { key, accountId, webhookUrl } = await account();
    const jobsBefore = await countRows('jobs');
    const base = { policyId: 'default', items: items(2) };
    const cases: Array<[unknown, string, Record<string, unknown>?]> = [
      [base, 'MISSING_REQUIRED_FIELD', { field: 'webhookUrl' }],
      [{ ...base, webhookUrl: 'http://example.com/hook' }, 'INVALID_WEBHOOK_URL', { field: 'webhookUrl' }],
      [{ ...base, webhookUrl: 'nonsense' }, 'INVALID_WEBHOOK_URL'],
      [{ ...base, webhookUrl, items: [] }, 'MISSING_REQUIRED_FIELD', { field: 'items' }],
      [{ ...base, webhookUrl, items: items(101) }, 'TOO_MANY_ITEMS'],
      [
        { ...base, webhookUrl, items: [...items(2), { id: 'item-0', content: 'dup' }] },
        'INVALID_BATCH_ITEM',
        { index: 2, id: 'item-0', code: 'DUPLICATE_ITEM_ID' },
      ],
    ];
    for (const [body, code, details] of cases) {
      const res = await t.request('POST', '/v1/batch/check/async', { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(422);
      expect(res.body.error.code).toBe(code);
      if (details) expect(res.body.error.details).toMatchObject(details);
    }
    const strict = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
    try {
      for (const url of [
        'https://127.0.0.1/hook',
        'https://localhost/hook',
        'https://[::1]/hook',
        'https://169.254.169.254/',
      ]) {
        const res = await strict.request('POST', '/v1/batch/check/async', {
          body: { ...base, webhookUrl: url },
        });
        expect(res.status, url).toBe(422);
        expect(res.body.error.code).toBe('INVALID_WEBHOOK_URL');
      }
    } finally {
      await strict.close();
    }
    expect(await countRows('batches', accountId)).toBe(0);
    expect(await countRows('decisions', accountId)).toBe(0);
    expect(await countRows('jobs')).toBe(jobsBefore);
  });

  it('async: an item whose URL fails when fetched fails the batch, naming the item in moderation.failed', async () => {
    const { key, webhookUrl, path } = await account();
    const res = await t.request('POST', '/v1/batch/check/async', {
      key,
      body: {
        policyId: 'default',
        webhookUrl,
        items: [
          { id: 'ok', content: 'fine' },
          { id: 'img', content: `${receiver.url}/not-an-image.png`, contentType: 'image' },
        ],
      },
    });
    expect(res.status).toBe(202);
    const deadline = Date.now() + 15_000;
    let batch: any;
    do {
      await sleep(100);
      batch = (await t.request('GET', `/v1/batch/${res.body.batchId}`, { key })).body;
    } while (batch.status === 'processing' && Date.now() < deadline);
    const error = {
      code: 'INVALID_BATCH_ITEM',
      details: { index: 1, id: 'img', code: 'INVALID_IMAGE_URL', field: 'items[1].content' },
    };
    expect(batch).toMatchObject({ status: 'failed', error });
    while (!receiver.requests.some((r) => r.path === path) && Date.now() < deadline) await sleep(50);
    const event = receiver.requests.find((r) => r.path === path)!;
    expect(event.json).toMatchObject({ type: 'moderation.failed', data: { status: 'failed', error } });
  });

  it('async: idempotent — a repeat answers the same batch and processes it once', async () => {
    const { key, accountId, webhookUrl, path } = await account();
    const body = { policyId: 'default', items: items(3), webhookUrl };
    const a = await t.request('POST', '/v1/batch/check/async', {
      key,
      body,
      headers: { 'idempotency-key': 'ab-1' },
    });
    const b = await t.request('POST', '/v1/batch/check/async', {
      key,
      body,
      headers: { 'idempotency-key': 'ab-1' },
    });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body.batchId).toBe(a.body.batchId);
    await receiver.waitFor(() => receiver.requests.some((r) => r.path === path), 10_000, 'completion');
    expect(await countRows('batches', accountId)).toBe(1);
    expect(await countRows('decisions', accountId)).toBe(3);
  });

  it('GET /v1/batch/{id}: 404 BATCH_NOT_FOUND for unknown and other accounts’ batches', async () => {
    const { key, webhookUrl } = await account();
    const res = await t.request('POST', '/v1/batch/check/async', {
      key,
      body: { policyId: 'default', items: items(1), webhookUrl },
    });
    const stranger = await account();
    for (const [k, id] of [
      [key, 'bat_nope'],
      [stranger.key, res.body.batchId],
    ] as const) {
      const got = await t.request('GET', `/v1/batch/${id}`, { key: k });
      expect(got.status).toBe(404);
      expect(got.body.error.code).toBe('BATCH_NOT_FOUND');
    }
  });
});

describe('async batches resume after a crash without deciding any item twice', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    ca = createTestCa();
    receiver = new HttpsReceiver(ca);
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  it('a run that dies mid-batch leaves committed chunks; the next run finishes the rest', async () => {
    const provider = new FailingProvider();
    const t = await createTestApp({
      overrides: { textProvider: provider },
      config: { allowPrivateUrls: true, caFile: ca.caFile, webhookRetrySchedule: [200] },
    });
    try {
      const signingSecret = (await t.request('GET', '/v1/account')).body.signingSecret;
      receiver.secrets.push(signingSecret);
      const res = await t.request('POST', '/v1/batch/check/async', {
        body: {
          policyId: 'default',
          items: Array.from({ length: 25 }, (_, i) => ({ id: `i${i}`, content: `text ${i}` })),
          webhookUrl: `${receiver.url}/resume`,
        },
      });
      const { batchId } = res.body;
      provider.failAfter = 15; // the first chunk of 10 commits, the second dies
      await expect(t.ctx.batches.process(batchId)).rejects.toThrow('provider crashed');
      const midway = await t.request('GET', `/v1/batch/${batchId}`);
      expect(midway.body).toMatchObject({ status: 'processing', processedItems: 10 });
      expect(midway.body.items).toBeUndefined();
      provider.failAfter = Number.POSITIVE_INFINITY;
      const worker = startWorker(t.ctx, { pollMs: 50 }); // the queued job picks it up
      try {
        await receiver.waitFor(
          () => receiver.requests.some((r) => r.path === '/resume'),
          10_000,
          'completion',
        );
      } finally {
        await worker.stop({ timeoutMs: 1000 });
      }
      const done = await t.request('GET', `/v1/batch/${batchId}`);
      expect(done.body).toMatchObject({ status: 'completed', processedItems: 25 });
      const decisions = await t.ctx.database.db.selectFrom('decisions').select(['id', 'content']).execute();
      expect(decisions).toHaveLength(25);
      expect(new Set(decisions.map((d) => d.content)).size).toBe(25);
      expect(done.body.items.map((i: any) => i.decisionId).sort()).toEqual(decisions.map((d) => d.id).sort());
      const completed = receiver.requests.find((r) => r.path === '/resume')!;
      expect(completed.verifiedWith).toBe(signingSecret);
    } finally {
      await t.close();
    }
  });
});
