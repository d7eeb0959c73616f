import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';
import { verdict } from './helpers/process.ts';

/**
 * Issue 18 §5: reviewers' outcomes are labels; GET /v1/quality gives, per category, the automated decision's
 * precision and recall against them, and the threshold that would have met a target precision.
 */
const opened: TestApp[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

const POLICY =
  'name: Q\ncategories:\n  hate: { threshold: 0.5, action: block }\n  spam: { threshold: 0.8, action: flag }\n';

describe.each(engines)('the quality report (%s)', (engine) => {
  it('measures the policy against its reviewers and suggests a threshold', async () => {
    const t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    opened.push(t);
    const { key, accountId } = await t.newKey(['check', 'policies:write', 'decisions:read']);
    const reviewer = (await t.newKey(['review'], accountId)).key;
    const other = (await t.newKey(['check', 'decisions:read'])).key;
    expect(
      (await t.request('POST', '/v1/policies', { key, body: { policyId: 'q', yamlContent: POLICY } })).status,
    ).toBe(201);

    // hate scores and what the reviewer says: 0.95 to 0.7 hate (true positives), 0.6 not hate (false positive),
    // 0.3 hate (missed), 0.2 and 0.1 not hate (right to allow)
    const cases: Array<[score: number, isHate: boolean]> = [
      [0.95, true],
      [0.9, true],
      [0.8, true],
      [0.75, true],
      [0.7, true],
      [0.6, false],
      [0.3, true],
      [0.2, false],
      [0.1, false],
    ];
    for (const [score, isHate] of cases) {
      const check = await t.request('POST', '/v1/check', {
        key,
        body: { content: `message hate:${score}`, policyId: 'q' },
      });
      expect(check.status).toBe(200);
      const blocked = check.body.action === 'block';
      const outcome = blocked === isHate ? 'confirm' : 'overturn';
      const review = await t.request('POST', `/v1/decisions/${check.body.decisionId}/review`, {
        key: reviewer,
        body: {
          outcome,
          ...(outcome === 'overturn' && { action: isHate ? 'block' : 'allow' }),
          categories: isHate ? ['hate'] : [],
        },
      });
      expect(review.status, JSON.stringify(review.body)).toBe(200);
    }
    // a decision reviewed twice counts once, by its latest review: first wrongly confirmed, then overturned
    const twice = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'x hate:0.55', policyId: 'q' },
    });
    for (const body of [
      { outcome: 'confirm', categories: ['hate'] },
      { outcome: 'overturn', action: 'allow', categories: [] },
    ]) {
      await t.request('POST', `/v1/decisions/${twice.body.decisionId}/review`, { key: reviewer, body });
    }
    // another account's reviews never count
    await t.request('POST', '/v1/check', { key: other, body: { content: 'hate:0.9', policyId: 'default' } });

    const res = await t.request('GET', '/v1/quality?policyId=q&targetPrecision=1', { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      policyId: 'q',
      policyVersion: 1,
      reviewedDecisions: 10,
      truncated: false,
    });
    const hate = res.body.categories.find((c: { category: string }) => c.category === 'hate');
    expect(hate).toMatchObject({
      labelled: 10,
      positives: 6,
      truePositives: 5,
      falsePositives: 2, // 0.6 and 0.55
      falseNegatives: 1, // 0.3
      precision: 0.7143,
      recall: 0.8333,
      currentThreshold: 0.5,
      // at 0.7 and above every blocked message was hate: 5 of the 6 hateful ones found (a threshold needs at least
      // 5 decisions above it to be suggested)
      suggestedThreshold: { threshold: 0.7, precision: 1, recall: 0.8333, support: 5 },
    });
    // spam never triggered and no reviewer named it: no precision, no recall, no suggestion
    const spam = res.body.categories.find((c: { category: string }) => c.category === 'spam');
    expect(spam).toMatchObject({ precision: null, recall: null, suggestedThreshold: null, positives: 0 });

    // the CLI prints the same report
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const cli = await verdict(['review', 'quality', '--policy', 'q', '--target', '1'], {
      VERDICT_URL: url,
      VERDICT_API_KEY: key,
    });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^q v1: 10 reviewed decisions\n/);
    expect(cli.stdout).toMatch(/\nhate +10 +71\.4 % +83\.3 % +0\.5 +0\.7 \(recall 83\.3 %\)\n/);

    // a window before any review is empty
    const before = await t.request('GET', '/v1/quality?policyId=q&to=2020-01-01T00:00:00Z', { key });
    expect(before.body.reviewedDecisions).toBe(0);
    expect(before.body.categories).toEqual([]);
  });

  it('needs a policy of the account, a scope, and sane parameters', async () => {
    const t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    opened.push(t);
    const { key } = await t.newKey(['decisions:read']);
    const checker = (await t.newKey(['check'])).key;
    expect((await t.request('GET', '/v1/quality?policyId=default', { key: checker })).status).toBe(403);
    expect((await t.request('GET', '/v1/quality?policyId=default', { key })).status).toBe(200);
    expect((await t.request('GET', '/v1/quality?policyId=nope', { key })).body.error.code).toBe(
      'POLICY_NOT_FOUND',
    );
    const missing = await t.request('GET', '/v1/quality', { key });
    expect([missing.status, missing.body.error.code]).toEqual([422, 'MISSING_REQUIRED_FIELD']);
    for (const bad of [
      'targetPrecision=0',
      'targetPrecision=1.5',
      'targetPrecision=high',
      'from=soon',
      'x=1',
    ]) {
      const res = await t.request('GET', `/v1/quality?policyId=default&${bad}`, { key });
      expect([res.status, res.body.error?.code], bad).toEqual([422, 'INVALID_PARAMETER']);
    }
  });
});
