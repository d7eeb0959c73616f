import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/domain/errors.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { REPO, readDoc } from './helpers/docs.ts';

const PAGES = [
  'api.md',
  'policies.md',
  'webhooks.md',
  'how-verdict-decides.md',
  'operating.md',
  'providers.md',
];

/** The documents a reader of the repository meets: the READMEs and docs/. */
function documents(): string[] {
  const readmes = [
    'README.md',
    ...fs.readdirSync(path.join(REPO, 'packages')).map((p) => `packages/${p}/README.md`),
  ];
  return [...readmes, ...fs.readdirSync(path.join(REPO, 'docs')).map((f) => `docs/${f}`)].filter(
    (f) => f.endsWith('.md') && fs.existsSync(path.join(REPO, f)),
  );
}

describe('docs/: the pages, their links, and what they state about the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the README links every page, and no document points outside the repository', () => {
    const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
    for (const page of PAGES) expect(readme, page).toContain(`(docs/${page})`);
    for (const file of documents()) {
      const text = fs.readFileSync(path.join(REPO, file), 'utf8');
      expect(text, file).not.toMatch(/shared\/spec|\/work\//);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
        const resolved = path.resolve(REPO, path.dirname(file), target!);
        expect(resolved.startsWith(REPO + path.sep), `${file} → ${target}`).toBe(true);
        expect(fs.existsSync(resolved), `${file} → ${target}`).toBe(true);
      }
    }
  });

  it('the API reference names every endpoint of the OpenAPI document', async () => {
    const api = readDoc('api.md');
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [route, operations] of Object.entries(doc.paths)) {
      for (const method of Object.keys(operations)) {
        expect(api, `${method.toUpperCase()} ${route}`).toContain(`${method.toUpperCase()} ${route}`);
      }
    }
  });

  it('the API reference lists every error code the service can answer with, under its status', () => {
    const api = readDoc('api.md');
    const rows = api.split('\n').filter((line) => /^\| \d{3} \| `/.test(line));
    // METHOD_NOT_ALLOWED is in the vocabulary but nothing answers with it
    for (const [code, status] of Object.entries(ERROR_STATUS).filter(([c]) => c !== 'METHOD_NOT_ALLOWED')) {
      const row = rows.find((r) => r.includes(`\`${code}\``));
      expect(row, code).toBeDefined();
      expect(row!.startsWith(`| ${status} |`), `${code} is ${status}: ${row}`).toBe(true);
    }
  });

  it('the example result of how-verdict-decides.md is what the service answers', async () => {
    const page = readDoc('how-verdict-decides.md');
    const example = JSON.parse(/## Reading a result\s+```json\n([\s\S]*?)```/.exec(page)![1]!);
    const res = await t.request('POST', '/v1/check', {
      body: { content: 'you are an idiot', policyId: 'default' },
    });
    expect(res.body).toMatchObject({
      safe: example.safe,
      flagged: example.flagged,
      action: example.action,
      provider: example.provider,
      language: example.language,
      modelVersion: example.modelVersion,
    });
    for (const shown of example.categories) {
      const real = res.body.categories.find((c: { category: string }) => c.category === shown.category);
      expect({ ...real, score: Math.round(real.score * 1000) / 1000 }, shown.category).toEqual(shown);
    }
  });
});
