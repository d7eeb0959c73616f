import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { dataUri, photo } from './helpers/images.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** One text per supported language (issue 18, item 9): the word searched for, and the text holding it. */
const TEXTS: [language: string, word: string, text: string][] = [
  ['en', 'umbrella', 'I left my Umbrella on the train'],
  ['es', 'paraguas', 'Dejé mi paraguas en el tren'],
  ['fr', 'parapluie', "J'ai oublié mon parapluie dans le train"],
  ['de', 'regenschirm', 'Ich habe meinen Regenschirm im Zug vergessen'],
  ['pt', 'guarda-chuva', 'Esqueci meu guarda-chuva no trem'],
  ['it', 'ombrello', "Ho dimenticato l'ombrello sul treno"],
  ['ru', 'зонт', 'Я забыл зонт в поезде'],
  ['tr', 'şemsiyemi', 'Şemsiyemi trende unuttum'],
  ['ar', 'مظلتي', 'نسيت مظلتي في القطار'],
  ['hi', 'छाता', 'मैं ट्रेन में अपना छाता भूल गया'],
  ['id', 'payung', 'Saya lupa payung saya di kereta'],
  ['ja', '傘', '電車に傘を忘れました'],
  ['ko', '우산을', '기차에 우산을 두고 내렸어요'],
  ['pl', 'parasol', 'Zostawiłem parasol w pociągu'],
  ['nl', 'paraplu', 'Ik heb mijn paraplu in de trein laten liggen'],
  ['sv', 'paraply', 'Jag glömde mitt paraply på tåget'],
  ['cs', 'deštník', 'Zapomněl jsem deštník ve vlaku'],
];

