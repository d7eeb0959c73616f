import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/context.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';

/** One sample line of the Prometheus text exposition format (0.0.4): name{labels} value. */
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/;

function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    samples.set(line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return samples;
}

describe('GET /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is Prometheus text with requests, latency, decisions, queue, database and process figures', async () => {
    const { key } = await t.newKey(['check']);
    for (const content of ['hello there', 'you are an idiot']) {
      expect(
        (await t.request('POST', '/v1/check', { key, body: { content, policyId: 'default' } })).status,
      ).toBe(200);
    }
    await t.request('GET', '/v1/nothing-here', { key });
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parse(res.body);
    expect(samples.get('verdict_http_requests_total{route="/v1/check",method="POST",status="200"}')).toBe(2);
    expect(samples.get('verdict_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(
      samples.get(
        'verdict_http_request_duration_seconds_count{route="/v1/check",method="POST",status="200"}',
      ),
    ).toBe(2);
    const decisions = [...samples].filter(([k]) => k.startsWith('verdict_decisions_total{'));
    expect(decisions.reduce((sum, [, v]) => sum + v, 0)).toBe(2);
    expect(decisions.every(([k]) => /content_type="text"/.test(k))).toBe(true);
    expect(samples.get('verdict_queue_jobs_pending')).toBeGreaterThanOrEqual(0);
    expect(samples.get('verdict_sqlite_database_bytes')).toBeGreaterThan(0);
    expect(samples.has('verdict_sqlite_wal_bytes')).toBe(true);
    expect(samples.get('verdict_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.has('verdict_nodejs_eventloop_lag_p99_seconds')).toBe(true);
    // every model call is timed, by provider, content type and outcome
    expect(
      samples.get(
        'verdict_provider_call_duration_seconds_count{provider="local",content_type="text",outcome="answered"}',
      ),
    ).toBe(2);
    expect(samples.get('verdict_queue_oldest_job_age_seconds')).toBe(0);
  });

  it('reports how long the oldest due job has waited (no worker runs here)', async () => {
    await t.ctx.queue.enqueue([{ name: 'metrics-probe', data: {}, id: 'metrics-probe' }]);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    const age = parse(res.body).get('verdict_queue_oldest_job_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(1);
    expect(age).toBeLessThan(60);
  });

  it('needs an admin key or the metrics token', async () => {
    const { key } = await t.newKey(['check']);
    const get = (authorization?: string) =>
      t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
    expect((await get()).json().error.code).toBe('MISSING_API_KEY');
    expect((await get()).statusCode).toBe(401);
    expect((await get('Bearer vk_not_a_key_0000000000000000')).statusCode).toBe(401);
    const scoped = await get(`Bearer ${key}`);
    expect(scoped.statusCode).toBe(403);
    expect(scoped.json().error.code).toBe('INSUFFICIENT_PERMISSIONS');

    const token = 'metrics-token-0123456789abcdef';
    const ctx = await createContext(t.config, { bootstrapKey: ADMIN_KEY, metricsToken: token });
    const app = await buildApp(ctx);
    try {
      const ok = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.statusCode).toBe(200);
      const wrong = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${token.slice(0, -1)}x` },
      });
      expect(wrong.statusCode).toBe(401);
    } finally {
      await app.close();
      await ctx.close();
    }
  });
});
