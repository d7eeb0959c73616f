import fs from 'node:fs';
import path from 'node:path';
import { Verdict } from '@verdict/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** The SDK's decisions.list filters and decisions.export, and `verdict decisions search|export`, on a real server. */
describe('decision search: SDK and CLI', () => {
  let t: TestApp;
  let url: string;
  let client: Verdict;
  let dir: string;
  const ids: string[] = [];

  beforeAll(async () => {
    // 1,200 checks in a row would meet the burst limit; limits are not what this file tests
    t = await createTestApp({
      overrides: { textProvider: new KeywordProvider() },
      config: { rateLimit: { enabled: false, perMinute: 6000, burstPerSecond: 200, onRedisError: 'open' } },
    });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = new Verdict({ baseUrl: url, apiKey: t.adminKey, maxRetries: 0 });
    dir = tempDir();
    for (let i = 0; i < 1200; i++) {
      const res = await t.request('POST', '/v1/check', {
        body: {
          content: `parcel ${i} ${i % 3 === 0 ? 'delayed' : 'delivered'} ${i === 7 ? 'hate:0.95' : ''}`,
          policyId: 'default',
        },
      });
      expect(res.status).toBe(200);
      ids.unshift(res.body.decisionId);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCli(args, { VERDICT_URL: url, VERDICT_API_KEY: t.adminKey });

  it('SDK: decisions.list takes the filters and q; decisions.export iterates every match', async () => {
    const page = await client.decisions.list({ q: 'delayed', limit: 5 });
    expect(page.decisions).toHaveLength(5);
    expect(page.hasMore).toBe(true);
    expect(page.decisions.every((d) => d.content.includes('delayed'))).toBe(true);
    const blocked = await client.decisions.list({ q: 'parcel', action: 'block' });
    expect(blocked.decisions.map((d) => d.decisionId)).toEqual([ids[1199 - 7]]);

    const all: string[] = [];
    for await (const d of client.decisions.export()) all.push(d.decisionId);
    expect(all).toEqual(ids);
    let delayed = 0;
    for await (const d of client.decisions.export({ q: 'delayed' })) {
      expect(d.content).toContain('delayed');
      delayed++;
    }
    expect(delayed).toBe(400);
    // leaving early is fine
    let taken = 0;
    for await (const _ of client.decisions.export()) if (++taken === 3) break;
    expect(taken).toBe(3);
    await expect(async () => {
      for await (const _ of client.decisions.export({ from: 'nope' })) void _;
    }).rejects.toMatchObject({ status: 422, code: 'INVALID_PARAMETER' });
  });

  it('CLI: verdict decisions search prints the matches; --json the page', async () => {
    const run = await cli(['decisions', 'search', 'parcel', '7', '--action', 'block']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(ids[1199 - 7]);
    expect(run.stdout).toContain('parcel 7');
    const json = await cli(['decisions', 'search', 'delivered', '--limit', '2', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ limit: 2, hasMore: true });
    const none = await cli(['decisions', 'search', 'nothing']);
    expect(none.stdout.trim()).toBe('No decisions');
    const bad = await cli(['decisions', 'search', 'parcel', '--from', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('INVALID_PARAMETER');
  });

  it('CLI: verdict decisions export writes JSON Lines to stdout or --out', async () => {
    const run = await cli(['decisions', 'export', '--q', 'delayed']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(400);
    expect(lines[0].decisionId).toBe(ids.find((_, i) => (1199 - i) % 3 === 0));
    const file = path.join(dir, 'out.jsonl');
    const toFile = await cli(['decisions', 'export', '--out', file]);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toBe('');
    expect(toFile.stderr).toContain(`Exported 1200 decisions to ${file}`);
    expect(
      fs
        .readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).decisionId),
    ).toEqual(ids);
  });
});
