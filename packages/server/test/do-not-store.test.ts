import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines, tempDir } from './helpers/databases.ts';
import { dataUri, photo, serve } from './helpers/images.ts';
import { makeVideo, uploadVideo, videoEnded } from './helpers/videos.ts';

/** Every row of every table of the service's database as one string (binary columns as Latin-1 text). */
async function everything(t: TestApp): Promise<string> {
  const { db, engine } = t.ctx.database;
  const tables =
    engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows
      : (
          await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
        ).rows;
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)).rows;
    parts.push(
      JSON.stringify(rows, (_k, v) =>
        v && typeof v === 'object' && v.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v,
      ),
    );
  }
  return parts.join('\n');
}

/** Every file under the data directory, with its path (evidence frames, uploads, the SQLite file). */
function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

const highlightTexts = (body: any): string[] =>
  (body.categories ?? []).flatMap((c: { highlights?: { text: string }[] }) =>
    (c.highlights ?? []).map((h) => h.text),
  );

/**
 * `doNotStore: true` (docs/api.md): the decision is stored, and sent in events, without its content, the text of
 * its highlights and the text read in its images; the answer still carries them. Checked on every path that stores
 * content: decisions, the search index, events and deliveries, idempotent responses, async batches, multi-modal
 * checks and videos (their rows and evidence frames).
 */
