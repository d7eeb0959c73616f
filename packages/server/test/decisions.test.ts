import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';
import { curlArguments } from './helpers/process.ts';

describe.each(engines)('decisions: get, list, replay, curl (%s)', (engine) => {
  let t: TestApp;
  const provider = new KeywordProvider();
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: provider } });
  });
  afterAll(() => t.close());

  it('stores the full record of decisions §4 and hides it from other accounts', async () => {
    const check = await t.request('POST', '/v1/check', {
      body: {
        content: 'hate:0.7',
        policyId: 'default',
        language: 'de',
        metadata: { userId: 'u1' },
        requestId: 'r-1',
      },
    });
    const got = await t.request('GET', `/v1/decisions/${check.body.decisionId}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      decisionId: check.body.decisionId,
      content: 'hate:0.7',
      contentType: 'text',
      safe: false,
      flagged: true,
      action: 'block',
      policyId: 'default',
      policyVersion: 1,
      provider: 'test-keywords',
      cost: 0,
      language: 'de',
      metadata: { userId: 'u1' },
      requestId: 'r-1',
      replayOf: null,
    });
    expect(got.body.categories).toEqual(check.body.categories);
    expect(new Date(got.body.timestamp).toISOString()).toBe(got.body.timestamp);
    const other = await t.newKey(['decisions:read']);
    const hidden = await t.request('GET', `/v1/decisions/${check.body.decisionId}`, { key: other.key });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('DECISION_NOT_FOUND');
    expect((await t.request('GET', '/v1/decisions', { key: other.key })).body.decisions).toEqual([]);
    expect((await t.request('GET', '/v1/decisions/dec_missing')).body.error.code).toBe('DECISION_NOT_FOUND');
  });

  it('lists newest first with limit, offset and hasMore', async () => {
    const { key } = await t.newKey(['check', 'decisions:read']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await t.request('POST', '/v1/check', { key, body: { content: `n ${i}`, policyId: 'default' } })).body
          .decisionId,
      );
    }
    const page1 = await t.request('GET', '/v1/decisions?limit=2', { key });
    expect(page1.body).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    expect(page1.body.decisions.map((d: any) => d.decisionId)).toEqual([ids[4], ids[3]]);
    const page3 = await t.request('GET', '/v1/decisions?limit=2&offset=4', { key });
    expect(page3.body.decisions.map((d: any) => d.decisionId)).toEqual([ids[0]]);
    expect(page3.body.hasMore).toBe(false);
    expect((await t.request('GET', '/v1/decisions', { key })).body.limit).toBe(20);
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'limit=1.5', 'limit=', 'offset=']) {
      const bad = await t.request('GET', `/v1/decisions?${q}`, { key });
      expect(bad.status, q).toBe(422);
      expect(bad.body.error.code).toBe('INVALID_PARAMETER');
    }
  });

  it('replays with stored scores when they cover the new policy, without calling the provider', async () => {
    const original = await t.request('POST', '/v1/check', {
      body: { content: 'spam:0.85', policyId: 'default' },
    });
    expect(original.body.action).toBe('warn');
    const calls = provider.calls;
    const replay = await t.request('POST', `/v1/decisions/${original.body.decisionId}/replay`, {
      body: { policyId: 'strict' },
    });
    expect(replay.status).toBe(200);
    expect(provider.calls).toBe(calls);
    expect(replay.body).toMatchObject({
      action: 'flag',
      policyId: 'strict',
      replayOf: original.body.decisionId,
    });
    expect(replay.body.decisionId).not.toBe(original.body.decisionId);
    const stored = await t.request('GET', `/v1/decisions/${replay.body.decisionId}`);
    expect(stored.body).toMatchObject({
      replayOf: original.body.decisionId,
      content: 'spam:0.85',
      policyId: 'strict',
    });
  });

  it('re-evaluates when the stored scores do not cover the new policy', async () => {
    const narrow = `name: narrow\ncategories:\n  spam: {threshold: 0.5, action: flag}\n`;
    await t.request('POST', '/v1/policies', { body: { policyId: 'narrow', yamlContent: narrow } });
    const original = await t.request('POST', '/v1/check', {
      body: { content: 'hate:0.9', policyId: 'narrow' },
    });
    // Simulate a decision from a provider that judged only spam, as an external provider might.
    await t.ctx.database.db
      .updateTable('decisions')
      .set({ evaluated: JSON.stringify(['spam']) })
      .where('id', '=', original.body.decisionId)
      .execute();
    const calls = provider.calls;
    const replay = await t.request('POST', `/v1/decisions/${original.body.decisionId}/replay`, {
      body: { policyId: 'default' },
    });
    expect(replay.status).toBe(200);
    expect(provider.calls).toBe(calls + 1);
    expect(replay.body.action).toBe('block');
  });

  it('replay errors: unknown decision, missing or inaccessible policy', async () => {
    const original = await t.request('POST', '/v1/check', { body: { content: 'x', policyId: 'default' } });
    const id = original.body.decisionId;
    expect(
      (await t.request('POST', '/v1/decisions/dec_nope/replay', { body: { policyId: 'default' } })).status,
    ).toBe(404);
    expect((await t.request('POST', `/v1/decisions/${id}/replay`, { body: {} })).body.error.code).toBe(
      'MISSING_REQUIRED_FIELD',
    );
    expect(
      (await t.request('POST', `/v1/decisions/${id}/replay`, { body: { policyId: 'zzz' } })).body.error.code,
    ).toBe('POLICY_NOT_FOUND');
  });

  it('renders a shell-safe cURL command that reproduces the check, with $VERDICT_API_KEY', async () => {
    const content = `it's a "quoted" $HOME \`uname\` test; echo pwned`;
    const original = await t.request('POST', '/v1/check', {
      body: { content, policyId: 'default', metadata: { note: "O'Brien" } },
    });
    const res = await t.request('GET', `/v1/decisions/${original.body.decisionId}/curl`);
    expect(res.status).toBe(200);
    const { curl } = res.body;
    expect(curl).toContain('$VERDICT_API_KEY');
    expect(curl).not.toContain(t.adminKey);
    expect(curl).toContain(`'http://127.0.0.1:8080/v1/check'`);
    // Parse it with a real shell: echo the arguments instead of running curl, and check the JSON body survived.
    const { args, body } = await curlArguments(curl, { VERDICT_API_KEY: 'vk_example' });
    expect(args).toContain('Authorization: Bearer vk_example');
    expect(body).toEqual({
      content,
      policyId: 'default',
      contentType: 'text',
      metadata: { note: "O'Brien" },
    });
  });

  it('keeps a long text once in the stored decision; the cURL body and replay still have it', async () => {
    const content = `${'a long text about cats and weather. '.repeat(600)}end`;
    const original = await t.request('POST', '/v1/check', { body: { content, policyId: 'default' } });
    const id = original.body.decisionId as string;
    const row = await t.ctx.database.db
      .selectFrom('decisions')
      .select(['content', 'request'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.content).toBe(content);
    expect(row.request).not.toContain('cats');
    expect(row.request.length).toBeLessThan(500);
    const { curl } = (await t.request('GET', `/v1/decisions/${id}/curl`)).body;
    const body = JSON.parse(curl.slice(curl.indexOf("--data-raw '") + 12, curl.lastIndexOf("'")));
    expect(Object.keys(body)).toEqual(['content', 'policyId', 'contentType']);
    expect(body.content).toBe(content);
    const replay = await t.request('POST', `/v1/decisions/${id}/replay`, { body: { policyId: 'default' } });
    expect(replay.status).toBe(200);
    expect((await t.request('GET', `/v1/decisions/${replay.body.decisionId}`)).body.content).toBe(content);
  });
});

