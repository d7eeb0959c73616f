import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/storage/migrations/index.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { photo, serve, type TestServer } from './helpers/images.ts';

/** An image server on loopback (the service may fetch from it in these tests): its URLs name a private path. */
async function imageServer(): Promise<TestServer> {
  const jpeg = await photo();
  return serve((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
}
const MEDIA = { allowHttpMedia: true, allowPrivateUrls: true };

/** VERDICT_CONTENT_RETENTION redacts old content (scores kept); VERDICT_DECISION_RETENTION deletes old decisions. */
describe.each(engines)('retention (%s)', (engine) => {
  let t: TestApp;
  let images: TestServer;
  beforeAll(async () => {
    images = await imageServer();
    t = await createTestApp({
      engine,
      config: { contentRetentionMs: 30 * 86_400_000, decisionRetentionMs: 365 * 86_400_000, ...MEDIA },
    });
  });
  afterAll(async () => {
    await t?.close();
    await images?.close();
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

  it('redacts a multi-modal decision whole: its text, its image and video addresses, in the record and the cURL', async () => {
    const url = `${images.url}/private/user-99/selfie.jpg`;
    const res = await t.request('POST', '/v1/check/multimodal', {
      body: { text: 'my secret diary entry 4417', images: [url], policyId: 'default' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.decisionId as string;
    const sha256 = res.body.media[0].sha256 as string;
    await age(id, 40);
    expect((await t.ctx.retention.sweep()).redacted).toBe(1);

    const redacted = (await t.request('GET', `/v1/decisions/${id}`)).body;
    expect(redacted.content).toBe('');
    expect(redacted.media).toEqual([{ ...res.body.media[0], ref: `sha256:${sha256}` }]);
    expect(redacted.results.map((r: { contentRef?: string }) => r.contentRef)).toEqual([
      undefined,
      `sha256:${sha256}`,
    ]);
    expect(redacted.action).toBe(res.body.action);
    const curl = (await t.request('GET', `/v1/decisions/${id}/curl`)).body.curl as string;
    const row = JSON.stringify(
      await t.ctx.database.db.selectFrom('decisions').selectAll().where('id', '=', id).executeTakeFirst(),
    );
    for (const kept of [curl, row, JSON.stringify(redacted)]) {
      expect(kept).not.toContain('diary');
      expect(kept).not.toContain('user-99');
    }
  });

  it('migration 0019 removes the addresses that rows redacted before it still named, and only from them', async () => {
    const url = `${images.url}/private/user-55/old.jpg`;
    const check = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', body.images ? '/v1/check/multimodal' : '/v1/check', { body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const single = await check({ content: url, contentType: 'image', policyId: 'default', doNotStore: true });
    const multi = await check({ text: 'old diary 6620', images: [url], policyId: 'default' });
    const kept = await check({ content: url, contentType: 'image', policyId: 'default' });
    await age(multi.decisionId, 40);
    await t.ctx.retention.sweep();
    // the rows as redaction left them before it covered addresses
    const db = t.ctx.database.db;
    const before = (id: string) =>
      db.selectFrom('decisions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const media = JSON.stringify(single.media);
    await db.updateTable('decisions').set({ media }).where('id', '=', single.decisionId).execute();
    const row = await before(multi.decisionId);
    const request = JSON.parse(row.request);
    request.body = { ...request.body, text: 'old diary 6620', images: [url] };
    const results = JSON.parse(row.results ?? '[]');
    results[1].contentRef = url;
    await db
      .updateTable('decisions')
      .set({ request: JSON.stringify(request), media, results: JSON.stringify(results) })
      .where('id', '=', multi.decisionId)
      .execute();
    expect(JSON.stringify(await before(multi.decisionId))).toContain('user-55');

    await migrations['0019-redacted-addresses']!.up(db);
    for (const id of [single.decisionId, multi.decisionId]) {
      const stored = JSON.stringify(await before(id));
      expect(stored).not.toContain('user-55');
      expect(stored).not.toContain('diary');
      expect(stored).toContain(`sha256:${single.media[0].sha256}`);
    }
    const curl = (await t.request('GET', `/v1/decisions/${multi.decisionId}/curl`)).body.curl as string;
    expect(curl).not.toContain('diary');
    // a decision that keeps its content keeps its URL; a second run changes nothing
    const untouched = await before(kept.decisionId);
    expect(untouched.media).toContain(url);
    const again = await before(multi.decisionId);
    await migrations['0019-redacted-addresses']!.up(db);
    expect(await before(multi.decisionId)).toEqual(again);
  });
});

describe('doNotStore', () => {
  let t: TestApp;
  let images: TestServer;
  beforeAll(async () => {
    images = await imageServer();
    t = await createTestApp({ config: MEDIA });
  });
  afterAll(async () => {
    await t?.close();
    await images?.close();
  });

  it('stores an image checked by URL as its digest, without the URL', async () => {
    const url = `${images.url}/private/user-77/photo.jpg`;
    const res = await t.request('POST', '/v1/check', {
      body: { content: url, contentType: 'image', policyId: 'default', doNotStore: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.media[0].ref).toBe(url); // the answer keeps it
    const stored = (await t.request('GET', `/v1/decisions/${res.body.decisionId}`)).body;
    expect(stored.content).toBe('');
    expect(stored.media).toEqual([{ ...res.body.media[0], ref: `sha256:${res.body.media[0].sha256}` }]);
    const rows = await t.ctx.database.db.selectFrom('decisions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('user-77');
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
