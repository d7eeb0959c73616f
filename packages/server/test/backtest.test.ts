import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/context.ts';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const LIVE = `name: Community
categories:
  hate:
    threshold: 0.5
    action: block
  spam:
    threshold: 0.9
    action: warn
`;
/** hate is relaxed (0.7 no longer blocks), spam is tightened and flags from 0.8 */
const CANDIDATE = `name: Candidate
categories:
  hate:
    threshold: 0.8
    action: block
  spam:
    threshold: 0.8
    action: flag
`;

/** A provider that judges only some categories (like an external one): the others are not stored. */
class NarrowProvider extends KeywordProvider {
  override readonly categories = ['hate', 'spam'] as KeywordProvider['categories'];
}

async function until<T>(fn: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(engines)('backtests and shadows (%s)', (engine) => {
  let t: TestApp;
  let key: string;
  let provider: NarrowProvider;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    provider = new NarrowProvider();
    t = await createTestApp({ engine, overrides: { textProvider: provider } });
    key = (await t.newKey(['check', 'policies:read', 'policies:write', 'decisions:read'])).key;
    await t.request('POST', '/v1/policies', { key, body: { policyId: 'community', yamlContent: LIVE } });
    for (const [name, content] of Object.entries({
      hate: 'hate:0.7',
      spamLow: 'spam:0.85',
      spamHigh: 'spam:0.95',
      clean: 'hello there',
    })) {
      const res = await t.request('POST', '/v1/check', { key, body: { content, policyId: 'community' } });
      ids[name] = res.body.decisionId;
    }
    // replays are copies, never counted
    await t.request('POST', `/v1/decisions/${ids.hate}/replay`, { key, body: { policyId: 'strict' } });
    // another policy's decision: only in the account-wide scope
    await t.request('POST', '/v1/check', { key, body: { content: 'hate:0.9', policyId: 'default' } });
  });
  afterAll(() => t.close());

  it('replays a YAML candidate over stored scores, without a model call, and reports old→new', async () => {
    const calls = provider.calls;
    const res = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { yamlContent: CANDIDATE },
    });
    expect(res.status).toBe(200);
    expect(provider.calls).toBe(calls);
    expect(res.body).toMatchObject({
      policyId: 'community',
      candidate: { source: 'yaml', policyId: 'community', version: null, name: 'Candidate' },
      window: { scope: 'policy' },
      status: 'completed',
      progress: { processed: 4, total: 4, percentComplete: 100 },
    });
    const report = res.body.report;
    expect(report).toMatchObject({ total: 4, replayed: 4, changed: 3, unchanged: 1 });
    expect(report.matrix.block).toEqual({ allow: 1, warn: 0, flag: 0, block: 0 });
    expect(report.matrix.allow).toEqual({ allow: 1, warn: 0, flag: 1, block: 0 });
    expect(report.matrix.warn).toEqual({ allow: 0, warn: 0, flag: 1, block: 0 });
    expect(report.examples.block.allow).toEqual([ids.hate]);
    expect(report.examples.allow.flag).toEqual([ids.spamLow]);
    expect(report.examples.allow.allow).toEqual([ids.clean]);
    expect(report.categories.hate).toEqual({
      before: 1,
      after: 0,
      newlyTriggered: 0,
      noLongerTriggered: 1,
      examples: [ids.hate],
    });
    expect(report.categories.spam).toMatchObject({
      before: 1,
      after: 2,
      newlyTriggered: 1,
      noLongerTriggered: 0,
    });
    expect(report.notReplayable).toEqual({ total: 0, reasons: {}, examples: {} });
    // the stored backtest reads back the same
    const read = await t.request('GET', `/v1/backtests/${res.body.backtestId}`, { key });
    expect(read.body).toEqual(res.body);
  });

  it('a version as candidate, the account scope, a window, and examples per cell', async () => {
    await t.request('POST', '/v1/policies', {
      key,
      body: { policyId: 'community', yamlContent: LIVE.replace('0.5', '0.75') },
    });
    const v1 = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { version: 2, examples: 0 },
    });
    expect(v1.body.candidate).toMatchObject({ source: 'version', version: 2 });
    expect(v1.body.report.matrix.block.allow).toBe(1);
    expect(v1.body.report.examples.block.allow).toEqual([]);
    const all = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { version: 1, scope: 'account' },
    });
    expect(all.body.report.total).toBe(5);
    expect(all.body.window.scope).toBe('account');
    const none = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { version: 1, from: '2020-01-01T00:00:00Z', to: '2020-02-01T00:00:00Z' },
    });
    expect(none.body.progress).toEqual({ processed: 0, total: 0, percentComplete: 100 });
    const limited = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { version: 1, limit: 2 },
    });
    expect(limited.body.report.total).toBe(2);
  });

  it('counts decisions whose stored scores cannot decide the candidate as not replayable, with the reason', async () => {
    const redacted = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'spam:0.2', policyId: 'community', doNotStore: true },
    });
    const calls = provider.calls;
    const res = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { yamlContent: `${CANDIDATE}  violence:\n    threshold: 0.5\n    action: block\n` },
    });
    expect(provider.calls).toBe(calls);
    expect(res.body.report).toMatchObject({ total: 5, replayed: 0 });
    expect(res.body.report.notReplayable).toEqual({
      total: 5,
      reasons: { missing_scores: 4, content_redacted: 1 },
      examples: {
        missing_scores: [ids.hate, ids.spamLow, ids.spamHigh, ids.clean],
        content_redacted: [redacted.body.decisionId],
      },
    });
  });

  it('validates the request', async () => {
    const cases: [unknown, number, string][] = [
      [{}, 422, 'MISSING_REQUIRED_FIELD'],
      [{ yamlContent: CANDIDATE, version: 1 }, 422, 'INVALID_PARAMETER'],
      [{ yamlContent: 'name: [' }, 422, 'INVALID_YAML'],
      [
        { yamlContent: 'name: x\ncategories:\n  hate: { threshold: 2, action: block }\n' },
        422,
        'INVALID_THRESHOLD',
      ],
      [{ version: 99 }, 404, 'POLICY_VERSION_NOT_FOUND'],
      [{ version: '1' }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, from: 'yesterday' }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, limit: 0 }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, limit: 2_000_000 }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, examples: 51 }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, scope: 'world' }, 422, 'INVALID_PARAMETER'],
      [{ version: 1, async: 'yes' }, 422, 'INVALID_PARAMETER'],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.request('POST', '/v1/policies/community/backtest', { key, body });
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect(
      (await t.request('POST', '/v1/policies/nope/backtest', { key, body: { version: 1 } })).status,
    ).toBe(404);
    const noDecisions = (await t.newKey(['policies:read'])).key;
    const denied = await t.request('POST', '/v1/policies/default/backtest', {
      key: noDecisions,
      body: { version: 1 },
    });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'INSUFFICIENT_PERMISSIONS']);
    const stranger = (await t.newKey(['policies:read', 'decisions:read'])).key;
    expect(
      (await t.request('POST', '/v1/policies/community/backtest', { key: stranger, body: { version: 1 } }))
        .status,
    ).toBe(403);
    const sync = await t.request('POST', '/v1/policies/community/backtest', { key, body: { version: 1 } });
    const foreign = await t.request('GET', `/v1/backtests/${sync.body.backtestId}`, { key: stranger });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'BACKTEST_NOT_FOUND']);
  });

  it('a shadow decides live traffic beside the live policy without effect, and reports it', async () => {
    const set = await t.request('PUT', '/v1/policies/community/shadow', {
      key,
      body: { yamlContent: CANDIDATE },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      policyId: 'community',
      status: 'running',
      candidate: { source: 'yaml' },
    });
    const calls = provider.calls;
    const live = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'spam:0.85', policyId: 'community' },
    });
    // the answer is the live policy's (v2: spam 0.9 warn), one model call
    expect(live.body).toMatchObject({ action: 'allow', policyId: 'community' });
    expect(provider.calls).toBe(calls + 1);
    const hate = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'hate:0.78', policyId: 'community' },
    });
    expect(hate.body.action).toBe('block');
    await t.request('POST', `/v1/decisions/${hate.body.decisionId}/replay`, {
      key,
      body: { policyId: 'community' },
    });
    const report = await t.request('GET', '/v1/policies/community/shadow/report', { key });
    expect(report.status).toBe(200);
    expect(report.body.shadow.shadowId).toBe(set.body.shadowId);
    expect(report.body.truncated).toBe(false);
    expect(report.body.report).toMatchObject({ total: 2, replayed: 2, changed: 2 });
    expect(report.body.report.examples).toEqual({
      allow: { flag: [live.body.decisionId] },
      block: { allow: [hate.body.decisionId] },
    });
    // the stored decision is the live one
    const stored = await t.request('GET', `/v1/decisions/${live.body.decisionId}`, { key });
    expect(stored.body.action).toBe('allow');
    // stopped: nothing more is recorded; the report stays
    const stopped = await t.request('DELETE', '/v1/policies/community/shadow', { key });
    expect(stopped.body.status).toBe('stopped');
    await t.request('POST', '/v1/check', { key, body: { content: 'spam:0.85', policyId: 'community' } });
    const after = await t.request('GET', '/v1/policies/community/shadow/report', { key });
    expect(after.body.report.total).toBe(2);
    expect((await t.request('GET', '/v1/policies/community/shadow', { key })).body.status).toBe('stopped');
    expect((await t.request('DELETE', '/v1/policies/community/shadow', { key })).body.error.code).toBe(
      'SHADOW_NOT_FOUND',
    );
  });

  it('shadows another policy or a version, until a time; validates the request', async () => {
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const byVersion = await t.request('PUT', '/v1/policies/community/shadow', {
      key,
      body: { version: 1, until: soon },
    });
    expect(byVersion.body).toMatchObject({ candidate: { source: 'version', version: 1 }, until: soon });
    const byPolicy = await t.request('PUT', '/v1/policies/community/shadow', {
      key,
      body: { shadowPolicyId: 'strict' },
    });
    expect(byPolicy.body).toMatchObject({
      status: 'running',
      candidate: { source: 'policy', policyId: 'strict' },
    });
    // replacing stops the earlier one: one running shadow per policy
    expect((await t.request('GET', '/v1/policies/community/shadow', { key })).body.shadowId).toBe(
      byPolicy.body.shadowId,
    );
    const cases: [unknown, number, string][] = [
      [{}, 422, 'MISSING_REQUIRED_FIELD'],
      [{ version: 1, shadowPolicyId: 'strict' }, 422, 'INVALID_PARAMETER'],
      [{ shadowPolicyId: 'community' }, 422, 'INVALID_PARAMETER'],
      [{ shadowPolicyId: 'nope' }, 404, 'POLICY_NOT_FOUND'],
      [{ version: 1, until: '2001-01-01T00:00:00Z' }, 422, 'INVALID_PARAMETER'],
      [
        { version: 1, until: new Date(Date.now() + 100 * 86_400_000).toISOString() },
        422,
        'INVALID_PARAMETER',
      ],
      [{ yamlContent: 'categories: {}' }, 422, 'INVALID_POLICY'],
    ];
    for (const [body, status, code] of cases) {
      const res = await t.request('PUT', '/v1/policies/community/shadow', { key, body });
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
    }
    const reader = (await t.newKey(['policies:read'])).key;
    const denied = await t.request('PUT', '/v1/policies/community/shadow', {
      key: reader,
      body: { version: 1 },
    });
    expect(denied.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await t.request('GET', '/v1/policies/community/shadow/report?examples=99', { key })).status).toBe(
      422,
    );
    expect((await t.request('GET', '/v1/policies/default/shadow', { key })).body.error.code).toBe(
      'SHADOW_NOT_FOUND',
    );
    await t.request('DELETE', '/v1/policies/community/shadow', { key });
  });

  it('runs as a background job with progress, and survives a restart of the service', async () => {
    const sync = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { yamlContent: CANDIDATE },
    });
    const queued = await t.request('POST', '/v1/policies/community/backtest', {
      key,
      body: { yamlContent: CANDIDATE, async: true },
    });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'queued', progress: { processed: 0 } });
    const total = queued.body.progress.total;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(queued.body.report).toBeUndefined();
    // the service stops before any worker ran the job, and starts again on the same database
    await t.app.close();
    await t.ctx.close();
    const ctx = await createContext(t.config, { bootstrapKey: ADMIN_KEY }, { textProvider: provider });
    const app = await buildApp(ctx);
    let worker: RunningWorker | null = null;
    try {
      worker = startWorker(ctx, { pollMs: 50 });
      const read = async () => {
        const res = await app.inject({
          method: 'GET',
          url: `/v1/backtests/${queued.body.backtestId}`,
          headers: { authorization: `Bearer ${key}` },
        });
        return { body: res.json() };
      };
      const done = await until(read, (r) => r.body.status === 'completed');
      expect(done.body).toMatchObject({ status: 'completed', progress: { processed: total, total } });
      expect(done.body.report).toMatchObject({ total, replayed: total });
      // the job's report is the one a synchronous backtest gives
      expect(done.body.report).toEqual(sync.body.report);
    } finally {
      await worker?.stop({ timeoutMs: 1000 });
      await app.close();
      await ctx.close();
    }
  });
});
