import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const policy = (lists: string, categories = 'hate: { threshold: 0.5, action: block }') => `name: Listed
categories:
  ${categories}
lists:
${lists}
`;

describe.each(engines)('match lists (%s)', (engine) => {
  let t: TestApp;
  const provider = new KeywordProvider();

  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: provider } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const savePolicy = (policyId: string, yamlContent: string, key?: string) =>
    t.request('POST', '/v1/policies', { ...(key && { key }), body: { policyId, yamlContent } });
  const check = (content: string, policyId: string, key?: string) =>
    t.request('POST', '/v1/check', { ...(key && { key }), body: { content, policyId } });

  it('creates a list with entries, counts duplicates after normalisation, pages, adds, removes and imports', async () => {
    const created = await t.request('POST', '/v1/lists', {
      body: {
        name: 'slurs',
        kind: 'block',
        action: 'flag',
        entries: ['Sh1t', 'shit', 'new york', { regex: 'fr[e3]{2}\\s+money' }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ added: 3, duplicates: 1 });
    expect(created.body.list).toMatchObject({
      name: 'slurs',
      kind: 'block',
      action: 'flag',
      entryCount: 3,
      regexCount: 1,
    });
    const listId = created.body.list.id as string;
    expect(listId).toMatch(/^lst_/);

    const page = await t.request('GET', '/v1/lists/slurs?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.entries).toHaveLength(2);
    expect(page.body.hasMore).toBe(true);
    const byId = await t.request('GET', `/v1/lists/${listId}?limit=10&offset=0`);
    expect(byId.body.entries.map((e: { value: string }) => e.value).sort()).toEqual(
      ['Sh1t', 'fr[e3]{2}\\s+money', 'new york'].sort(),
    );
    expect(byId.body.entries.find((e: { value: string }) => e.value === 'Sh1t').normalised).toBe('shit');

    const added = await t.request('POST', '/v1/lists/slurs/entries', {
      body: { entries: ['ASS', 'a s s', 'scum'] },
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ received: 3, added: 2, duplicates: 1 });
    expect(added.body.list.entryCount).toBe(5);

    const removed = await t.request('DELETE', '/v1/lists/slurs/entries', {
      body: { entries: ['Scum', 'nothing'] },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ removed: 1, notFound: 1 });
    const entryId = byId.body.entries.find((e: { value: string }) => e.value === 'new york').id;
    const removedById = await t.request('DELETE', '/v1/lists/slurs/entries', { body: { ids: [entryId] } });
    expect(removedById.body).toMatchObject({ removed: 1, notFound: 0 });
    expect(removedById.body.list.entryCount).toBe(3);

    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/lists/slurs/import',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'text/plain' },
      payload: '# a comment\nbastard\n\nregex: \\bkys+\\b\nSHIT\n',
    });
    expect(imported.statusCode).toBe(200);
    expect(imported.json()).toMatchObject({ received: 3, added: 2, duplicates: 1 });
    expect(imported.json().list).toMatchObject({ entryCount: 5, regexCount: 2 });

    // every change is in the audit log, with the entries it touched
    const audit = await t.request('GET', '/v1/audit?action=list&limit=100');
    const actions = audit.body.entries.map((e: { action: string }) => e.action);
    for (const a of ['list.created', 'list.entries_added', 'list.entries_removed', 'list.entries_imported']) {
      expect(actions, a).toContain(a);
    }
    const imports = audit.body.entries.find((e: { action: string }) => e.action === 'list.entries_imported');
    expect(imports).toMatchObject({
      target: { type: 'list', id: listId },
      after: { added: 2, entries: ['bastard', '\\bkys+\\b'] },
    });

    const all = await t.request('GET', '/v1/lists');
    expect(all.body.lists.map((l: { name: string }) => l.name)).toContain('slurs');
  });

  it('validates lists and entries with the spec codes', async () => {
    const post = (body: unknown) => t.request('POST', '/v1/lists', { body });
    expect((await post({ kind: 'block' })).body.error).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      details: { field: 'name' },
    });
    expect((await post({ name: 'lst_x', kind: 'block' })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await post({ name: 'k' })).body.error).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      details: { field: 'kind' },
    });
    expect((await post({ name: 'k', kind: 'maybe' })).body.error.code).toBe('INVALID_PARAMETER');
    expect((await post({ name: 'k', kind: 'block', action: 'nuke' })).body.error.code).toBe('INVALID_ACTION');
    expect((await post({ name: 'k', kind: 'allow' })).body.error).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      details: { field: 'caps' },
    });
    expect((await post({ name: 'k', kind: 'allow', caps: { nonsense: 'warn' } })).body.error.code).toBe(
      'INVALID_PARAMETER',
    );
    expect((await post({ name: 'k', kind: 'allow', caps: { hate: 2 } })).body.error.code).toBe(
      'INVALID_PARAMETER',
    );
    const badRegex = await post({ name: 'k', kind: 'block', entries: [{ regex: '(a' }] });
    expect(badRegex.status).toBe(422);
    expect(badRegex.body.error.details).toMatchObject({ field: 'entries[0]', reason: 'bad_regex' });
    // backreferences are not RE2: no catastrophic backtracking can be written
    const backref = await post({ name: 'k', kind: 'block', entries: [{ regex: '(a+)+\\1' }] });
    expect(backref.body.error.details.reason).toBe('bad_regex');
    const long = await post({ name: 'k', kind: 'block', entries: ['x'.repeat(201)] });
    expect(long.body.error.details).toMatchObject({ reason: 'too_long', max: 200 });
    const empty = await post({ name: 'k', kind: 'block', entries: ['!!!'] });
    expect(empty.body.error.details.reason).toBe('nothing_to_match');
    const many = await post({
      name: 'k',
      kind: 'block',
      entries: Array.from({ length: 10_001 }, (_, i) => `w${i}`),
    });
    expect(many.status).toBe(422);
    expect(many.body.error.code).toBe('TOO_MANY_ITEMS');
    const regexes = Array.from({ length: 51 }, (_, i) => ({ regex: `r${i}` }));
    expect((await post({ name: 'k', kind: 'block', entries: regexes })).body.error.details.reason).toBe(
      'too_many_regexes',
    );
    expect((await post({ name: 'dup', kind: 'block' })).status).toBe(201);
    const dup = await post({ name: 'dup', kind: 'block' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('DUPLICATE_LIST');
    expect((await t.request('GET', '/v1/lists/nope')).body.error.code).toBe('LIST_NOT_FOUND');
    expect((await t.request('POST', '/v1/lists/dup/entries', { body: { entries: 'x' } })).status).toBe(422);
    expect((await t.request('DELETE', '/v1/lists/dup/entries', { body: {} })).body.error.code).toBe(
      'MISSING_REQUIRED_FIELD',
    );
  });

  it('keeps lists per account and behind the lists scopes', async () => {
    const reader = await t.newKey(['lists:read']);
    expect((await t.request('GET', '/v1/lists', { key: reader.key })).body.lists).toEqual([]);
    const denied = await t.request('POST', '/v1/lists', {
      key: reader.key,
      body: { name: 'x', kind: 'block' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    // another account's list is not found, by name or ID
    expect((await t.request('GET', '/v1/lists/slurs', { key: reader.key })).status).toBe(404);
    const noScope = await t.newKey(['check']);
    expect((await t.request('GET', '/v1/lists', { key: noScope.key })).status).toBe(403);
  });

  it('lets policies name only existing lists of the right kind, and refuses to delete a list in use', async () => {
    await t.request('POST', '/v1/lists', {
      body: { name: 'reclaimed', kind: 'allow', caps: { hate: 'warn' } },
    });
    const unknown = await savePolicy('p-unknown', policy('  - { list: ghosts }'));
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { reason: 'unknown_list' } });
    const wrongKind = await savePolicy('p-kind', policy('  - { list: reclaimed, action: block }'));
    expect(wrongKind.body.error.details.reason).toBe('wrong_list_kind');
    const badKey = await savePolicy('p-key', policy('  - { list: slurs, weight: 3 }'));
    expect(badKey.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { key: 'weight', line: 5 } });
    const badAction = await savePolicy('p-act', policy('  - { list: slurs, action: nuke }'));
    expect(badAction.body.error.code).toBe('INVALID_ACTION');
    const badCaps = await savePolicy('p-caps', policy('  - { list: reclaimed, caps: { hate: 7 } }'));
    expect(badCaps.body.error.code).toBe('INVALID_POLICY');
    const ok = await savePolicy(
      'p-lists',
      policy('  - { list: slurs, action: block }\n  - { list: reclaimed }'),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.lists).toEqual([{ list: 'slurs', action: 'block' }, { list: 'reclaimed' }]);
    const inUse = await t.request('DELETE', '/v1/lists/slurs');
    expect(inUse.status).toBe(409);
    expect(inUse.body.error).toMatchObject({ code: 'LIST_IN_USE', details: { policies: ['p-lists'] } });
    const unused = await t.request('DELETE', '/v1/lists/dup');
    expect(unused.body).toMatchObject({ deleted: true });
    expect((await t.request('GET', '/v1/lists/dup')).status).toBe(404);
  });

  it('matches block-list entries through evasions and says which entry matched', async () => {
    const evaded = await check('you are a piece of SH1T, honestly', 'p-lists');
    expect(evaded.status).toBe(200);
    expect(evaded.body).toMatchObject({ action: 'block', safe: false, flagged: true });
    expect(evaded.body.listMatches).toHaveLength(1);
    const [match] = evaded.body.listMatches;
    expect(match).toMatchObject({
      list: 'slurs',
      kind: 'block',
      entry: 'Sh1t',
      entryType: 'term',
      action: 'block',
    });
    expect(match.entryId).toMatch(/^lse_/);
    expect('you are a piece of SH1T, honestly'.slice(match.start, match.end)).toBe('SH1T');
    // spaced, masked and homoglyph forms; a regex on the normalised text
    for (const [text, entry] of [
      ['you b a s t a r d', 'bastard'],
      ['sh*t happens', 'Sh1t'],
      ['ѕhіt (Cyrillic look-alikes)', 'Sh1t'],
      ['get FR33    money now', 'fr[e3]{2}\\s+money'],
      ['just kysss', '\\bkys+\\b'],
    ]) {
      const result = await check(text!, 'p-lists');
      expect(result.body.listMatches?.[0]?.entry, text).toBe(entry);
      expect(result.body.action, text).toBe('block');
    }
    // whole words only, and no match is no field
    const clean = await check('a classic assessment in Scunthorpe', 'p-lists');
    expect(clean.body).toMatchObject({ action: 'allow', safe: true });
    expect(clean.body.listMatches).toBeUndefined();
    // the stored decision carries the match
    const stored = await t.request('GET', `/v1/decisions/${evaded.body.decisionId}`);
    expect(stored.body.listMatches[0]).toMatchObject({ entry: 'Sh1t', list: 'slurs' });
  });

  it('caps categories on an allow-list hit (action and score caps), and lowest cap wins', async () => {
    await t.request('POST', '/v1/lists/reclaimed/entries', { body: { entries: ['queer'] } });
    // without the allow term, hate:0.9 blocks
    expect((await check('they said hate:0.9 here', 'p-lists')).body.action).toBe('block');
    const capped = await check('we are queer hate:0.9', 'p-lists');
    expect(capped.body).toMatchObject({ action: 'warn', flagged: true, safe: false });
    expect(capped.body.categories.find((c: { category: string }) => c.category === 'hate')).toMatchObject({
      score: 0.9,
      triggered: true,
    });
    expect(capped.body.listMatches[0]).toMatchObject({
      list: 'reclaimed',
      kind: 'allow',
      caps: { hate: 'warn' },
    });
    // a score cap in the policy rule un-triggers the category
    await savePolicy('p-score', policy('  - { list: reclaimed, caps: { hate: 0.3 } }'));
    const scoreCapped = await check('we are queer hate:0.9', 'p-score');
    expect(scoreCapped.body).toMatchObject({ action: 'allow', flagged: false, safe: true });
    expect(scoreCapped.body.categories[0]).toMatchObject({ category: 'hate', score: 0.3, triggered: false });
    // an allow cap never lowers a block-list match
    const both = await check('queer sh1t hate:0.9', 'p-lists');
    expect(both.body.action).toBe('block');
    expect(both.body.listMatches.map((m: { list: string }) => m.list).sort()).toEqual(['reclaimed', 'slurs']);
  });

  it('sees entry changes at the next check, in batches and replays too', async () => {
    expect((await check('what a wanker', 'p-lists')).body.action).toBe('allow');
    await t.request('POST', '/v1/lists/slurs/entries', { body: { entries: ['wanker'] } });
    const now = await check('what a wanker', 'p-lists');
    expect(now.body).toMatchObject({ action: 'block', listMatches: [{ entry: 'wanker' }] });
    const batch = await t.request('POST', '/v1/batch/check', {
      body: {
        policyId: 'p-lists',
        items: [
          { id: 'a', content: 'w@nker' },
          { id: 'b', content: 'fine' },
        ],
      },
    });
    expect(batch.body.items.map((i: { action: string }) => i.action)).toEqual(['block', 'allow']);
    // replaying a decision made without lists under the listed policy finds the entry
    await savePolicy('p-plain', policy('  []'));
    const plain = await check('what a wanker', 'p-plain');
    expect(plain.body.action).toBe('allow');
    const replayed = await t.request('POST', `/v1/decisions/${plain.body.decisionId}/replay`, {
      body: { policyId: 'p-lists' },
    });
    expect(replayed.body).toMatchObject({ action: 'block', listMatches: [{ entry: 'wanker' }] });
    await t.request('DELETE', '/v1/lists/slurs/entries', { body: { entries: ['WANKER'] } });
    expect((await check('what a wanker', 'p-lists')).body.action).toBe('allow');
  });

  it('documents list routes in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).body;
    for (const path of [
      '/v1/lists',
      '/v1/lists/{listId}',
      '/v1/lists/{listId}/entries',
      '/v1/lists/{listId}/import',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const schemas = Object.values(doc.components.schemas) as { $id?: string; title?: string }[];
    expect(JSON.stringify(schemas)).toContain('listMatches');
  });
});
