import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { tempDir } from './helpers/databases.ts';
import { verdict } from './helpers/process.ts';

/** `verdict lists …` as the real process, against a listening server. */
describe('verdict lists commands', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir('verdict-lists-cli-');
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const { key } = await t.newKey(['check', 'policies:write', 'policies:read', 'lists:read', 'lists:write']);
    env = { VERDICT_URL: url, VERDICT_API_KEY: key };
  });
  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('create, add, import, show, list, remove, and delete (refused while a policy names the list)', async () => {
    const created = await verdict(['lists', 'create', 'slurs', '--action', 'flag'], env);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    expect(created.stdout).toContain('slurs');
    expect(created.stdout).toContain('block list, action flag');
    const allow = await verdict(
      ['lists', 'create', 'reclaimed', '--kind', 'allow', '--caps', '{"hate":"warn"}'],
      env,
    );
    expect(allow.stdout).toContain('allow list, caps {"hate":"warn"}');
    const bad = await verdict(['lists', 'create', 'x', '--kind', 'allow'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('MISSING_REQUIRED_FIELD');

    const added = await verdict(['lists', 'add', 'slurs', 'Sh1t', 'shit', 'new york'], env);
    expect(added.stdout).toContain('Added 2 (1 already there)');
    const regex = await verdict(['lists', 'add', 'slurs', '--regex', 'fr[e3]{2}\\s+money'], env);
    expect(regex.stdout).toContain('Added 1');
    const file = path.join(dir, 'entries.txt');
    fs.writeFileSync(file, '# words\nbastard\nSHIT\nregex: \\bkys+\\b\n');
    const imported = await verdict(['lists', 'import', 'slurs', '-f', file], env);
    expect(imported.stdout).toContain('Imported 3: added 2, 1 already there');

    const shown = await verdict(['lists', 'show', 'slurs', '--json'], env);
    const page = JSON.parse(shown.stdout);
    expect(page.list).toMatchObject({ entryCount: 5, regexCount: 2 });
    expect(page.entries.map((e: { value: string }) => e.value)).toContain('Sh1t');
    const listed = await verdict(['lists', 'list'], env);
    expect(listed.stdout).toMatch(/slurs\s+block\s+flag\s+5/);

    const removed = await verdict(['lists', 'remove', 'slurs', 'NEW YORK'], env);
    expect(removed.stdout).toContain('Removed 1 (0 not in the list)');

    const policy = path.join(dir, 'listed.yaml');
    fs.writeFileSync(
      policy,
      'name: Listed\ncategories:\n  hate: { threshold: 0.9, action: block }\nlists:\n  - { list: slurs }\n',
    );
    expect((await verdict(['policies', 'apply', '-f', policy], env)).code).toBe(0);
    const checked = await verdict(['check', 'what a piece of sh!t', '--policy', 'listed', '--json'], env);
    const result = JSON.parse(checked.stdout);
    expect(result.action).toBe('flag');
    expect(result.listMatches[0]).toMatchObject({ list: 'slurs', entry: 'Sh1t', action: 'flag' });

    const inUse = await verdict(['lists', 'delete', 'slurs'], env);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toContain('LIST_IN_USE');
    const deleted = await verdict(['lists', 'delete', 'reclaimed'], env);
    expect(deleted.stdout).toMatch(/Deleted lst_/);
  }, 180_000);
});