describe.each(engines)('decision search: GET /v1/decisions?q= and filters (%s)', (engine) => {
  let t: TestApp;
  let reader: string;
  const ids: Record<string, string> = {};
  const before = new Date().toISOString();

  const check = async (content: string, body: Record<string, unknown> = {}, key?: string) => {
    const res = await t.request('POST', '/v1/check', {
      body: { content, policyId: 'default', ...body },
      ...(key && { key }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.decisionId as string;
  };
  const search = async (query: string, key?: string) => {
    const res = await t.request('GET', `/v1/decisions?${query}`, { ...(key && { key }) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.decisions as { decisionId: string }[]).map((d) => d.decisionId);
  };
  const q = (text: string) => `q=${encodeURIComponent(text)}`;

  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    for (const [language, , text] of TEXTS) ids[language] = await check(text, { language });
    ids.cafe = await check('Meet me at the Café Müller tomorrow', { metadata: { userId: 'alice' } });
    ids.hate = await check('hate:0.95 the café is closed', { metadata: { userId: 'bob' } });
    ids.strict = await check('spam:0.99 buy cheap umbrellas at the café', { policyId: 'strict' });
    reader = (await t.newKey(['decisions:read'])).key;
  });
  afterAll(() => t.close());

  it('finds a word in every supported language, ignoring case and Latin diacritics', async () => {
    for (const [language, word] of TEXTS) {
      expect(await search(q(word)), `${language}: ${word}`).toEqual([ids[language]]);
    }
    expect(await search(q('UMBRELLA'))).toEqual([ids.en]);
    expect(await search(q('cafe'))).toEqual([ids.strict, ids.hate, ids.cafe]);
    expect(await search(q('muller'))).toEqual([ids.cafe]);
    expect(await search(q('deštník ve'))).toEqual([ids.cs]);
    // whole words: no stemming and no substrings
    expect(await search(q('umbrel'))).toEqual([]);
    expect(await search(q('nothing-like-this'))).toEqual([]);
  });

  it('needs every word of the query', async () => {
    expect(await search(q('café tomorrow'))).toEqual([ids.cafe]);
    expect(await search(q('café closed'))).toEqual([ids.hate]);
    expect(await search(q('café closed tomorrow'))).toEqual([]);
    // operators of the engines' query languages are plain words here
    expect(await search(q('café OR tomorrow'))).toEqual([]);
    expect(await search(q('"café" NEAR(closed) *'))).toEqual([]);
    expect(await search(q('café & !closed'))).toEqual([ids.hate]);
  });

  it('combines q with action, policy, category, content type, user, key and time', async () => {
    expect(await search(`${q('café')}&action=allow`)).toEqual([ids.cafe]);
    expect(await search(`${q('café')}&policyId=strict`)).toEqual([ids.strict]);
    expect(await search(`${q('café')}&category=hate`)).toEqual([ids.hate]);
    expect(await search(`${q('café')}&userId=bob`)).toEqual([ids.hate]);
    expect(await search(`${q('café')}&contentType=image`)).toEqual([]);
    expect(await search(`${q('café')}&from=${encodeURIComponent(before)}&limit=2`)).toEqual([
      ids.strict,
      ids.hate,
    ]);
    expect(await search(`${q('café')}&to=${encodeURIComponent(before)}`)).toEqual([]);
    const page = await t.request('GET', `/v1/decisions?${q('café')}&limit=1&offset=1`);
    expect(page.body).toMatchObject({ limit: 1, offset: 1, hasMore: true });
    expect(page.body.decisions.map((d: { decisionId: string }) => d.decisionId)).toEqual([ids.hate]);
  });

  it('filters by the API key that made the decision', async () => {
    const admin = (await t.request('GET', `/v1/decisions/${ids.cafe}`)).body.keyId as string;
    expect(admin).toMatch(/^key_/);
    const keys = (await t.request('GET', '/v1/keys')).body.keys as { id: string; accountId: string }[];
    const other = await t.newKey(['check', 'decisions:read'], keys.find((k) => k.id === admin)!.accountId);
    const mine = await check('sent with the second key', {}, other.key);
    const second = (await t.request('GET', `/v1/decisions/${mine}`)).body.keyId as string;
    expect(second).not.toBe(admin);
    expect(await search(`keyId=${second}`)).toEqual([mine]);
    expect(await search(`keyId=${admin}&${q('café')}`)).toEqual([ids.strict, ids.hate, ids.cafe]);
    expect(await search(`keyId=${second}&${q('café')}`)).toEqual([]);
    expect(await search('keyId=key_unknown')).toEqual([]);
  });

  it('keeps search inside the account', async () => {
    expect(await search(q('café'), reader)).toEqual([]);
    expect(await search(q('umbrella'), reader)).toEqual([]);
  });

  it('refuses bad filters with 422 INVALID_PARAMETER', async () => {
    for (const query of [
      'q=',
      q('!!! ...'),
      q(Array.from({ length: 17 }, (_, i) => `word${i}`).join(' ')),
      q('x'.repeat(257)),
      `${q('a')}&q=b`,
      'keyId=',
      'from=2030-02-30',
      'from=yesterday',
      'to=2030-01-01T25:00:00Z',
      'query=café',
    ]) {
      const res = await t.request('GET', `/v1/decisions?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toBe('INVALID_PARAMETER');
      expect(res.body.error.details.field, query).toBeTruthy();
    }
  });

  it('never indexes the content of a doNotStore decision', async () => {
    const id = await check('the secret password is swordfish', { doNotStore: true });
    expect(await search(q('swordfish'))).toEqual([]);
    expect((await search('limit=1'))[0]).toBe(id);
    const batch = await t.request('POST', '/v1/batch/check', {
      body: {
        policyId: 'default',
        items: [
          { id: 'a', content: 'kept marmalade' },
          { id: 'b', content: 'hidden marmalade', doNotStore: true },
        ],
      },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(await search(q('marmalade'))).toEqual([batch.body.items[0].decisionId]);
    expect(await search(q('hidden'))).toEqual([]);
  });
});

describe.each(engines)('decision search under retention (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      engine,
      config: { contentRetentionMs: 30 * 86_400_000, decisionRetentionMs: 365 * 86_400_000 },
    });
  });
  afterAll(() => t?.close());

  const check = async (content: string) => {
    const res = await t.request('POST', '/v1/check', { body: { content, policyId: 'default' } });
    expect(res.status).toBe(200);
    return res.body.decisionId as string;
  };
  const search = async (text: string) => {
    const res = await t.request('GET', `/v1/decisions?q=${encodeURIComponent(text)}`);
    expect(res.status).toBe(200);
    return (res.body.decisions as { decisionId: string }[]).map((d) => d.decisionId);
  };
  // retention reads the stored time; moving it back is how a test makes a decision old
  const age = (id: string, days: number) =>
    t.ctx.database.db
      .updateTable('decisions')
      .set({ created_at: new Date(Date.now() - days * 86_400_000).toISOString() })
      .where('id', '=', id)
      .execute();

  it('forgets redacted content and deleted decisions', async () => {
    const recent = await check('a recent note about pelicans');
    const old = await check('an older note about pelicans and flamingos');
    await age(old, 40);
    expect(await search('pelicans')).toEqual([old, recent]);
    expect(await t.ctx.retention.sweep()).toEqual({ redacted: 1, deleted: 0 });
    expect(await search('pelicans')).toEqual([recent]);
    expect(await search('flamingos')).toEqual([]);

    // the newest decision deleted: SQLite may give its rowid to the next one, which must not inherit its words
    const gone = await check('a note about walruses');
    await age(gone, 400);
    expect(await t.ctx.retention.sweep()).toEqual({ redacted: 0, deleted: 1 });
    const next = await check('a note about otters');
    expect(await search('walruses')).toEqual([]);
    expect(await search('otters')).toEqual([next]);
    expect(await search('note')).toEqual([next, recent]);
  });
});

describe.each(engines)('GET /v1/decisions/export (%s)', (engine) => {
  const TOTAL = 20_000;
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    for (let b = 0; b < TOTAL / 100; b++) {
      const items = Array.from({ length: 100 }, (_, i) => {
        const n = b * 100 + i;
        return {
          id: `i${i}`,
          content: `item ${n} ${n % 2 ? 'odd' : 'even'} ${n % 1000 === 7 ? 'hate:0.95' : ''}`,
        };
      });
      const res = await t.request('POST', '/v1/batch/check', { body: { policyId: 'default', items } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 300_000);
  afterAll(() => t?.close());

  /** Reads the export as it arrives, line by line, through a real connection. */
  const exportLines = async (query: string, key = t.adminKey) => {
    const res = await fetch(`${base}/v1/decisions/export?${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const length = res.headers.get('content-length');
    const decoder = new TextDecoder();
    let rest = '';
    let chunks = 0;
    const lines: { decisionId: string; content: string; action: string }[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks++;
      rest += decoder.decode(chunk, { stream: true });
      const parts = rest.split('\n');
      rest = parts.pop()!;
      for (const line of parts) lines.push(JSON.parse(line));
    }
    expect(rest).toBe('');
    return { lines, chunks, length };
  };

  it(`streams all ${TOTAL} decisions as JSON Lines, newest first, each once`, async () => {
    const { lines, chunks, length } = await exportLines('');
    expect(length).toBeNull(); // streamed (chunked), not measured up front
    expect(lines).toHaveLength(TOTAL);
    expect(chunks).toBeGreaterThan(10);
    const ids = lines.map((l) => l.decisionId);
    expect(new Set(ids).size).toBe(TOTAL);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(lines[0]!.content).toMatch(/^item 19999 odd/);
    expect(lines[TOTAL - 1]!.content).toMatch(/^item 0 even/);
  }, 120_000);

  it('applies the filters of GET /v1/decisions', async () => {
    const even = await exportLines('q=even');
    expect(even.lines).toHaveLength(TOTAL / 2);
    expect(even.lines.every((l) => / even /.test(l.content))).toBe(true);
    const blocked = await exportLines('q=odd&action=block');
    expect(blocked.lines.map((l) => l.content.split(' ')[1])).toEqual(
      Array.from({ length: TOTAL / 1000 }, (_, i) => String((TOTAL / 1000 - 1 - i) * 1000 + 7)),
    );
    expect((await exportLines('q=item&from=2000-01-01&to=2000-01-02')).lines).toEqual([]);
  }, 120_000);

  it('refuses bad parameters, paging and other accounts', async () => {
    for (const query of ['limit=10', 'offset=5', 'q=', 'from=nope', 'action=maybe']) {
      const res = await t.request('GET', `/v1/decisions/export?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toBe('INVALID_PARAMETER');
    }
    const checker = await t.newKey(['check']);
    expect((await t.request('GET', '/v1/decisions/export', { key: checker.key })).status).toBe(403);
    expect((await t.request('GET', '/v1/decisions/export', { key: null })).status).toBe(401);
    const reader = await t.newKey(['decisions:read']);
    expect((await exportLines('', reader.key)).lines).toEqual([]);
  });
});

describe('decision search: a multi-modal decision is found by its text, not its JSON', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
  });
  afterAll(() => t?.close());

  it('indexes the text and references of the stored { text, images } content', async () => {
    const png = await photo('png', 64, 64);
    const res = await t.request('POST', '/v1/check/multimodal', {
      body: { policyId: 'default', text: 'a caption about lighthouses', images: [dataUri(png, 'image/png')] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const search = async (q: string) =>
      (await t.request('GET', `/v1/decisions?q=${encodeURIComponent(q)}`)).body.decisions.map(
        (d: { decisionId: string }) => d.decisionId,
      );
    expect(await search('lighthouses caption')).toEqual([res.body.decisionId]);
    // the JSON's keys are not content
    expect(await search('images')).toEqual([]);
    expect(await search('text')).toEqual([]);
  }, 60_000);
});
