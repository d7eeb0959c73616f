import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/context.ts';
import type { CategoryName } from '../src/domain/taxonomy.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { videoTools } from '../src/media/video/ffmpeg.ts';
import type { Provider, ProviderResult } from '../src/providers/provider.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { serve, type TestServer } from './helpers/images.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'pdq');
const photo = (name: string) => fs.readFileSync(path.join(fixtures, name));

/** Test-only image provider that counts its calls: shows whether a model ran. Never reachable from production. */
class CountingImageProvider implements Provider {
  readonly name = 'test-image';
  readonly contentTypes = ['image'] as const;
  readonly categories: CategoryName[] = ['sexual', 'suggestive'];
  readonly modelVersion = 'counting-1';
  calls = 0;
  async evaluate(): Promise<ProviderResult> {
    this.calls++;
    return {
      scores: { sexual: 0.01, suggestive: 0.02 },
      evaluated: ['sexual', 'suggestive'],
      modelVersion: 'c',
      cost: 0,
    };
  }
}

const POLICY = (bank: string, extra = '') => `name: Banked
categories:
  sexual: { threshold: 0.8, action: block }
banks:
  - { bank: ${bank}, action: block, maxDistance: 31 }${extra}
`;

describe.each(engines)('hash banks (%s)', (engine) => {
  let t: TestApp;
  let images: TestServer;
  const provider = new CountingImageProvider();
  const banked = photo('q2821.jpg');
  const unrelated = photo('q0291.jpg');
  const fetchOverrides = {
    isAllowedAddress: (ip: string) => ip === '127.0.0.1',
    lookup: async (host: string) => [
      { address: host.endsWith('.public.test') ? '127.0.0.1' : '127.0.0.2', family: 4 as const },
    ],
  };

  beforeAll(async () => {
    images = await serve((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(banked));
    t = await createTestApp({
      engine,
      config: { allowHttpMedia: true },
      overrides: { imageProvider: provider, imageFetch: fetchOverrides },
    });
  });
  afterAll(async () => {
    await t?.close();
    await images?.close();
  });

  const check = (bytes: Buffer, policyId: string, key?: string) =>
    t.request('POST', '/v1/check', {
      ...(key && { key }),
      body: { content: bytes.toString('base64'), contentType: 'image', policyId },
    });

  it('creates, lists, gets (by ID or name) and deletes banks; names are unique per account', async () => {
    const created = await t.request('POST', '/v1/banks', { body: { name: 'crud', description: 'd' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'crud', description: 'd', itemCount: 0 });
    expect(created.body.id).toMatch(/^bnk_/);
    expect((await t.request('POST', '/v1/banks', { body: { name: 'crud' } })).body.error.code).toBe(
      'DUPLICATE_BANK',
    );
    for (const name of ['', 'has space', 'bnk_x', 'x'.repeat(65), 7]) {
      const res = await t.request('POST', '/v1/banks', { body: { name } });
      expect(res.status).toBe(422);
    }
    expect((await t.request('POST', '/v1/banks', { body: {} })).body.error.code).toBe(
      'MISSING_REQUIRED_FIELD',
    );
    expect((await t.request('GET', `/v1/banks/${created.body.id}`)).body.name).toBe('crud');
    expect((await t.request('GET', '/v1/banks/crud')).body.id).toBe(created.body.id);
    const list = await t.request('GET', '/v1/banks');
    expect(list.body.banks.map((b: { name: string }) => b.name)).toContain('crud');
    expect((await t.request('DELETE', '/v1/banks/crud')).body).toEqual({
      id: created.body.id,
      deleted: true,
    });
    const gone = await t.request('GET', `/v1/banks/${created.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('BANK_NOT_FOUND');
  });

  it('adds images (base64 or URL) and hashes, refuses duplicates and bad input, lists and deletes items', async () => {
    await t.request('POST', '/v1/banks', { body: { name: 'items' } });
    const added = await t.request('POST', '/v1/banks/items/items', {
      body: { image: banked.toString('base64'), label: 'case 17' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({ label: 'case 17', source: 'image', pdqQuality: 100 });
    expect(added.body.pdq).toBe('b150231ffae4710ffcf4f18bb574b109a576f14bb8543189f8743289f174b109');
    expect(added.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(added.body.md5).toMatch(/^[0-9a-f]{32}$/);
    const again = await t.request('POST', '/v1/banks/items/items', {
      body: { image: banked.toString('base64') },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'DUPLICATE_BANK_ITEM',
      details: { itemId: added.body.id },
    });

    const byUrl = await t.request('POST', '/v1/banks/items/items', {
      body: { image: `http://img.public.test:${images.port}/x.jpg` },
    });
    expect(byUrl.status).toBe(409); // same bytes as the base64 one
    const internal = await t.request('POST', '/v1/banks/items/items', {
      body: { image: `http://internal.test:${images.port}/x.jpg` },
    });
    expect(internal.status).toBe(422);
    expect(internal.body.error.code).toBe('INVALID_IMAGE_URL');

    const hash = await t.request('POST', '/v1/banks/items/items', {
      body: { hash: 'A'.repeat(64), label: 'h' },
    });
    expect(hash.status).toBe(201);
    expect(hash.body).toMatchObject({ pdq: 'a'.repeat(64), sha256: null, md5: null, source: 'hash' });
    const md5 = await t.request('POST', '/v1/banks/items/items', {
      body: { hash: 'b'.repeat(32), hashType: 'md5' },
    });
    expect(md5.body.md5).toBe('b'.repeat(32));
    for (const body of [
      { hash: 'xyz' },
      { hash: 'a'.repeat(63) },
      { hash: 'a'.repeat(64), hashType: 'md5' },
      { hash: 'a'.repeat(64), hashType: 'sha1' },
      { hash: 'a'.repeat(64), image: banked.toString('base64') },
      { image: 'not base64 !!' },
      { image: Buffer.from('<svg/>').toString('base64') },
      { hash: 'c'.repeat(64), label: 'x'.repeat(201) },
    ]) {
      const res = await t.request('POST', '/v1/banks/items/items', { body });
      expect({ body: Object.keys(body), status: res.status }).toEqual({
        body: Object.keys(body),
        status: 422,
      });
    }
    expect((await t.request('POST', '/v1/banks/items/items', { body: {} })).body.error.code).toBe(
      'MISSING_REQUIRED_FIELD',
    );
    expect((await t.request('POST', '/v1/banks/nope/items', { body: { hash: 'a'.repeat(64) } })).status).toBe(
      404,
    );

    const page = await t.request('GET', '/v1/banks/items/items?limit=2');
    expect(page.body).toMatchObject({ limit: 2, offset: 0, hasMore: true });
    expect(page.body.items).toHaveLength(2);
    expect((await t.request('GET', '/v1/banks/items/items?limit=0')).status).toBe(422);
    expect((await t.request('GET', '/v1/banks/items')).body.itemCount).toBe(3);
    expect((await t.request('DELETE', `/v1/banks/items/items/${hash.body.id}`)).body).toEqual({
      id: hash.body.id,
      deleted: true,
    });
    const missing = await t.request('DELETE', `/v1/banks/items/items/${hash.body.id}`);
    expect(missing.body.error.code).toBe('BANK_ITEM_NOT_FOUND');
    expect((await t.request('GET', '/v1/banks/items')).body.itemCount).toBe(2);
  });

  it('imports CSV hash lists as ThreatExchange/HMA export them, and plain lists; a bad row fails the import', async () => {
    await t.request('POST', '/v1/banks', { body: { name: 'imported' } });
    const csv = (body: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/banks/imported/import',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'text/csv' },
        payload: body,
      });
    const hma = [
      'signal_type,signal_str,collab,category,tags',
      `pdq,${'1'.repeat(64)},Sample Data,ADVERSARIAL_EXAMPLE,"tag1 tag2"`,
      `pdq,${'2'.repeat(64)},Sample Data,NON_MALICIOUS,`,
      `md5,${'3'.repeat(32)},Sample Data,,`,
      '',
    ].join('\r\n');
    const first = await csv(hma);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ received: 3, added: 3, duplicates: 0, bank: { itemCount: 3 } });
    const plain = await csv(
      `${'1'.repeat(64)}\n${'4'.repeat(64)},plain label\n# comment\n${'4'.repeat(64)}\n`,
    );
    expect(plain.json()).toMatchObject({ received: 3, added: 1, duplicates: 2, bank: { itemCount: 4 } });
    const items = (await t.request('GET', '/v1/banks/imported/items?limit=100')).body.items;
    expect(items.find((i: { pdq: string }) => i.pdq === '1'.repeat(64)).label).toBe(
      'ADVERSARIAL_EXAMPLE tag1 tag2',
    );
    expect(items.find((i: { pdq: string }) => i.pdq === '4'.repeat(64)).label).toBe('plain label');

    const bad = await csv(`${'5'.repeat(64)}\nnot-a-hash\n`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({
      code: 'INVALID_PARAMETER',
      details: { line: 2, reason: 'hash' },
    });
    const badType = await csv(`signal_type,signal_str\nurl,https://example.com\n`);
    expect(badType.json().error.details).toMatchObject({ line: 2, reason: 'hash_type' });
    expect((await t.request('GET', '/v1/banks/imported')).body.itemCount).toBe(4); // nothing of the failed imports
    expect((await csv('')).statusCode).toBe(422);
    const json = await t.request('POST', '/v1/banks/imported/import', {
      body: { csv: `${'6'.repeat(64)}\n` },
    });
    expect(json.body).toMatchObject({ received: 1, added: 1, bank: { itemCount: 5 } });
    expect((await t.request('POST', '/v1/banks/imported/import', { body: { csv: 5 } })).status).toBe(422);
    const xml = await t.app.inject({
      method: 'POST',
      url: '/v1/banks/imported/import',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/xml' },
      payload: '<x/>',
    });
    expect(xml.statusCode).toBe(415);
  });

  it('validates the banks of a policy: known bank names, actions, distances', async () => {
    await t.request('POST', '/v1/banks', { body: { name: 'policy-bank' } });
    const save = (policyId: string, yamlContent: string) =>
      t.request('POST', '/v1/policies', { body: { policyId, yamlContent } });
    const ok = await save('banked-ok', POLICY('policy-bank'));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.banks).toEqual([{ bank: 'policy-bank', action: 'block', maxDistance: 31 }]);
    expect((await t.request('GET', '/v1/policies/banked-ok')).body.banks).toHaveLength(1);
    const unknown = await save('banked-bad', POLICY('no-such-bank'));
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { reason: 'unknown_bank' } });
    const badAction = await save(
      'banked-bad',
      POLICY('policy-bank').replace('action: block, maxDistance', 'action: ban, maxDistance'),
    );
    expect(badAction.body.error.code).toBe('INVALID_ACTION');
    const badDistance = await save(
      'banked-bad',
      POLICY('policy-bank').replace('maxDistance: 31', 'maxDistance: 300'),
    );
    expect(badDistance.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { line: 5 } });
    const twice = await save(
      'banked-bad',
      POLICY('policy-bank', '\n  - { bank: policy-bank, action: flag }'),
    );
    expect(twice.body.error.code).toBe('INVALID_POLICY');
    const notList = await save(
      'banked-bad',
      'name: x\ncategories:\n  sexual: { threshold: 0.5, action: flag }\nbanks: yes\n',
    );
    expect(notList.body.error.code).toBe('INVALID_POLICY');
  });

  it('decides a banked image, or a resized, re-encoded or slightly cropped copy, before any model runs', async () => {
    await t.request('POST', '/v1/banks', { body: { name: 'known-abuse' } });
    const item = await t.request('POST', '/v1/banks/known-abuse/items', {
      body: { image: banked.toString('base64'), label: 'known case' },
    });
    await t.request('POST', '/v1/policies', {
      body: { policyId: 'screened', yamlContent: POLICY('known-abuse') },
    });
    const copies: [string, Buffer, 'sha256' | 'pdq'][] = [
      ['exact', banked, 'sha256'],
      ['resized', await sharp(banked).resize(180, 180).jpeg({ quality: 60 }).toBuffer(), 'pdq'],
      ['png', await sharp(banked).png().toBuffer(), 'pdq'],
      [
        'cropped',
        await sharp(banked).extract({ left: 2, top: 2, width: 252, height: 252 }).toBuffer(),
        'pdq',
      ],
    ];
    for (const [name, bytes, matchedOn] of copies) {
      const before = provider.calls;
      const res = await check(bytes, 'screened');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect({ name, action: res.body.action, safe: res.body.safe, flagged: res.body.flagged }).toEqual({
        name,
        action: 'block',
        safe: false,
        flagged: true,
      });
      expect(res.body.bankMatch).toMatchObject({
        bank: 'known-abuse',
        itemId: item.body.id,
        label: 'known case',
        matchedOn,
        maxDistance: 31,
        action: 'block',
      });
      expect(res.body.bankMatch.distance).toBeLessThanOrEqual(matchedOn === 'sha256' ? 0 : 31);
      expect(res.body.provider).toBe('banks');
      expect(res.body.categories).toEqual([
        { category: 'sexual', score: 0, threshold: 0.8, triggered: false, evaluated: false },
      ]);
      expect(provider.calls).toBe(before); // no model ran
      const stored = await t.request('GET', `/v1/decisions/${res.body.decisionId}`);
      expect(stored.body.bankMatch).toEqual(res.body.bankMatch);
    }

    const before = provider.calls;
    const other = await check(unrelated, 'screened');
    expect(other.body.action).toBe('allow');
    expect(other.body.bankMatch).toBeUndefined();
    expect(provider.calls).toBe(before + 1);

    // Removing the item takes effect at the next check (the index follows the bank's version).
    await t.request('DELETE', `/v1/banks/known-abuse/items/${item.body.id}`);
    const after = await check(banked, 'screened');
    expect(after.body.action).toBe('allow');
    expect(after.body.bankMatch).toBeUndefined();
  });

  it('keeps instances in sync: an item added through one instance is matched by another at once', async () => {
    const second = await createContext(
      t.config,
      { bootstrapKey: ADMIN_KEY },
      {
        imageProvider: provider,
        imageFetch: fetchOverrides,
      },
    );
    const app2 = await buildApp(second);
    try {
      await t.request('POST', '/v1/banks', { body: { name: 'synced' } });
      await t.request('POST', '/v1/policies', {
        body: { policyId: 'synced', yamlContent: POLICY('synced') },
      });
      const checkOn2 = async () =>
        (
          await app2.inject({
            method: 'POST',
            url: '/v1/check',
            headers: { authorization: `Bearer ${ADMIN_KEY}` },
            payload: { content: unrelated.toString('base64'), contentType: 'image', policyId: 'synced' },
          })
        ).json();
      expect((await checkOn2()).action).toBe('allow'); // instance 2 has now loaded the (empty) bank
      await t.request('POST', '/v1/banks/synced/items', { body: { image: unrelated.toString('base64') } });
      expect((await checkOn2()).bankMatch).toMatchObject({ bank: 'synced', matchedOn: 'sha256' });
    } finally {
      await app2.close();
      await second.close();
    }
  });

  it("isolates accounts: another account's banks are invisible, unusable in policies and untouchable", async () => {
    await t.request('POST', '/v1/banks', { body: { name: 'private-bank' } });
    await t.request('POST', '/v1/banks/private-bank/items', { body: { image: banked.toString('base64') } });
    const other = await t.newKey(['check', 'policies:read', 'policies:write', 'banks:read', 'banks:write']);
    const as = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
      t.request(method, url, { key: other.key, ...(body !== undefined && { body }) });
    expect((await as('GET', '/v1/banks')).body.banks).toEqual([]);
    const bankId = (await t.request('GET', '/v1/banks/private-bank')).body.id;
    for (const [method, url, body] of [
      ['GET', `/v1/banks/${bankId}`],
      ['GET', '/v1/banks/private-bank'],
      ['GET', `/v1/banks/${bankId}/items`],
      ['POST', `/v1/banks/${bankId}/items`, { hash: 'd'.repeat(64) }],
      ['DELETE', `/v1/banks/${bankId}`],
    ] as const) {
      const res = await as(method, url, body);
      expect({ url, method, code: res.body.error?.code }).toEqual({ url, method, code: 'BANK_NOT_FOUND' });
    }
    const policy = await as('POST', '/v1/policies', {
      policyId: 'theirs',
      yamlContent: POLICY('private-bank'),
    });
    expect(policy.body.error.details.reason).toBe('unknown_bank');
    // Their own bank of the same name is theirs alone: the owner's items do not match through it.
    expect((await as('POST', '/v1/banks', { name: 'private-bank' })).status).toBe(201);
    await as('POST', '/v1/policies', { policyId: 'theirs', yamlContent: POLICY('private-bank') });
    const res = await check(banked, 'theirs', other.key);
    expect(res.body.bankMatch).toBeUndefined();
    expect((await t.request('GET', '/v1/banks/private-bank')).body.itemCount).toBe(1);
  });

  it('needs the banks scopes: banks:read to read, banks:write to change; no key is 401', async () => {
    const reader = await t.newKey(['banks:read']);
    const checker = await t.newKey(['check']);
    expect((await t.request('GET', '/v1/banks', { key: reader.key })).status).toBe(200);
    const denied = await t.request('POST', '/v1/banks', { key: reader.key, body: { name: 'r' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: { scope: 'banks:write' },
    });
    expect((await t.request('GET', '/v1/banks', { key: checker.key })).body.error.details.scope).toBe(
      'banks:read',
    );
    expect((await t.request('GET', '/v1/banks', { key: null })).body.error.code).toBe('MISSING_API_KEY');
  });
});

