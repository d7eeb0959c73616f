import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  constructEvent,
  type Decision,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  UnprocessableEntityError,
  Verdict,
  VerdictError,
  verifyWebhookSignature,
} from '../src/index.ts';
import { type RunningVerdict, startVerdict } from './helpers/server.ts';

const POLICY_YAML = `name: Community
categories:
  hate: { threshold: 0.5, action: block }
  toxicity: { threshold: 0.6, action: flag }
`;

/** The SDK against a real Verdict server: every endpoint the server has, and its error vocabulary. */
describe('Verdict SDK against a real server', () => {
  let server: RunningVerdict;
  let admin: Verdict;
  /** A tenant account with a full set of non-admin scopes. */
  let client: Verdict;
  let accountId: string;

  beforeAll(async () => {
    server = await startVerdict();
    admin = new Verdict({ apiKey: server.adminKey, baseUrl: server.url });
    const account = await admin.accounts.create({ name: 'sdk-tenant' });
    accountId = account.accountId;
    const key = await admin.keys.create({
      name: 'sdk',
      accountId,
      scopes: [
        'check',
        'policies:read',
        'policies:write',
        'decisions:read',
        'webhooks:read',
        'webhooks:write',
      ],
    });
    client = new Verdict({ apiKey: key.key!, baseUrl: `${server.url}/` });
  });
  afterAll(() => server?.close());

  it('check: a real decision from the bundled model; idempotencyKey replays it', async () => {
    const result = await client.check({ content: 'you are a fucking idiot', policyId: 'default' });
    expect(result).toMatchObject({ flagged: true, safe: false, provider: 'local', policyId: 'default' });
    expect(result.decisionId).toMatch(/^dec_/);
    expect(result.categories.length).toBeGreaterThan(0);
    const again = await client.check(
      { content: 'hello friend', policyId: 'default' },
      { idempotencyKey: 'sdk-idem-1' },
    );
    const replayed = await client.check(
      { content: 'hello friend', policyId: 'default' },
      { idempotencyKey: 'sdk-idem-1' },
    );
    expect(replayed.decisionId).toBe(again.decisionId);
    expect(again.safe).toBe(true);
  });

  it('checkDryRun and checkMultimodal', async () => {
    const dry = await client.checkDryRun({ policyId: 'default', mockScores: { hate: 0.99 } });
    expect(dry).toMatchObject({ dryRun: true, action: 'block', flagged: true });
    const multi = await client.checkMultimodal({ text: 'have a nice day', policyId: 'default' });
    expect(multi).toMatchObject({ contentType: 'multimodal', safe: true });
    expect(multi.results).toHaveLength(1);
    expect(multi.results[0]!.contentType).toBe('text');
  });

  it('policies: create (201), new version (200), createOnly conflict, get, list, and 422 details', async () => {
    const created = await client.policies.create({ policyId: 'community', yamlContent: POLICY_YAML });
    expect(created).toMatchObject({ policyId: 'community', name: 'Community', version: 1, builtin: false });
    // a changed text is a new version; the same text again is not
    const changed = `${POLICY_YAML}# reviewed\n`;
    const updated = await client.policies.create({ policyId: 'community', yamlContent: changed });
    expect(updated.version).toBe(2);
    expect((await client.policies.create({ policyId: 'community', yamlContent: changed })).version).toBe(2);
    const conflict = await client.policies
      .create({ policyId: 'community', yamlContent: POLICY_YAML, createOnly: true })
      .catch((e) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'DUPLICATE_POLICY_ID' });
    expect((await client.policies.get('community')).categories.hate).toEqual({
      threshold: 0.5,
      action: 'block',
    });
    const ids = (await client.policies.list()).policies.map((p) => p.policyId);
    expect(ids).toEqual(expect.arrayContaining(['default', 'strict', 'permissive', 'community']));
    const invalid = await client.policies
      .create({
        policyId: 'bad',
        yamlContent: 'name: x\ncategories:\n  hate: { threshold: 2, action: block }\n',
      })
      .catch((e) => e);
    expect(invalid).toBeInstanceOf(UnprocessableEntityError);
    expect(invalid.code).toBe('INVALID_THRESHOLD');
    expect(invalid.details).toBeTypeOf('object');
    expect(invalid.requestId).toMatch(/^req_/);
  });

  it('decisions: get, replay, curl, one page, and async iteration over every page', async () => {
    const { key } = await server.t.newKey(['check', 'decisions:read', 'policies:read']);
    const own = new Verdict({ apiKey: key, baseUrl: server.url });
    const batch = await own.batch.check({
      policyId: 'default',
      items: Array.from({ length: 25 }, (_, i) => ({ id: `item-${i}`, content: `message number ${i}` })),
    });
    expect(batch.items).toHaveLength(25);
    const first = batch.items[0]!;
    const decision = await own.decisions.get(first.decisionId);
    expect(decision).toMatchObject({
      decisionId: first.decisionId,
      content: 'message number 0',
      replayOf: null,
    });

    const page = await own.decisions.list({ limit: 10 });
    expect(page).toMatchObject({ limit: 10, offset: 0, hasMore: true });
    expect(page.decisions).toHaveLength(10);
    const all: Decision[] = [];
    for await (const d of own.decisions.list({ limit: 10 })) all.push(d);
    expect(all).toHaveLength(25);
    expect(new Set(all.map((d) => d.decisionId))).toEqual(new Set(batch.items.map((i) => i.decisionId)));
    const fromOffset: string[] = [];
    for await (const d of own.decisions.list({ offset: 20 })) fromOffset.push(d.decisionId);
    expect(fromOffset).toEqual(all.slice(20).map((d) => d.decisionId));

    const replay = await own.decisions.replay(first.decisionId, { policyId: 'strict' });
    expect(replay).toMatchObject({ policyId: 'strict', replayOf: first.decisionId });
    const { curl } = await own.decisions.curl(first.decisionId);
    expect(curl).toContain('$VERDICT_API_KEY');
    expect(curl).toContain('/v1/check');

    const missing = await own.decisions.get('dec_missing').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'DECISION_NOT_FOUND' });
  });

  it('decisions filters, stats and policy validation (the web console API)', async () => {
    await client.check({ content: 'hello there', policyId: 'default', metadata: { userId: 'sdk-user' } });
    const mine = await client.decisions.list({ userId: 'sdk-user' });
    expect(mine.decisions).toHaveLength(1);
    expect(mine.decisions[0]!.metadata).toEqual({ userId: 'sdk-user' });
    const unknown = await client.decisions.list({ usrId: 'x' } as never).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(UnprocessableEntityError);
    expect((unknown as VerdictError).code).toBe('INVALID_PARAMETER');
    const stats = await client.stats.get({ bucket: 'hour' });
    expect(stats.totals.count).toBeGreaterThanOrEqual(1);
    expect(stats.buckets.length).toBeGreaterThanOrEqual(24);
    const valid = await client.policies.validate({ yamlContent: POLICY_YAML });
    expect(valid).toMatchObject({ valid: true, name: 'Community' });
    const invalid = await client.policies
      .validate({ yamlContent: 'name: x\ncategories: [' })
      .catch((e: unknown) => e);
    expect((invalid as VerdictError).code).toBe('INVALID_YAML');
    expect((invalid as VerdictError).details).toMatchObject({ line: expect.any(Number) });
  });

  it('batch: checkAsync is processed by the worker; get shows the items', async () => {
    const accepted = await client.batch.checkAsync({
      policyId: 'default',
      items: [
        { id: 'a', content: 'good morning' },
        { id: 'b', content: 'I will kill you' },
      ],
      webhookUrl: `${server.receiver.url}/batches`,
    });
    expect(accepted).toMatchObject({ status: 'processing', totalItems: 2 });
    expect(accepted.batchId).toMatch(/^bat_/);
    let status = await client.batch.get(accepted.batchId);
    for (let i = 0; i < 200 && status.status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await client.batch.get(accepted.batchId);
    }
    expect(status.status).toBe('completed');
    expect(status.items?.map((item) => item.id)).toEqual(['a', 'b']);
    const tooMany = await client.batch
      .check({
        policyId: 'default',
        items: Array.from({ length: 101 }, (_, i) => ({ id: `${i}`, content: 'x' })),
      })
      .catch((e) => e);
    expect(tooMany).toMatchObject({ status: 422, code: 'TOO_MANY_ITEMS' });
  });

  it('webhooks: create, list, get, update, test (verified with verifyWebhookSignature), deliveries, rotate, delete', async () => {
    const webhook = await client.webhooks.create({
      url: `${server.receiver.url}/sdk-hook`,
      events: ['decision.created'],
      description: 'sdk test',
    });
    expect(webhook.secret).toMatch(/^whsec_/);
    server.receiver.secrets.push(webhook.secret!);
    expect((await client.webhooks.list()).webhooks.map((w) => w.id)).toContain(webhook.id);
    expect((await client.webhooks.get(webhook.id)).secret).toBeUndefined();
    expect((await client.webhooks.update(webhook.id, { enabled: false })).enabled).toBe(false);
    expect((await client.webhooks.update(webhook.id, { enabled: true })).enabled).toBe(true);

    const test = await client.webhooks.test(webhook.id, { eventType: 'moderation.completed' });
    expect(test).toMatchObject({ success: true, responseCode: 200 });
    const received = server.receiver.requests.find((r) => r.eventId === test.eventId)!;
    const header = received.headers['x-service-signature'] as string;
    // The server's real signature verifies with the SDK, and fails with anything else.
    expect(verifyWebhookSignature(received.body, header, webhook.secret!)).toBe(true);
    expect(verifyWebhookSignature(`${received.body} `, header, webhook.secret!)).toBe(false);
    expect(verifyWebhookSignature(received.body, header, 'whsec_wrong')).toBe(false);
    const event = constructEvent(new TextEncoder().encode(received.body), header, webhook.secret!);
    expect(event).toMatchObject({ id: test.eventId, type: 'moderation.completed' });

    const { deliveries } = await client.webhooks.deliveries(webhook.id, { limit: 5 });
    expect(deliveries[0]).toMatchObject({ eventId: test.eventId, status: 'succeeded', responseCode: 200 });

    const rotated = await client.webhooks.rotateSecret(webhook.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(webhook.secret);
    expect(await client.webhooks.delete(webhook.id)).toEqual({ id: webhook.id, deleted: true });
    const gone = await client.webhooks.get(webhook.id).catch((e) => e);
    expect(gone).toMatchObject({ status: 404, code: 'WEBHOOK_NOT_FOUND' });
  });

  it('keys, accounts, account and usage', async () => {
    const keys = await admin.keys.list({ accountId });
    expect(keys.keys.length).toBeGreaterThan(0);
    expect(keys.keys[0]!.key).toBeUndefined();
    const updated = await admin.accounts.update(accountId, { monthlyQuota: 100000 });
    expect(updated.monthlyQuota).toBe(100000);
    expect((await admin.accounts.list({ limit: 1000 })).accounts.map((a) => a.accountId)).toContain(
      accountId,
    );
    const me = await client.account.get();
    expect(me).toMatchObject({ accountId, name: 'sdk-tenant' });
    // the signing secret of webhookUrl deliveries is for the account's admin keys only
    expect(me).not.toHaveProperty('signingSecret');
    const owner = await admin.keys.create({ name: 'owner', accountId, scopes: ['admin'] });
    const own = await new Verdict({ apiKey: owner.key!, baseUrl: server.url }).account.get();
    expect(own.signingSecret).toMatch(/^whsec_/);
    const usage = await client.usage.get();
    expect(usage.accountId).toBe(accountId);
    expect(usage.evaluations).toBeGreaterThan(0);
    const perKey = await new Verdict({ apiKey: owner.key!, baseUrl: server.url }).usage.byKey();
    expect(perKey.accountId).toBe(accountId);
    expect(perKey.checks).toBeGreaterThan(0);
    expect(perKey.keys.map((k) => k.keyId)).toContain(owner.id);

    const limited = await admin.keys.create({ name: 'read-only', accountId, scopes: ['decisions:read'] });
    const readOnly = new Verdict({ apiKey: limited.key!, baseUrl: server.url });
    const denied = await readOnly.check({ content: 'hi', policyId: 'default' }).catch((e) => e);
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect(denied).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(await admin.keys.revoke(limited.id)).toEqual({ id: limited.id, revoked: true });
    const revoked = await readOnly.decisions.list().catch((e) => e);
    expect(revoked).toBeInstanceOf(AuthenticationError);
    expect(revoked).toMatchObject({ status: 401, code: 'REVOKED_API_KEY' });
  });

  it('errors carry status, code, message and the request ID: 401 and 402', async () => {
    const stranger = new Verdict({ apiKey: 'vk_not_a_real_key_000000000000', baseUrl: server.url });
    const error = await stranger.policies.list().catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(VerdictError);
    expect(error).toMatchObject({ status: 401, code: 'INVALID_API_KEY', name: 'AuthenticationError' });
    expect(error.requestId).toMatch(/^req_/);
    expect(error.message.length).toBeGreaterThan(0);

    const broke = await admin.accounts.create({ name: 'no-quota', monthlyQuota: 0 });
    const key = await admin.keys.create({ name: 'q', accountId: broke.accountId, scopes: ['check'] });
    const quota = await new Verdict({ apiKey: key.key!, baseUrl: server.url })
      .check({ content: 'hello', policyId: 'default' })
      .catch((e) => e);
    expect(quota).toBeInstanceOf(PaymentRequiredError);
    expect(quota).toMatchObject({ status: 402, code: 'QUOTA_EXCEEDED' });
  });
});
