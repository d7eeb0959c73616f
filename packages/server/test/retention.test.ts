import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';

/** VERDICT_CONTENT_RETENTION redacts old content (scores kept); VERDICT_DECISION_RETENTION deletes old decisions. */
describe.each(engines)('retention (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      engine,
      config: { contentRetentionMs: 30 * 86_400_000, decisionRetentionMs: 365 * 86_400_000 },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const check = async (content: string) => {
    const res = await t.request('POST', '/v1/check', { body: { content, policyId: 'default' } });
    expect(res.status).toBe(200);
    return res.body.decisionId as string;
  };
  const age = (id: string, days: number) =>
    t.ctx.database.db
      .updateTable('decisions')
      .set({ created_at: new Date(Date.now() - days * 86_400_000).toISOString() })
      .where('id', '=', id)
      .execute();

  it('redacts content and highlight text after the content period, deletes after the decision period', async () => {
    const recent = await check('you are a stupid idiot, recent');
    const old = await check('you are a stupid idiot, from last quarter');
    const ancient = await check('you are a stupid idiot, from two years ago');
    await age(old, 40);
    await age(ancient, 400);
    const before = (await t.request('GET', `/v1/decisions/${old}`)).body;
    expect(before.content).toContain('last quarter');
    const highlighted = before.categories.flatMap(
      (c: { highlights?: { text: string }[] }) => c.highlights ?? [],
    );
    expect(highlighted.some((h: { text: string }) => h.text !== '')).toBe(true);

    const swept = await t.ctx.retention.sweep();
    expect(swept).toEqual({ redacted: 1, deleted: 1 });

    const redacted = (await t.request('GET', `/v1/decisions/${old}`)).body;
    expect(redacted.content).toBe('');
    expect(redacted.action).toBe(before.action);
    expect(redacted.categories.map((c: { score: number }) => c.score)).toEqual(
      before.categories.map((c: { score: number }) => c.score),
    );
    const texts = redacted.categories.flatMap((c: { highlights?: { text: string }[] }) =>
      (c.highlights ?? []).map((h) => h.text),
    );
    expect(texts.every((text: string) => text === '')).toBe(true);
    const row = await t.ctx.database.db
      .selectFrom('decisions')
      .selectAll()
      .where('id', '=', old)
      .executeTakeFirst();
    expect(JSON.stringify(row)).not.toContain('last quarter');
    expect(JSON.stringify(row)).not.toContain('idiot');

    expect((await t.request('GET', `/v1/decisions/${ancient}`)).status).toBe(404);
    expect((await t.request('GET', `/v1/decisions/${recent}`)).body.content).toContain('recent');

    // a redacted text decision still replays from its stored scores
    const replay = await t.request('POST', `/v1/decisions/${old}/replay`, { body: { policyId: 'default' } });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.action).toBe(before.action);

    expect(await t.ctx.retention.sweep()).toEqual({ redacted: 0, deleted: 0 });
  });
});

describe('doNotStore', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers with the highlights but stores the decision without content or highlight text', async () => {
    const text = 'you are a stupid idiot and a secret phrase 7781';
    const res = await t.request('POST', '/v1/check', {
      body: { content: text, policyId: 'default', doNotStore: true },
    });
    expect(res.status).toBe(200);
    const answered = res.body.categories.flatMap(
      (c: { highlights?: { text: string }[] }) => c.highlights ?? [],
    );
    expect(answered.some((h: { text: string }) => h.text !== '')).toBe(true);
    const stored = (await t.request('GET', `/v1/decisions/${res.body.decisionId}`)).body;
    expect(stored.content).toBe('');
    expect(stored.action).toBe(res.body.action);
    const rows = await t.ctx.database.db.selectFrom('decisions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('secret phrase');
    expect(JSON.stringify(rows)).not.toContain('idiot');

    const batch = await t.request('POST', '/v1/batch/check', {
      body: {
        policyId: 'default',
        items: [
          { id: 'a', content: 'batch secret 5512 idiot', doNotStore: true },
          { id: 'b', content: 'kept text 9034' },
        ],
      },
    });
    expect(batch.status).toBe(200);
    const all = JSON.stringify(await t.ctx.database.db.selectFrom('decisions').selectAll().execute());
    expect(all).not.toContain('batch secret');
    expect(all).toContain('kept text 9034');

    const bad = await t.request('POST', '/v1/check', {
      body: { content: 'x', policyId: 'default', doNotStore: 'yes' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: { field: 'doNotStore' } });
  });
});
