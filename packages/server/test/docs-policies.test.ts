import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { tempDir } from './helpers/databases.ts';
import { codeBlocks, REPO, readDoc } from './helpers/docs.ts';

const run = promisify(execFile);
const page = readDoc('policies.md');
const modelCard = fs.readFileSync(path.join(REPO, 'packages/text-model/MODEL_CARD.md'), 'utf8');

/** The YAML policies of the page, each with the ID its file name gives it (`name` in lower case). */
const policies = codeBlocks(page, 'yaml').map((yaml) => {
  const name = (parse(yaml) as { name: string }).name;
  return { id: name.toLowerCase(), yaml };
});

describe('docs/policies.md', () => {
  let t: TestApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    dir = tempDir('verdict-docs-policies-');
    for (const p of policies) fs.writeFileSync(path.join(dir, `${p.id}.yaml`), p.yaml);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the format example and the four platform examples', () => {
    expect(policies.map((p) => p.id)).toEqual(['community', 'comments', 'chat', 'marketplace', 'dating']);
  });

  it('every example policy is accepted by POST /v1/policies as written', async () => {
    for (const { id, yaml } of policies) {
      const res = await t.request('POST', '/v1/policies', {
        body: { policyId: `doc-${id}`, yamlContent: yaml },
      });
      expect(res.status, `${id}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.categories).toEqual((parse(yaml) as { categories: unknown }).categories);
    }
  });

  it('quotes the thresholds table and figures of the model card of the model that runs', async () => {
    const table = page.split('<!-- model-card: thresholds -->')[1]!.trim().split('\n\n')[0]!.split('\n');
    expect(table.length).toBe(9);
    for (const row of table) expect(modelCard, row).toContain(row);
    expect(modelCard).toContain(
      '| SMS Spam Collection (held-out 15 %) | spam | F1 (P / R) | 0.951 (0.964 / 0.938)',
    );
    const version = /text\s+model `(verdict-text-[^`]+)`/.exec(page)?.[1];
    expect(modelCard).toContain(`currently\n\`${version}\``);
    const check = await t.request('POST', '/v1/check', {
      body: { content: 'hello there', policyId: 'default' },
    });
    expect(check.body.modelVersion).toBe(version);
  });

  it('runs the commands of "Trying a policy" as written', async () => {
    const section = page.slice(page.indexOf('## Trying a policy'));
    const commands = codeBlocks(section, 'sh').map((c) => c.replaceAll('http://127.0.0.1:8080', base));
    expect(commands.length).toBe(3);
    const shell = async (command: string) =>
      (
        await run('bash', ['-c', command], {
          cwd: dir,
          timeout: 60_000,
          env: {
            ...process.env,
            VERDICT_API_KEY: ADMIN_KEY,
            PATH: `${path.join(REPO, 'node_modules/.bin')}${path.delimiter}${process.env.PATH}`,
          },
        })
      ).stdout;

    expect(await shell(commands[0]!)).toContain('Created chat');
    const stored = await t.request('GET', '/v1/policies/chat');
    expect(stored.body.yamlContent).toBe(policies.find((p) => p.id === 'chat')!.yaml);

    const dryRun = JSON.parse(await shell(commands[1]!));
    expect(dryRun).toMatchObject({ dryRun: true, policyId: 'chat', action: 'block', flagged: true });

    const checked = await shell(commands[2]!);
    expect(checked).toMatch(/block|flag/);
  }, 120_000);
});