describe.each(engines)('replay with the bundled text model (%s)', (engine) => {
  it('shows highlights of categories the original policy did not list (they are kept with the decision)', async () => {
    const t = await createTestApp({ engine });
    try {
      const policy = await t.request('POST', '/v1/policies', {
        body: {
          policyId: 'spam-only',
          yamlContent: 'name: Spam only\ncategories:\n  spam: { threshold: 0.5, action: block }\n',
        },
      });
      expect(policy.status).toBe(201);
      const text = 'you are a fucking idiot';
      const original = await t.request('POST', '/v1/check', {
        body: { content: text, policyId: 'spam-only' },
      });
      expect(original.body.categories.map((c: any) => c.category)).toEqual(['spam']);
      const replay = await t.request('POST', `/v1/decisions/${original.body.decisionId}/replay`, {
        body: { policyId: 'default' },
      });
      const fresh = await t.request('POST', '/v1/check', { body: { content: text, policyId: 'default' } });
      const spans = (r: any) =>
        Object.fromEntries(r.body.categories.map((c: any) => [c.category, c.highlights ?? []]));
      expect(spans(fresh).profanity.length).toBeGreaterThan(0);
      expect(spans(replay)).toEqual(spans(fresh));
    } finally {
      await t.close();
    }
  });
});