describe.each(engines)('doNotStore on every path (%s)', (engine) => {
  let t: TestApp;
  let worker: RunningWorker;
  beforeAll(async () => {
    t = await createTestApp({
      engine,
      config: { allowPrivateUrls: true, allowHttpMedia: true, imageWorkers: 1 },
    });
    worker = startWorker(t.ctx, { pollMs: 50 });
    // every stored decision is announced to a subscribed webhook, so the events table holds their payloads
    const hook = await t.ctx.database.db
      .insertInto('webhooks')
      .values({
        id: 'whk_dns',
        account_id: (await t.request('GET', '/v1/account')).body.accountId,
        url: 'https://127.0.0.1:9/hook',
        events: JSON.stringify(['decision.created', 'moderation.completed']),
        secret: 'whsec_test',
        previous_secret: null,
        previous_secret_expires_at: null,
        description: null,
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .execute()
      .catch((error: unknown) => error);
    expect(hook instanceof Error ? hook.message : 'ok').toBe('ok');
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 1000 });
    await t?.close();
  });

  it('/v1/check with an idempotency key: the stored response a replay answers holds no highlight text', async () => {
    const text = 'you are a stupid idiot, said wombatlantern4410';
    const send = () =>
      t.request('POST', '/v1/check', {
        body: { content: text, policyId: 'default', doNotStore: true },
        headers: { 'idempotency-key': 'dns-check-1' },
      });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(highlightTexts(first.body).some((h) => h.includes('idiot'))).toBe(true);
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.decisionId).toBe(first.body.decisionId);
    expect(replay.body.action).toBe(first.body.action);
    expect(highlightTexts(replay.body).every((h) => h === '')).toBe(true);
    const all = await everything(t);
    expect(all).not.toContain('wombatlantern4410');
    expect(all).not.toContain('idiot');
  });

  it('async batches: the doNotStore item leaves nothing once the batch is done; the other item is kept', async () => {
    const res = await t.request('POST', '/v1/batch/check/async', {
      body: {
        policyId: 'default',
        webhookUrl: 'https://127.0.0.1:9/batch',
        items: [
          { id: 'secret', content: 'you idiot, marmalade otter 5512 quixotry', doNotStore: true },
          { id: 'kept', content: 'kept text about a heron 9034' },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    let batch: any;
    const deadline = Date.now() + 15_000;
    do {
      await sleep(50);
      batch = (await t.request('GET', `/v1/batch/${res.body.batchId}`)).body;
    } while (batch.status === 'processing' && Date.now() < deadline);
    expect(batch.status).toBe('completed');
    const secret = batch.items.find((i: { id: string }) => i.id === 'secret');
    const stored = (await t.request('GET', `/v1/decisions/${secret.decisionId}`)).body;
    expect(stored.content).toBe('');
    expect(highlightTexts(stored).every((h) => h === '')).toBe(true);
    const found = await t.request('GET', '/v1/decisions?q=quixotry');
    expect(found.body.decisions).toEqual([]);
    expect((await t.request('GET', '/v1/decisions?q=heron')).body.decisions).toHaveLength(1);
    const all = await everything(t);
    expect(all).toContain('heron 9034'); // the dump sees stored content
    expect(all).not.toContain('quixotry');
    expect(all).not.toContain('idiot');
  });

  it('multi-modal checks: stored and announced without text, image references or highlight text', async () => {
    const image = dataUri(await photo('png', 64, 48), 'image/png');
    const body = {
      text: 'what a stupid idiot, pelican sesquipedalian 7781',
      images: [image],
      policyId: 'default',
      doNotStore: true,
    };
    const send = () =>
      t.request('POST', '/v1/check/multimodal', { body, headers: { 'idempotency-key': 'dns-mm-1' } });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.results[1].contentRef).toMatch(/^sha256:/);
    // the answer keeps the text item's highlights
    expect(highlightTexts(first.body.results[0]).some((h) => h.includes('idiot'))).toBe(true);
    const sha = (first.body.results[1].contentRef as string).slice('sha256:'.length);
    const stored = (await t.request('GET', `/v1/decisions/${first.body.decisionId}`)).body;
    expect(stored.content).toBe('');
    expect(stored.action).toBe(first.body.action);
    expect(highlightTexts(stored.results[0]).every((h) => h === '')).toBe(true);
    // an image's reference is left in its fingerprint form (sha256:…), as the media's SHA-256 is kept anyway
    expect(stored.results[1].contentRef).toBe(`sha256:${sha}`);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.decisionId).toBe(first.body.decisionId);
    expect(JSON.stringify(replay.body)).not.toContain('sesquipedalian');
    expect(replay.body.results[1].contentRef).toBe(`sha256:${sha}`);
    // announced: the dump below includes the event's payload
    const events = await t.ctx.database.db
      .selectFrom('events')
      .select('payload')
      .where('type', '=', 'decision.created')
      .execute();
    expect(events.some((e) => e.payload.includes(first.body.decisionId))).toBe(true);
    const all = await everything(t);
    expect(all).not.toContain('sesquipedalian');
    expect(all).not.toContain('idiot');

    const bad = await t.request('POST', '/v1/check/multimodal', {
      body: { text: 'x', policyId: 'default', doNotStore: 'yes' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_PARAMETER' });
  });

  it('an image decided by a hash bank: the match keeps no reference to the image', async () => {
    const bytes = await photo('jpeg');
    const images = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(bytes),
    );
    try {
      expect((await t.request('POST', '/v1/banks', { body: { name: 'dns-bank' } })).status).toBe(201);
      const item = await t.request('POST', '/v1/banks/dns-bank/items', {
        body: { image: bytes.toString('base64') },
      });
      expect(item.status, JSON.stringify(item.body)).toBe(201);
      const policy = await t.request('POST', '/v1/policies', {
        body: {
          policyId: 'dns-banked',
          yamlContent:
            'name: banked\ncategories:\n  sexual: { threshold: 0.8, action: block }\n' +
            'banks:\n  - { bank: dns-bank, action: block, maxDistance: 31 }\n',
        },
      });
      expect(policy.status, JSON.stringify(policy.body)).toBe(201);
      const url = `${images.url}/private/okapi-harbour-2210.jpg`;
      const res = await t.request('POST', '/v1/check', {
        body: { content: url, contentType: 'image', policyId: 'dns-banked', doNotStore: true },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.bankMatch.contentRef).toBe(url); // the answer names it
      const stored = (await t.request('GET', `/v1/decisions/${res.body.decisionId}`)).body;
      const digest = createHash('sha256').update(bytes).digest('hex');
      expect(stored).toMatchObject({
        content: '',
        action: 'block',
        bankMatch: { contentRef: `sha256:${digest}` },
      });
      expect(await everything(t)).not.toContain('okapi-harbour-2210');
    } finally {
      await images.close();
    }
  });

  it('videos: no URL or upload hash in the video or its decision, and no evidence frames kept', async () => {
    const policy = await t.request('POST', '/v1/policies', {
      body: {
        policyId: 'every-frame',
        yamlContent: 'name: every frame\ncategories:\n  suggestive:\n    threshold: 0\n    action: flag\n',
      },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const dir = tempDir('verdict-dns-video-');
    try {
      const clip = fs.readFileSync(makeVideo(dir, 'clip.mp4', { seconds: 2 }));
      const upload = (fields: Record<string, string>) =>
        uploadVideo(
          t.app,
          t.adminKey,
          { policyId: 'every-frame', ...fields },
          { name: 'clip.mp4', bytes: clip },
        );
      // the same upload without doNotStore keeps its hash and evidence: what the other must not
      const kept = await upload({});
      const hidden = await upload({ doNotStore: 'true' });
      expect(hidden.status, JSON.stringify(hidden.body)).toBe(202);
      const shown = (await videoEnded(t, t.adminKey, kept.body.decisionId)).body;
      const done = (await videoEnded(t, t.adminKey, hidden.body.decisionId)).body;
      expect(shown.results[0].evidence.url).toMatch(/\/v1\/evidence\//);
      const sha = (shown.content as string).slice('upload:sha256:'.length);
      expect(sha).toMatch(/^[0-9a-f]{64}$/);
      expect(done).toMatchObject({ status: 'completed', flagged: true, content: '' });
      expect(done.results).toHaveLength(shown.results.length);
      expect(done.results.every((r: { evidence?: unknown }) => r.evidence === undefined)).toBe(true);
      // evidence frames: files on SQLite, the blobs table on PostgreSQL (a video's own upload copy is removed
      // just after its result is committed, so it is not looked at)
      const stored =
        engine === 'sqlite'
          ? files(t.config.dataDir).filter((f) => f.endsWith('.jpg'))
          : (await t.ctx.database.db.selectFrom('blobs').select('key').execute())
              .map((b) => b.key)
              .filter((key) => key.startsWith('evidence/'));
      expect(stored.some((f) => f.includes(kept.body.decisionId))).toBe(true);
      expect(stored.filter((f) => f.includes(hidden.body.decisionId))).toEqual([]);
      const rows = await t.ctx.database.db
        .selectFrom('videos')
        .selectAll()
        .where('id', '=', hidden.body.decisionId)
        .execute();
      expect(JSON.stringify(rows)).not.toContain(sha);
      const decision = await t.ctx.database.db
        .selectFrom('decisions')
        .selectAll()
        .where('id', '=', hidden.body.decisionId)
        .execute();
      expect(JSON.stringify(decision)).not.toContain(sha);
      // its events (decision.created, moderation.completed) carry the redacted result
      const events = (
        await t.ctx.database.db.selectFrom('events').select(['type', 'payload']).execute()
      ).filter((e) => e.payload.includes(hidden.body.decisionId));
      expect(events.map((e) => e.type).sort()).toEqual(['decision.created', 'moderation.completed']);
      expect(JSON.stringify(events)).not.toContain(sha);

      const bad = await upload({ doNotStore: 'yes' });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_PARAMETER' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
