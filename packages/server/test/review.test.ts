import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { createTestCa, HttpsReceiver, type TestCa } from './helpers/https-receiver.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const POLICY = `name: reviewed
categories:
  hate: { threshold: 0.5, action: block, review: true }
  violence: { threshold: 0.5, action: flag }
  spam: { threshold: 0.5, action: warn }
reviewActions: [flag]
reviewSample: 0.5
`;

/** The documented sampling rule, computed independently: SHA-256(decision ID), first 48 bits / 2^48 < share. */
const sampled = (decisionId: string, share: number) =>
  createHash('sha256').update(decisionId).digest().readUIntBE(0, 6) / 2 ** 48 < share;

describe.each(engines)('human review, appeals and statements of reasons (%s)', (engine) => {
  let t: TestApp;
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let worker: RunningWorker;
  // a second instance of the service on the same database: claims race across processes, not only requests
  let ctx2: AppContext;
  let app2: FastifyInstance;
  let platform: string;
  let alice: string;
  let bob: string;
  let reader: string;
  let accountId: string;

  const as = (key: string) => ({
    get: (url: string, headers: Record<string, string> = {}) => t.request('GET', url, { key, headers }),
    post: (url: string, body: unknown = {}) => t.request('POST', url, { key, body }),
  });
  const claimOn = async (app: FastifyInstance, key: string, body: unknown) => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/review/queue/claim',
      headers: { authorization: `Bearer ${key}` },
      payload: body as object,
    });
    return { status: res.statusCode, body: res.json() };
  };
  const check = async (content: string) => {
    const res = await as(platform).post('/v1/check', { content, policyId: 'reviewed' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.decisionId as string;
  };
  const hits = (type: string) =>
    receiver.requests.filter((r) => r.path === `/rv-${engine}` && r.eventType === type);

  beforeAll(async () => {
    ca = createTestCa();
    receiver = new HttpsReceiver(ca);
    await receiver.start();
    t = await createTestApp({
      engine,
      overrides: { textProvider: new KeywordProvider() },
      config: { allowPrivateUrls: true, caFile: ca.caFile, webhookRetrySchedule: [200, 400] },
    });
    worker = startWorker(t.ctx, { pollMs: 50 });
    ctx2 = await createContext(
      t.config,
      { bootstrapKey: ADMIN_KEY },
      { textProvider: new KeywordProvider() },
    );
    app2 = await buildApp(ctx2);
    await app2.ready();
    accountId = (await t.request('POST', '/v1/accounts', { body: { name: 'platform' } })).body.accountId;
    const key = async (name: string, scopes: string[]) => {
      const res = await t.request('POST', '/v1/keys', { body: { name, scopes, accountId } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.key as string;
    };
    platform = await key('platform', ['check', 'decisions:read', 'policies:write', 'webhooks:write']);
    alice = await key('alice', ['review']);
    bob = await key('bob', ['review']);
    reader = await key('reader', ['decisions:read']);
    const hook = await as(platform).post('/v1/webhooks', {
      url: `${receiver.url}/rv-${engine}`,
      events: ['decision.reviewed', 'decision.overturned', 'appeal.resolved'],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    receiver.secrets.push(hook.body.secret);
    const policy = await as(platform).post('/v1/policies', { policyId: 'reviewed', yamlContent: POLICY });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 1000 });
    await app2?.close();
    await ctx2?.close();
    await t?.close();
    await receiver?.stop();
    if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  it('validates the review keys of a policy with line and column', async () => {
    const bad = [
      [POLICY.replace('reviewActions: [flag]', 'reviewActions: [remove]'), 'reviewActions.0'],
      [POLICY.replace('reviewSample: 0.5', 'reviewSample: 2'), 'reviewSample'],
      [POLICY.replace('review: true', 'review: yes please'), 'categories.hate.review'],
    ] as const;
    for (const [yamlContent, field] of bad) {
      const res = await as(platform).post('/v1/policies/validate', { yamlContent });
      expect(res.status, yamlContent).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { field } });
      expect(res.body.error.details.line).toBeGreaterThan(0);
    }
  });

  it('queues decisions per category, per action and a deterministic sample of allowed ones, in the same write', async () => {
    const blocked = await check('hate:0.9 you people');
    const flagged = await check('violence:0.8 a fight');
    const warned = await check('spam:0.9 buy now');
    const allowed: string[] = [];
    for (let i = 0; i < 16; i++) allowed.push(await check(`a friendly message number ${i}`));
    // a replay asks "what if": it never enters the queue
    await as(platform).post(`/v1/decisions/${blocked}/replay`, { policyId: 'reviewed' });

    const queue = await as(alice).get('/v1/review/queue?limit=100');
    expect(queue.status, JSON.stringify(queue.body)).toBe(200);
    const byDecision = new Map(queue.body.items.map((i: any) => [i.decisionId, i]));
    expect(byDecision.get(blocked)).toMatchObject({
      reason: 'category',
      action: 'block',
      priority: 0,
      lease: null,
    });
    expect(byDecision.get(flagged)).toMatchObject({ reason: 'action', action: 'flag' });
    expect(byDecision.has(warned)).toBe(false);
    const expectedSample = allowed.filter((id) => sampled(id, 0.5));
    expect(expectedSample.length).toBeGreaterThan(0);
    expect(expectedSample.length).toBeLessThan(allowed.length);
    const queuedAllowed = allowed.filter((id) => byDecision.has(id));
    expect(queuedAllowed).toEqual(expectedSample);
    expect(queue.body.items.length).toBe(2 + expectedSample.length);
    // oldest first, each with its decision
    expect(queue.body.items[0].decisionId).toBe(blocked);
    expect(queue.body.items[0].decision).toMatchObject({
      decisionId: blocked,
      content: 'hate:0.9 you people',
    });
    const times = queue.body.items.map((i: any) => i.createdAt);
    expect([...times].sort()).toEqual(times);

    const onlyActions = await as(alice).get('/v1/review/queue?reason=action');
    expect(onlyActions.body.items.map((i: any) => i.decisionId)).toEqual([flagged]);
    expect((await as(alice).get('/v1/review/queue?colour=red')).body.error.code).toBe('INVALID_PARAMETER');
    expect((await as(alice).get('/v1/review/queue?reason=whim')).status).toBe(422);
    const denied = await as(reader).get('/v1/review/queue');
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: { scope: 'review' },
    });
  });

  it('two reviewers claiming at the same time, on two instances, never get the same item', async () => {
    const pending = (await as(alice).get('/v1/review/queue?limit=100')).body.items.map((i: any) => i.itemId);
    const got = { alice: [] as string[], bob: [] as string[] };
    for (let round = 0; round < 20; round++) {
      // each reviewer sends three claims at once, on its own instance
      const claims = await Promise.all([
        ...[1, 2, 3].map(() => claimOn(t.app, alice, { limit: 1, leaseSeconds: 600 })),
        ...[1, 2, 3].map(() => claimOn(app2, bob, { limit: 1, leaseSeconds: 600 })),
      ]);
      claims.forEach((c, i) => {
        expect(c.status, JSON.stringify(c.body)).toBe(200);
        (i < 3 ? got.alice : got.bob).push(...c.body.items.map((item: any) => item.itemId));
      });
      if (claims.every((c) => c.body.items.length === 0)) break;
    }
    const all = [...got.alice, ...got.bob];
    expect(new Set(all).size).toBe(all.length);
    expect(new Set(all)).toEqual(new Set(pending));
    expect(got.alice.length).toBeGreaterThan(0);
    expect(got.bob.length).toBeGreaterThan(0);
    // everything is leased now: nothing left to claim, and the queue shows who holds what
    expect((await claimOn(t.app, alice, {})).body.items).toEqual([]);
    const queue = await as(alice).get('/v1/review/queue?limit=100');
    const keyOf = (itemId: string) => queue.body.items.find((i: any) => i.itemId === itemId).lease.keyId;
    expect(new Set(got.alice.map(keyOf)).size).toBe(1);
    expect(keyOf(got.alice[0]!)).not.toBe(keyOf(got.bob[0]!));
    expect((await as(alice).get('/v1/review/queue?available=true')).body.items).toEqual([]);

    // a review by someone else than the lease holder is refused; the holder may release it
    const bobs = queue.body.items.find((i: any) => i.itemId === got.bob[0]);
    const refused = await as(alice).post(`/v1/decisions/${bobs.decisionId}/review`, { outcome: 'confirm' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'REVIEW_LEASED', details: { itemId: bobs.itemId } });
    expect((await as(alice).post(`/v1/review/queue/${bobs.itemId}/release`)).body.error.code).toBe(
      'REVIEW_LEASED',
    );
    const released = await as(bob).post(`/v1/review/queue/${bobs.itemId}/release`);
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    expect(released.body.lease).toBeNull();
    const again = await claimOn(t.app, alice, { limit: 5 });
    expect(again.body.items.map((i: any) => i.itemId)).toEqual([bobs.itemId]);
  });

  it('validates claims and reviews', async () => {
    for (const body of [
      { limit: 0 },
      { limit: 51 },
      { leaseSeconds: 3601 },
      { leaseSeconds: 1 },
      { limit: '2' },
      { x: 1 },
    ])
      expect((await claimOn(t.app, alice, body)).body.error.code, JSON.stringify(body)).toBe(
        'INVALID_PARAMETER',
      );
    const id = await check('hello there');
    const post = (body: unknown) => as(alice).post(`/v1/decisions/${id}/review`, body);
    expect((await post({})).body.error).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      details: { field: 'outcome' },
    });
    expect((await post({ outcome: 'maybe' })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await post({ outcome: 'overturn' })).body.error).toMatchObject({ details: { field: 'action' } });
    expect((await post({ outcome: 'overturn', action: 'allow' })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await post({ outcome: 'confirm', action: 'block' })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await post({ outcome: 'confirm', categories: ['rudeness'] })).body.error.code).toBe(
      'INVALID_PARAMETER',
    );
    expect((await post({ outcome: 'confirm', note: 'n'.repeat(2001) })).body.error.code).toBe(
      'CONTENT_TOO_LARGE',
    );
    expect((await as(platform).post(`/v1/decisions/${id}/review`, { outcome: 'confirm' })).status).toBe(403);
    expect((await as(alice).post('/v1/decisions/dec_nope/review', { outcome: 'confirm' })).status).toBe(404);
  });

  it('an overturn changes the effective action, keeps the original, and its statement and events say so', async () => {
    const id = await check('hate:0.95 an insult');
    const claimed = await claimOn(t.app, alice, { reason: 'category' });
    expect(claimed.body.items.map((i: any) => i.decisionId)).toEqual([id]);
    const res = await as(alice).post(`/v1/decisions/${id}/review`, {
      outcome: 'overturn',
      action: 'allow',
      categories: [],
      note: 'quoted in a news report',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const review = {
      outcome: 'overturn',
      action: 'allow',
      previousAction: 'block',
      note: 'quoted in a news report',
      reviewer: { name: 'alice', keyId: expect.stringMatching(/^key_/) },
      direct: false,
    };
    expect(res.body).toMatchObject({ decisionId: id, action: 'block', effectiveAction: 'allow', review });
    const got = await as(platform).get(`/v1/decisions/${id}`);
    expect(got.body).toMatchObject({ action: 'block', safe: false, effectiveAction: 'allow', review });
    const listed = (await as(platform).get('/v1/decisions?limit=100')).body.decisions;
    expect(listed.find((d: any) => d.decisionId === id)).toMatchObject({ effectiveAction: 'allow', review });
    expect(listed.find((d: any) => d.decisionId !== id)).toMatchObject({ review: null });
    // no longer in the queue
    const queue = (await as(alice).get('/v1/review/queue?limit=100')).body.items;
    expect(queue.some((i: any) => i.decisionId === id)).toBe(false);

    const statement = await as(reader).get(`/v1/decisions/${id}/statement`);
    expect(statement.status, JSON.stringify(statement.body)).toBe(200);
    expect(statement.body).toMatchObject({
      decisionId: id,
      restriction: { action: 'allow', restricted: false, automatedAction: 'block', overturned: true },
      ground: {
        policyId: 'reviewed',
        policyVersion: 1,
        categories: [{ category: 'hate', score: 0.95, threshold: 0.5, action: 'block' }],
      },
      automation: {
        automatedDetection: true,
        automatedDecision: false,
        humanReview: { outcome: 'overturn', action: 'allow', previousAction: 'block' },
      },
      redress: { internalComplaint: { available: true, appeal: null } },
    });
    const text = await as(reader).get(`/v1/decisions/${id}/statement`, { accept: 'text/plain' });
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect(text.body).toContain(`Statement of reasons for decision ${id}`);
    expect(text.body).toContain('overturned on human review to "allow"');
    expect(text.body).toContain('Decided by automated means: no');
    expect(text.body).toContain('policy "reviewed" (version 1)');
    expect((await as(reader).get(`/v1/decisions/${id}/statement?format=text`)).body).toBe(text.body);

    await receiver.waitFor(
      () =>
        hits('decision.overturned').some((r) => r.json.data.id === id) &&
        hits('decision.reviewed').some((r) => r.json.data.id === id),
      10_000,
      'decision.overturned',
    );
    const reviewed = hits('decision.reviewed').find((r) => r.json.data.id === id)!;
    const overturned = hits('decision.overturned').find((r) => r.json.data.id === id)!;
    for (const event of [reviewed, overturned]) {
      expect(event.verifiedWith).not.toBeNull();
      expect(event.json.data).toMatchObject({
        decisionId: id,
        action: 'block',
        effectiveAction: 'allow',
        review,
      });
    }
  });

  it('appeals go first in the queue, one open at a time; the review resolves and announces them', async () => {
    const first = await check('violence:0.7 a scuffle');
    const appealed = await check('hate:0.8 something');
    const url = `/v1/decisions/${appealed}/appeals`;
    expect((await as(platform).post(url, {})).body.error.code).toBe('MISSING_REQUIRED_FIELD');
    expect((await as(platform).post(url, { statement: '   ' })).body.error.code).toBe('INVALID_CONTENT');
    expect((await as(platform).post(url, { statement: 'x'.repeat(5001) })).body.error.code).toBe(
      'CONTENT_TOO_LARGE',
    );
    expect((await as(reader).post(url, { statement: 'unfair' })).status).toBe(403);
    const filed = await as(platform).post(url, {
      statement: 'It was a quote, not my opinion',
      userId: 'u-17',
    });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    expect(filed.body).toMatchObject({
      decisionId: appealed,
      status: 'open',
      userId: 'u-17',
      resolvedAt: null,
    });
    const twice = await as(platform).post(url, { statement: 'again' });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({
      code: 'APPEAL_ALREADY_OPEN',
      details: { appealId: filed.body.appealId },
    });
    const statement = await as(reader).get(`/v1/decisions/${appealed}/statement`);
    expect(statement.body.redress.internalComplaint).toMatchObject({
      available: false,
      appeal: { status: 'open' },
    });

    // the appealed decision (newer) comes before the older one
    const queue = (await as(alice).get('/v1/review/queue?available=true&limit=100')).body.items;
    expect(queue[0]).toMatchObject({
      decisionId: appealed,
      reason: 'appeal',
      priority: 1,
      appealId: filed.body.appealId,
    });
    expect(queue.some((i: any) => i.decisionId === first)).toBe(true);
    const claimed = await claimOn(t.app, bob, { limit: 1 });
    expect(claimed.body.items[0].decisionId).toBe(appealed);

    const res = await as(bob).post(`/v1/decisions/${appealed}/review`, {
      outcome: 'confirm',
      categories: ['hate'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      effectiveAction: 'block',
      review: { outcome: 'confirm', appealId: filed.body.appealId },
    });
    const appeals = (await as(platform).get(url)).body.appeals;
    expect(appeals).toMatchObject([
      { appealId: filed.body.appealId, status: 'upheld', reviewId: res.body.review.reviewId },
    ]);
    await receiver.waitFor(
      () => hits('appeal.resolved').some((r) => r.json.data.appealId === filed.body.appealId),
      10_000,
      'appeal.resolved',
    );
    const resolved = hits('appeal.resolved').find((r) => r.json.data.appealId === filed.body.appealId)!;
    expect(resolved.json.data).toMatchObject({
      id: filed.body.appealId,
      decisionId: appealed,
      status: 'upheld',
      effectiveAction: 'block',
      review: { outcome: 'confirm', reviewer: { name: 'bob' } },
    });
    expect(hits('decision.overturned').some((r) => r.json.data.id === appealed)).toBe(false);
    // the audit log records who filed, reviewed and resolved (the account's admin reads it)
    const audit = await t.request('GET', `/v1/audit?accountId=${accountId}&targetId=${filed.body.appealId}`);
    expect(audit.status, JSON.stringify(audit.body)).toBe(200);
    expect(audit.body.entries.map((e: any) => e.action).sort()).toEqual(['appeal.filed', 'appeal.resolved']);
    const reviewedEntry = await t.request('GET', `/v1/audit?accountId=${accountId}&targetId=${appealed}`);
    expect(reviewedEntry.body.entries).toMatchObject([
      {
        action: 'decision.reviewed',
        actor: { kind: 'key', name: 'bob' },
        target: { type: 'decision', id: appealed },
        before: { effectiveAction: 'block' },
        after: { outcome: 'confirm', appealId: filed.body.appealId },
      },
    ]);
    // a new appeal may follow the resolved one
    expect((await as(platform).post(url, { statement: 'please look again' })).status).toBe(201);
  });

  it('reviews a decision that is not in the queue directly, and records it so', async () => {
    const id = await check('spam:0.95 cheap watches');
    const res = await as(alice).post(`/v1/decisions/${id}/review`, { outcome: 'overturn', action: 'block' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ action: 'warn', effectiveAction: 'block', review: { direct: true } });
    // a later review changes it again; the latest applies
    const back = await as(bob).post(`/v1/decisions/${id}/review`, { outcome: 'overturn', action: 'warn' });
    expect(back.body).toMatchObject({
      effectiveAction: 'warn',
      review: { previousAction: 'block', reviewer: { name: 'bob' } },
    });
  });

  it('an expired lease returns the item to the queue', async () => {
    const id = await check('hate:0.6 another');
    const mine = await claimOn(t.app, alice, { leaseSeconds: 5, reason: 'category' });
    expect(mine.body.items.map((i: any) => i.decisionId)).toEqual([id]);
    expect((await claimOn(app2, bob, { reason: 'category' })).body.items).toEqual([]);
    await sleep(5200);
    const taken = await claimOn(app2, bob, { reason: 'category' });
    expect(taken.body.items.map((i: any) => i.decisionId)).toEqual([id]);
    expect((await as(alice).post(`/v1/decisions/${id}/review`, { outcome: 'confirm' })).status).toBe(409);
    expect((await as(bob).post(`/v1/decisions/${id}/review`, { outcome: 'confirm' })).status).toBe(200);
  });

  it('exports statements as JSON lines: restrictions only unless all=true, within from/to', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/statements/export',
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.every((s) => s.restriction.restricted)).toBe(true);
    const times = lines.map((s) => s.decidedAt);
    expect([...times].sort()).toEqual(times);
    const all = await t.app.inject({
      method: 'GET',
      url: '/v1/statements/export?all=true',
      headers: { authorization: `Bearer ${reader}` },
    });
    const everything = all.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const total = (await as(reader).get('/v1/decisions?limit=100')).body.decisions.length;
    expect(everything.length).toBe(total);
    expect(everything.some((s) => s.restriction.overturned && !s.restriction.restricted)).toBe(true);
    const future = await as(reader).get('/v1/statements/export?from=2999-01-01T00:00:00Z');
    expect(future.status).toBe(200);
    expect(future.body).toBe('');
    expect((await as(reader).get('/v1/statements/export?from=yesterday')).body.error.code).toBe(
      'INVALID_PARAMETER',
    );
    expect((await as(alice).get('/v1/statements/export?page=2')).status).toBe(422);
    expect((await as(platform).get('/v1/decisions/dec_nope/statement')).status).toBe(404);
  });

  it('documents the routes, the events and the review scope in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).body;
    for (const path of [
      '/v1/review/queue',
      '/v1/review/queue/claim',
      '/v1/decisions/{decisionId}/review',
      '/v1/decisions/{decisionId}/appeals',
      '/v1/decisions/{decisionId}/statement',
      '/v1/statements/export',
    ])
      expect(doc.paths[path], path).toBeDefined();
    const events = JSON.stringify(doc.paths['/v1/webhooks'].post.requestBody);
    for (const type of ['decision.reviewed', 'decision.overturned', 'appeal.resolved'])
      expect(events).toContain(type);
    const created = await t.request('POST', '/v1/keys', {
      body: { name: 'r', scopes: ['review'], accountId },
    });
    expect(created.body.scopes).toEqual(['review']);
  });
});

describe('retention and human review', () => {
  it('deleting a decision after its retention period deletes its queue entry, reviews and appeals', async () => {
    const t = await createTestApp({
      overrides: { textProvider: new KeywordProvider() },
      config: { decisionRetentionMs: 60_000 },
    });
    try {
      const yamlContent = 'name: r\ncategories:\n  hate: { threshold: 0.5, action: block, review: true }\n';
      expect((await t.request('POST', '/v1/policies', { body: { policyId: 'r', yamlContent } })).status).toBe(
        201,
      );
      const ids: string[] = [];
      for (const content of ['hate:0.9 a', 'hate:0.9 b'])
        ids.push(
          (await t.request('POST', '/v1/check', { body: { content, policyId: 'r' } })).body.decisionId,
        );
      await t.request('POST', `/v1/decisions/${ids[0]}/review`, { body: { outcome: 'confirm' } });
      await t.request('POST', `/v1/decisions/${ids[1]}/appeals`, { body: { statement: 'no' } });
      expect((await t.request('GET', '/v1/review/queue')).body.items).toHaveLength(1);
      const swept = await t.ctx.retention.sweep(Date.now() + 120_000);
      expect(swept.deleted).toBe(2);
      expect((await t.request('GET', '/v1/review/queue')).body.items).toEqual([]);
      expect((await t.request('GET', `/v1/decisions/${ids[1]}/appeals`)).status).toBe(404);
      const db = t.ctx.database.db;
      for (const table of ['review_items', 'reviews', 'appeals'] as const) {
        const rows = await db.selectFrom(table).select('id').execute();
        expect(rows, table).toEqual([]);
      }
    } finally {
      await t.close();
    }
  });
});
