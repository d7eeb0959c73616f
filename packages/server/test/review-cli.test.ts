import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** `verdict review …` against a real listening server, through the same commander program the binary builds. */
describe('verdict review commands', () => {
  let t: TestApp;
  let url: string;
  let platform: string;
  let reviewer: string;

  const cli = (args: string[], key: string) => runCli(args, { VERDICT_URL: url, VERDICT_API_KEY: key });

  beforeAll(async () => {
    t = await createTestApp({ overrides: { textProvider: new KeywordProvider() } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const { accountId } = await t.newKey(['check']);
    const key = async (name: string, scopes: string[]) =>
      (await t.request('POST', '/v1/keys', { body: { name, scopes, accountId } })).body.key as string;
    platform = await key('platform', ['check', 'decisions:read', 'policies:write']);
    reviewer = await key('carol', ['review']);
    const yamlContent =
      'name: q\ncategories:\n  hate: { threshold: 0.5, action: block }\nreviewActions: [block]\n';
    await t.request('POST', '/v1/policies', { key: platform, body: { policyId: 'q', yamlContent } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const check = async (content: string) =>
    (await t.request('POST', '/v1/check', { key: platform, body: { content, policyId: 'q' } })).body
      .decisionId as string;

  it('queue, claim, overturn, appeal, confirm, statement and export', async () => {
    const first = await check('hate:0.9 first');
    const second = await check('hate:0.8 second');

    const queue = await cli(['review', 'queue'], reviewer);
    expect(queue, queue.stderr).toMatchObject({ code: 0 });
    expect(queue.stdout).toMatch(/^ITEM +DECISION +REASON/);
    expect(queue.stdout).toContain(first);
    expect(queue.stdout).toContain('hate:0.9 first');

    const claim = await cli(['review', 'claim', '--limit', '1', '--json'], reviewer);
    expect(JSON.parse(claim.stdout).items.map((i: any) => i.decisionId)).toEqual([first]);

    const overturn = await cli(
      ['review', 'overturn', first, '--action', 'allow', '--note', 'satire'],
      reviewer,
    );
    expect(overturn, overturn.stderr).toMatchObject({ code: 0 });
    expect(overturn.stdout).toBe(`${first}  overturned block → allow  (by carol)\n`);

    const appeal = await cli(
      ['review', 'appeal', second, '--statement', 'I was quoting', '--user', 'u1'],
      platform,
    );
    expect(appeal.stdout).toMatch(new RegExp(`^Appeal apl_\\w+ of ${second}: open\\n$`));
    const again = await cli(['review', 'appeal', second, '--statement', 'again'], platform);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^verdict: APPEAL_ALREADY_OPEN: /);

    const confirm = await cli(['review', 'confirm', second, '--categories', 'hate'], reviewer);
    expect(confirm.stdout).toBe(`${second}  confirmed block  (by carol)\n`);
    const appeals = await cli(['review', 'appeals', second], platform);
    expect(appeals.stdout).toMatch(/apl_\w+ +upheld/);

    const bad = await cli(['review', 'decide', second, '--outcome', 'maybe'], reviewer);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/INVALID_PARAMETER/);

    const statement = await cli(['review', 'statement', first], platform);
    expect(statement.stdout).toContain(`Statement of reasons for decision ${first}`);
    expect(statement.stdout).toContain('overturned on human review to "allow"');

    const exported = await cli(['review', 'export'], platform);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((s) => s.decisionId)).toEqual([second]);
    const all = await cli(['review', 'export', '--all'], platform);
    expect(all.stdout.trim().split('\n')).toHaveLength(2);
  });
});