describe('hash banks in multi-modal and video checks', () => {
  let t: TestApp;
  let media: TestServer;
  let dir: string;
  const provider = new CountingImageProvider();
  const banked = photo('q0291.jpg');
  let clip: Buffer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-banks-'));
    // Two seconds of the banked photo as H.264: every sampled frame is a re-encoded copy of it.
    const file = path.join(dir, 'still.mp4');
    execFileSync(
      videoTools().ffmpeg,
      [
        '-v',
        'error',
        '-y',
        '-loop',
        '1',
        '-i',
        path.join(fixtures, 'q0291.jpg'),
        '-t',
        '2',
        '-r',
        '5',
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        file,
      ],
      { stdio: 'pipe' },
    );
    clip = fs.readFileSync(file);
    media = await serve((req, res) =>
      req.url === '/clip.mp4'
        ? res.writeHead(200, { 'content-type': 'video/mp4' }).end(clip)
        : res.writeHead(200, { 'content-type': 'image/jpeg' }).end(banked),
    );
    t = await createTestApp({
      config: { allowHttpMedia: true },
      overrides: {
        imageProvider: provider,
        textProvider: new KeywordProvider(),
        imageFetch: {
          isAllowedAddress: (ip) => ip === '127.0.0.1',
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      },
    });
    await t.request('POST', '/v1/banks', { body: { name: 'known' } });
    await t.request('POST', '/v1/banks/known/items', {
      body: { image: banked.toString('base64'), label: 'L' },
    });
    await t.request('POST', '/v1/policies', {
      body: {
        policyId: 'screened',
        yamlContent: POLICY('known').replace('action: block, maxDistance', 'action: flag, maxDistance'),
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await media?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the matching image of a multi-modal request, and the request takes the bank action', async () => {
    const res = await t.request('POST', '/v1/check/multimodal', {
      body: {
        policyId: 'screened',
        text: 'hello there',
        images: [photo('q1050.jpg').toString('base64'), `http://img.public.test:${media.port}/a.jpg`],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ action: 'flag', flagged: true, safe: false });
    expect(res.body.bankMatch).toMatchObject({
      bank: 'known',
      matchedOn: 'sha256',
      contentRef: `http://img.public.test:${media.port}/a.jpg`,
    });
    const [, other, matched] = res.body.results;
    expect(other.bankMatch).toBeUndefined();
    expect(matched).toMatchObject({ action: 'flag', provider: 'banks', bankMatch: { label: 'L' } });
  });

  it('matches sampled video frames by PDQ and names the frame', async () => {
    const before = provider.calls;
    const res = await t.request('POST', '/v1/check', {
      body: {
        content: `http://media.public.test:${media.port}/clip.mp4`,
        contentType: 'video',
        policyId: 'screened',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ action: 'flag', flagged: true });
    expect(res.body.bankMatch).toMatchObject({ bank: 'known', matchedOn: 'pdq' });
    expect(res.body.bankMatch.contentRef).toMatch(/^frame:\d+$/);
    expect(res.body.bankMatch.distance).toBeLessThanOrEqual(31);
    expect(provider.calls).toBe(before); // every frame matched: no model ran
  });

  it('matches the frames of an asynchronous video check; each matched frame names the match and has evidence', async () => {
    const worker = startWorker(t.ctx, { pollMs: 50 });
    try {
      const res = await t.request('POST', '/v1/video/check', {
        body: { videoUrl: `http://media.public.test:${media.port}/clip.mp4`, policyId: 'screened' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const id = res.body.decisionId as string;
      let done: { status: number; body: any } | null = null;
      for (let i = 0; i < 300 && !done; i++) {
        const r = await t.request('GET', `/v1/video/result/${id}`);
        if (r.status === 200) done = r;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(done?.body).toMatchObject({ status: 'completed', action: 'flag', bankMatch: { bank: 'known' } });
      for (const frame of done!.body.results) {
        expect(frame).toMatchObject({ flagged: true, action: 'flag', bankMatch: { matchedOn: 'pdq' } });
        expect(frame.evidence.url).toMatch(/\/v1\/evidence\//);
      }
    } finally {
      await worker.stop({ timeoutMs: 2000 });
    }
  }, 60_000);
});
