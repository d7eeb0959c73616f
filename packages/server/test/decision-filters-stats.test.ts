import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

describe.each(engines)('GET /v1/decisions filters and GET /v1/stats (%s)', (engine) => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  const before = new Date().toISOString();
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    const check = async (name: string, content: string, policyId: string, userId?: string) => {
      const res = await t.request('POST', '/v1/check', {
        body: { content, policyId, ...(userId && { metadata: { userId } }) },
      });
      expect(res.status).toBe(200);
      ids[name] = res.body.decisionId;
    };
    await check('benign', 'a nice day', 'default', 'alice');
    await check('hate', 'hate:0.95', 'default', 'bob');
    await check('violence', 'violence:0.9', 'permissive', 'alice');
    await check('spam', 'spam:0.99 hate:0.95', 'strict');
  });
  afterAll(() => t.close());

  const list = async (query: string) => {
    const res = await t.request('GET', `/v1/decisions?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.decisions as { decisionId: string }[]).map((d) => d.decisionId);
  };

  it('filters by action, policy, triggered category, content type, user and time, newest first', async () => {
    expect(await list('')).toEqual([ids.spam, ids.violence, ids.hate, ids.benign]);
    expect(await list('action=allow')).toEqual([ids.benign]);
    expect(await list('policyId=default')).toEqual([ids.hate, ids.benign]);
    expect(await list('category=hate')).toEqual([ids.spam, ids.hate]);
    expect(await list('category=hate&policyId=strict')).toEqual([ids.spam]);
    expect(await list('category=sexual')).toEqual([]);
    expect(await list('userId=alice')).toEqual([ids.violence, ids.benign]);
    expect(await list('contentType=text&limit=2')).toEqual([ids.spam, ids.violence]);
    expect(await list('contentType=image')).toEqual([]);
    expect(await list(`from=${encodeURIComponent(before)}`)).toHaveLength(4);
    expect(await list(`to=${encodeURIComponent(before)}`)).toEqual([]);
    const page = await t.request('GET', '/v1/decisions?userId=alice&limit=1');
    expect(page.body.hasMore).toBe(true);
  });

  it('refuses unknown, repeated and malformed filters with 422 INVALID_PARAMETER', async () => {
    for (const query of [
      'acton=block',
      'action=delete',
      'category=nope',
      'contentType=audio',
      'from=yesterday',
      'to=2030-13-45T00:00:00Z',
      'action=allow&action=block',
      'from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z',
      'userId=',
    ]) {
      const res = await t.request('GET', `/v1/decisions?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toBe('INVALID_PARAMETER');
    }
  });

  it('keeps filters inside the account', async () => {
    const other = await t.newKey(['decisions:read']);
    const res = await t.request('GET', '/v1/decisions?userId=alice', { key: other.key });
    expect(res.body.decisions).toEqual([]);
  });

  it('computes hourly statistics in the database: counts, action mix, rates, latency, categories', async () => {
    const res = await t.request('GET', '/v1/stats?bucket=hour');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.bucket).toBe('hour');
    expect(res.body.buckets.length).toBeGreaterThanOrEqual(24);
    expect(res.body.buckets.length).toBeLessThanOrEqual(25);
    const { totals } = res.body;
    expect(totals.count).toBe(4);
    expect(totals.actions.allow + totals.actions.warn + totals.actions.flag + totals.actions.block).toBe(4);
    expect(totals.actions.allow).toBe(1);
    expect(totals.flagged).toBe(3);
    expect(totals.flagRate).toBe(0.75);
    expect(totals.blockRate).toBe(totals.actions.block / 4);
    expect(totals.categories).toMatchObject({ hate: 2, violence: 1, spam: 1 });
    expect(typeof totals.latencyP50).toBe('number');
    expect(totals.latencyP99).toBeGreaterThanOrEqual(totals.latencyP50);
    const busy = res.body.buckets.filter((b: { count: number }) => b.count > 0);
    expect(busy.reduce((s: number, b: { count: number }) => s + b.count, 0)).toBe(4);
    const empty = res.body.buckets.find((b: { count: number }) => b.count === 0);
    expect(empty).toMatchObject({ flagRate: 0, latencyP50: null, categories: {} });
    const lastHour = await t.request(
      'GET',
      '/v1/stats?bucket=minute&from=' + encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString()),
    );
    expect(lastHour.body.bucket).toBe('minute');
    expect(lastHour.body.totals.count).toBe(4);
    expect(lastHour.body.buckets.length).toBeGreaterThanOrEqual(60);
    expect(lastHour.body.buckets.reduce((s: number, b: { count: number }) => s + b.count, 0)).toBe(4);
    const daily = await t.request('GET', '/v1/stats?from=2026-01-01T00:00:00Z&to=2026-01-31T00:00:00Z');
    expect(daily.body.bucket).toBe('day');
    expect(daily.body.buckets).toHaveLength(30);
  });

  it('refuses bad statistics parameters', async () => {
    for (const query of [
      'bucket=week',
      'from=nope',
      'range=1h',
      'from=2020-01-01T00:00:00Z&bucket=hour',
      'to=2020-01-01T00:00:00Z&from=2021-01-01T00:00:00Z',
    ]) {
      const res = await t.request('GET', `/v1/stats?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code, query).toBe('INVALID_PARAMETER');
    }
    const checker = await t.newKey(['check']);
    expect((await t.request('GET', '/v1/stats', { key: checker.key })).status).toBe(403);
    expect((await t.request('GET', '/v1/stats', { key: null })).status).toBe(401);
  });

  it('validates policy YAML without saving it, with line and column', async () => {
    const bad = await t.request('POST', '/v1/policies/validate', {
      body: { yamlContent: 'name: x\ncategories:\n  hate: { threshold: 2, action: block }\n' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('INVALID_THRESHOLD');
    const malformed = await t.request('POST', '/v1/policies/validate', {
      body: { yamlContent: 'name: x\ncategories: [\n' },
    });
    expect(malformed.body.error.code).toBe('INVALID_YAML');
    expect(malformed.body.error.details.line).toBeGreaterThan(0);
    const good = await t.request('POST', '/v1/policies/validate', {
      body: { yamlContent: 'name: x\ncategories:\n  hate: { threshold: 0.5, action: block }\n' },
    });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ valid: true, name: 'x', categories: { hate: { threshold: 0.5 } } });
    expect((await t.request('GET', '/v1/policies')).body.policies.map((p: any) => p.name)).not.toContain('x');
  });
});
