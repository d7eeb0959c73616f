import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const V1 = 'name: Chat\ncategories:\n  hate: { threshold: 0.5, action: block }\n';
const V2 =
  'name: Chat\ncategories:\n  hate: { threshold: 0.8, action: block }\n  spam: { threshold: 0.5, action: flag }\n';

/** `verdict policies versions|diff|rollback|delete|backtest|shadow` against a listening service. */
describe('verdict policies life-cycle commands', () => {
  let t: TestApp;
  let url: string;
  let key: string;
  let dir: string;
  let worker: RunningWorker;

  const cli = (args: string[]) => runCli(args, { VERDICT_URL: url, VERDICT_API_KEY: key });

  beforeAll(async () => {
    dir = tempDir('verdict-cli-policies-');
    t = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    worker = startWorker(t.ctx, { pollMs: 50 });
    key = (await t.newKey(['check', 'policies:read', 'policies:write', 'decisions:read'])).key;
    fs.writeFileSync(path.join(dir, 'chat.yaml'), V1);
    fs.writeFileSync(path.join(dir, 'chat-v2.yaml'), V2);
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 1000 });
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('versions, diff and rollback', async () => {
    expect((await cli(['policies', 'apply', '-f', path.join(dir, 'chat.yaml')])).code).toBe(0);
    await cli(['policies', 'apply', '-f', path.join(dir, 'chat-v2.yaml'), '--id', 'chat']);
    const versions = await cli(['policies', 'versions', 'chat']);
    expect(versions.code).toBe(0);
    expect(versions.stdout).toMatch(/^VERSION\s+NAME\s+CATEGORIES\s+WRITTEN\n1\s+Chat\s+1 .*\n2\s+Chat\s+2 /);
    const diff = await cli(['policies', 'diff', 'chat']);
    expect(diff.stdout).toContain('--- chat@v1');
    expect(diff.stdout).toContain('+  spam: { threshold: 0.5, action: flag }');
    const json = JSON.parse(
      (await cli(['policies', 'diff', 'chat', '--from', '1', '--to', '2', '--json'])).stdout,
    );
    expect(json.categories.added).toEqual([{ category: 'spam', threshold: 0.5, action: 'flag' }]);
    const rolled = await cli(['policies', 'rollback', 'chat', '--version', '1']);
    expect(rolled.stdout).toBe('chat is now version 3 (equal to version 1)\n');
    const bad = await cli(['policies', 'rollback', 'chat', '--version', '9']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('verdict: POLICY_VERSION_NOT_FOUND:');
  });

  it('backtest prints the old→new matrix; shadow starts, reports and stops; delete', async () => {
    for (const content of ['hate:0.7', 'spam:0.6', 'hello']) {
      await t.request('POST', '/v1/check', { key, body: { content, policyId: 'chat' } });
    }
    const backtest = await cli(['policies', 'backtest', 'chat', '-f', path.join(dir, 'chat-v2.yaml')]);
    expect(backtest.code).toBe(0);
    expect(backtest.stdout).toMatch(
      /^bkt_\S+ {2}completed {2}3\/3\n3 decisions: 3 replayed, 2 would change, 0 not replayable/,
    );
    expect(backtest.stdout).toMatch(/\nblock\s+1\s+0\s+0\s+0\n/);
    expect(backtest.stdout).toContain('hate         +0 newly triggered, -1 no longer');
    // a background backtest is waited for
    const waited = JSON.parse(
      (await cli(['policies', 'backtest', 'chat', '--version', '2', '--async', '--json'])).stdout,
    );
    expect(waited).toMatchObject({ status: 'completed', progress: { processed: 3, total: 3 } });
    const queued = JSON.parse(
      (await cli(['policies', 'backtest', 'chat', '--version', '2', '--async', '--no-wait', '--json']))
        .stdout,
    );
    expect(queued.status).toBe('queued');
    const none = await cli(['policies', 'backtest', 'chat']);
    expect([none.code, none.stderr]).toEqual([
      2,
      'verdict: INVALID_ARGUMENT: give exactly one candidate: --file or --version\n',
    ]);

    const started = await cli(['policies', 'shadow', 'chat', '-f', path.join(dir, 'chat-v2.yaml')]);
    expect(started.stdout).toMatch(/^shd_\S+ {2}running {2}beside chat {2}candidate yaml chat\n$/);
    await t.request('POST', '/v1/check', { key, body: { content: 'spam:0.6', policyId: 'chat' } });
    const report = await cli(['policies', 'shadow', 'chat', '--report']);
    expect(report.stdout).toContain('1 decisions: 1 replayed, 1 would change, 0 not replayable');
    expect(report.stdout).toMatch(/\nallow\s+0\s+0\s+1\s+0\n/);
    const inUse = await cli(['policies', 'delete', 'chat']);
    expect([inUse.code, inUse.stderr.split('\n')[0]]).toEqual([
      1,
      expect.stringContaining('verdict: POLICY_IN_USE:'),
    ]);
    expect((await cli(['policies', 'shadow', 'chat', '--stop'])).stdout).toMatch(/ {2}stopped {2}/);
    const deleted = await cli(['policies', 'delete', 'chat']);
    expect(deleted.stdout).toBe('Deleted chat (decisions keep their policy ID and version)\n');
  });
});
