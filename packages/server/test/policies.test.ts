import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const YAML = `name: Community
categories:
  hate:
    threshold: 0.5
    action: block
  spam:
    threshold: 0.9
    action: warn
`;

describe.each(engines)('policies (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
  });
  afterAll(() => t.close());

  it('lists and gets the built-in policies', async () => {
    const list = await t.request('GET', '/v1/policies');
    expect(list.status).toBe(200);
    expect(list.body.policies.map((p: any) => p.policyId)).toEqual(['default', 'strict', 'permissive']);
    const strict = await t.request('GET', '/v1/policies/strict');
    expect(strict.body).toMatchObject({ policyId: 'strict', builtin: true, version: 1 });
    expect(strict.body.categories.hate).toEqual({ threshold: 0.3, action: 'block' });
  });

  it('creates (201), replaces with a new version (200), and records the version on decisions', async () => {
    const created = await t.request('POST', '/v1/policies', {
      body: { policyId: 'community', yamlContent: YAML },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      policyId: 'community',
      name: 'Community',
      version: 1,
      builtin: false,
    });
    expect(Object.keys(created.body.categories)).toEqual(['hate', 'spam']);
    expect(created.body.createdAt).toBe(created.body.updatedAt);
    const updated = await t.request('POST', '/v1/policies', {
      body: { policyId: 'community', yamlContent: YAML.replace('0.9', '0.8') },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.version).toBe(2);
    expect(updated.body.categories.spam.threshold).toBe(0.8);
    expect(updated.body.createdAt).toBe(created.body.createdAt);
    const check = await t.request('POST', '/v1/check', {
      body: { content: 'spam:0.85', policyId: 'community' },
    });
    expect(check.body).toMatchObject({ policyVersion: 2, action: 'warn' });
    expect(check.body.categories.map((c: any) => c.category)).toEqual(['hate', 'spam']);
    const list = await t.request('GET', '/v1/policies');
    expect(list.body.policies.map((p: any) => p.policyId)).toContain('community');
  });

  it('If-None-Match: * makes creation fail on an existing ID with 409', async () => {
    const res = await t.request('POST', '/v1/policies', {
      body: { policyId: 'community', yamlContent: YAML },
      headers: { 'if-none-match': '*' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('DUPLICATE_POLICY_ID');
  });

  it("409 for built-in IDs and other accounts' IDs; 403 to use or read another account's policy", async () => {
    const builtin = await t.request('POST', '/v1/policies', {
      body: { policyId: 'default', yamlContent: YAML },
    });
    expect(builtin.status).toBe(409);
    expect(builtin.body.error.code).toBe('DUPLICATE_POLICY_ID');
    const other = await t.newKey(['check', 'policies:read', 'policies:write']);
    const taken = await t.request('POST', '/v1/policies', {
      key: other.key,
      body: { policyId: 'community', yamlContent: YAML },
    });
    expect(taken.status).toBe(409);
    const get = await t.request('GET', '/v1/policies/community', { key: other.key });
    expect(get.status).toBe(403);
    expect(get.body.error.code).toBe('POLICY_NOT_ACCESSIBLE');
    const use = await t.request('POST', '/v1/check', {
      key: other.key,
      body: { content: 'x', policyId: 'community' },
    });
    expect(use.status).toBe(403);
    expect(use.body.error.code).toBe('POLICY_NOT_ACCESSIBLE');
    const own = await t.request('GET', '/v1/policies', { key: other.key });
    expect(own.body.policies.map((p: any) => p.policyId)).toEqual(['default', 'strict', 'permissive']);
    const missing = await t.request('GET', '/v1/policies/nowhere', { key: other.key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('POLICY_NOT_FOUND');
  });

  it.each([
    ['name: x\ncategories:\n  hate: {threshold: 0.5, action: block\n', 'INVALID_YAML', { line: 4 }],
    [
      'name: x\ncategories:\n  hate:\n    threshold: 1.5\n    action: block\n',
      'INVALID_THRESHOLD',
      { line: 4, column: 16, category: 'hate' },
    ],
    [
      'name: x\ncategories:\n  hate:\n    threshold: "high"\n    action: block\n',
      'INVALID_THRESHOLD',
      { line: 4 },
    ],
    [
      'name: x\ncategories:\n  hate:\n    threshold: -0.1\n    action: block\n',
      'INVALID_THRESHOLD',
      { category: 'hate' },
    ],
    [
      'name: x\ncategories:\n  hate:\n    action: block\n',
      'INVALID_THRESHOLD',
      { line: 4, category: 'hate' },
    ],
    [
      'name: x\ncategories:\n  hate:\n    threshold: 0.5\n    action: ban\n',
      'INVALID_ACTION',
      { line: 5, column: 13 },
    ],
    ['name: x\ncategories:\n  hate:\n    threshold: 0.5\n', 'INVALID_ACTION', { category: 'hate' }],
    [
      'name: x\ncategories:\n  nudity:\n    threshold: 0.5\n    action: block\n',
      'INVALID_POLICY',
      { category: 'nudity', line: 3, column: 3 },
    ],
    ['name: x\ncategories: {}\n', 'INVALID_POLICY', { field: 'categories' }],
    ['categories:\n  hate: {threshold: 0.5, action: block}\n', 'INVALID_POLICY', { field: 'name' }],
    [
      'name: x\nextra: 1\ncategories:\n  hate: {threshold: 0.5, action: block}\n',
      'INVALID_POLICY',
      { key: 'extra', line: 2 },
    ],
    [
      'name: x\ncategories:\n  hate: {threshold: 0.5, action: block, words: [a]}\n',
      'INVALID_POLICY',
      { key: 'words' },
    ],
    ['- just\n- a list\n', 'INVALID_YAML', { reason: 'not_a_mapping', line: 1 }],
    ['   \n\n', 'INVALID_YAML', { reason: 'empty', field: 'yamlContent' }],
    ['name: x\nname: y\ncategories:\n  hate: {threshold: 0.5, action: block}\n', 'INVALID_YAML', { line: 2 }],
  ])('rejects %j with %s and its position', async (yamlContent, code, details) => {
    const res = await t.request('POST', '/v1/policies', { body: { policyId: 'bad', yamlContent } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.details).toMatchObject(details);
    expect((await t.request('GET', '/v1/policies/bad')).status).toBe(404);
  });

  it('bounds YAML size and alias expansion (billion laughs)', async () => {
    const big = `name: x\ndescription: "${'a'.repeat(64 * 1024)}"\ncategories:\n  hate: {threshold: 0.5, action: block}\n`;
    const tooBig = await t.request('POST', '/v1/policies', { body: { policyId: 'big', yamlContent: big } });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.error.code).toBe('CONTENT_TOO_LARGE');
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = `${lines.join('\n')}\nname: x\ncategories:\n  hate: {threshold: 0.5, action: block}\n`;
    const started = Date.now();
    const res = await t.request('POST', '/v1/policies', { body: { policyId: 'bomb', yamlContent: bomb } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_YAML', details: { reason: 'too_many_aliases' } });
    expect(Date.now() - started).toBeLessThan(5000);
    // 60 KB of keys, the last one repeated: found in one pass (yaml's own check took 3.4 s on the event loop)
    const keys = Array.from({ length: 7000 }, (_, i) => `k${i}: 1`).join('\n');
    const many = `${keys}\nk0: 2\n`;
    const before = Date.now();
    const dup = await t.request('POST', '/v1/policies', { body: { policyId: 'many', yamlContent: many } });
    expect(dup.body.error).toMatchObject({
      code: 'INVALID_YAML',
      details: { reason: 'duplicate_key', line: 7001 },
    });
    expect(Date.now() - before).toBeLessThan(1500);
  });

  it('validates the policy ID and required fields', async () => {
    const cases: [unknown, string][] = [
      [{ yamlContent: YAML }, 'MISSING_REQUIRED_FIELD'],
      [{ policyId: 'x' }, 'MISSING_REQUIRED_FIELD'],
      [{ policyId: 'has space', yamlContent: YAML }, 'INVALID_POLICY_ID'],
      [{ policyId: 'x'.repeat(65), yamlContent: YAML }, 'INVALID_POLICY_ID'],
      [{ policyId: 7, yamlContent: YAML }, 'INVALID_POLICY_ID'],
    ];
    for (const [body, code] of cases) {
      const res = await t.request('POST', '/v1/policies', { body });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe(code);
    }
    const bad = await t.request('GET', '/v1/policies/has%20space');
    expect(bad.body.error.code).toBe('INVALID_POLICY_ID');
  });
});
