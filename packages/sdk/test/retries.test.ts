import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/test/helpers/process.ts';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  parseRetryAfter,
  RateLimitError,
  retryDelay,
  UnprocessableEntityError,
  Verdict,
  VerdictError,
} from '../src/index.ts';
import { errorBody, FaultServer } from './helpers/fault-server.ts';

const CHECK_OK = {
  decisionId: 'dec_1',
  safe: true,
  flagged: false,
  action: 'allow',
  categories: [],
  provider: 'local',
  latency: 1,
  cost: 0,
};

describe('retry schedule (unit)', () => {
  it('is 1 s, 2 s, 4 s, 8 s … capped at 60 s without Retry-After', () => {
    expect([0, 1, 2, 3, 4].map((n) => retryDelay(n))).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(retryDelay(10)).toBe(60_000);
  });

  it('honours Retry-After in seconds or as an HTTP date, up to 60 s', () => {
    expect(retryDelay(0, '3')).toBe(3000);
    expect(retryDelay(2, '0')).toBe(0);
    expect(retryDelay(0, '1.5')).toBe(1500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelay(0, 'Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    // Unusable values fall back to the schedule; a wait over 60 s is not retried at all (null): asking again
    // earlier than the server says would only be refused again.
    expect(retryDelay(1, 'soon')).toBe(2000);
    expect(retryDelay(1, '-1')).toBe(2000);
    expect(retryDelay(0, '3600')).toBeNull();
    expect(retryDelay(0, '60')).toBe(60_000);
    expect(parseRetryAfter(null)).toBeNull();
  });
});

describe('retries against a fault-injecting server', () => {
  const server = new FaultServer();
  let delays: number[];
  /** A client whose waits are recorded instead of slept, so the real schedule is visible and tests stay fast. */
  const client = (options: { maxRetries?: number; timeout?: number } = {}) =>
    new Verdict({
      apiKey: 'vk_test',
      baseUrl: server.url,
      ...options,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });

  beforeAll(() => server.start());
  afterAll(() => server.close());

  const keysOf = () => server.requests.map((r) => r.headers['idempotency-key']);

  it('503, 503, then success: waits 1 s and 2 s and sends one idempotency key on every attempt', async () => {
    delays = [];
    server.respond(
      { status: 503, body: errorBody('SERVICE_UNAVAILABLE') },
      { status: 503, body: errorBody('SERVICE_UNAVAILABLE') },
      { status: 200, body: CHECK_OK },
    );
    const result = await client().check({ content: 'hi', policyId: 'default' });
    expect(result.decisionId).toBe('dec_1');
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([1000, 2000]);
    const keys = keysOf();
    expect(keys[0]).toMatch(/^sdk_[0-9a-f-]{32,36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(server.requests.every((r) => r.headers.authorization === 'Bearer vk_test')).toBe(true);
    expect(JSON.parse(server.requests[2]!.body)).toEqual({ content: 'hi', policyId: 'default' });
    // A new operation gets a new key.
    server.respond({ status: 200, body: CHECK_OK });
    await client().check({ content: 'hi', policyId: 'default' });
    expect(keysOf()[0]).not.toBe(keys[0]);
  });

  it('gives up after maxRetries (default 3: waits 1 s, 2 s, 4 s) with the last error', async () => {
    delays = [];
    server.respond({ status: 502, body: errorBody('PROVIDER_ERROR', 'provider down') });
    const error = await client()
      .checkMultimodal({ text: 'x', policyId: 'default' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, code: 'PROVIDER_ERROR', message: 'provider down' });
    expect(server.requests).toHaveLength(4);
    expect(delays).toEqual([1000, 2000, 4000]);
    expect(new Set(keysOf()).size).toBe(1);

    server.respond({ status: 500, body: errorBody('INTERNAL_ERROR') });
    expect(
      await client({ maxRetries: 0 })
        .policies.list()
        .catch((e) => e),
    ).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('429 with Retry-After: waits what the server says', async () => {
    delays = [];
    server.respond(
      { status: 429, body: errorBody('RATE_LIMIT_EXCEEDED'), headers: { 'retry-after': '7' } },
      { status: 429, body: errorBody('BURST_LIMIT_EXCEEDED'), headers: { 'retry-after': '0' } },
      { status: 200, body: { policies: [] } },
    );
    expect(await client().policies.list()).toEqual({ policies: [] });
    expect(delays).toEqual([7000, 0]);
    // GETs carry no idempotency key.
    expect(keysOf()).toEqual([undefined, undefined, undefined]);
  });

  it('429 honours Retry-After with the real timer', async () => {
    server.respond(
      { status: 429, body: { error: 'Too many requests', retryAfter: 1 }, headers: { 'retry-after': '1' } },
      { status: 200, body: { policies: [] } },
    );
    const started = Date.now();
    await new Verdict({ apiKey: 'k', baseUrl: server.url }).policies.list();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('a 429 that persists is a RateLimitError; the rate-limit body form gives code and retryAfter', async () => {
    delays = [];
    server.respond({ status: 429, body: { error: 'Too many requests', retryAfter: 12 } });
    const error = await client({ maxRetries: 1 })
      .check({ content: 'x', policyId: 'p' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({
      status: 429,
      code: 'RATE_LIMIT_EXCEEDED',
      message: 'Too many requests',
      retryAfter: 12,
      details: { retryAfter: 12 },
      requestId: 'req_fault_2',
    });
    expect(delays).toEqual([12000]);
  });

  it.each([
    [401, 'INVALID_API_KEY', AuthenticationError],
    [402, 'QUOTA_EXCEEDED', PaymentRequiredError],
    [403, 'INSUFFICIENT_PERMISSIONS', PermissionDeniedError],
    [404, 'POLICY_NOT_FOUND', NotFoundError],
    [422, 'INVALID_CONTENT', UnprocessableEntityError],
    [409, 'DUPLICATE_POLICY_ID', ConflictError],
  ])('never retries %i (%s)', async (status, code, type) => {
    delays = [];
    server.respond({ status, body: errorBody(code) }, { status: 200, body: CHECK_OK });
    const error = await client()
      .check({ content: 'x', policyId: 'p' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toBeInstanceOf(VerdictError);
    expect(error).toMatchObject({ status, code, requestId: 'req_from_body' });
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_USE (the first attempt is still running) with the same key', async () => {
    delays = [];
    server.respond(
      { status: 409, body: errorBody('IDEMPOTENCY_KEY_IN_USE') },
      { status: 200, body: CHECK_OK },
    );
    await client().check({ content: 'x', policyId: 'p' });
    expect(server.requests).toHaveLength(2);
    expect(new Set(keysOf()).size).toBe(1);
  });

  it('reads the older flat error form and non-JSON bodies', async () => {
    server.respond({
      status: 422,
      body: { error: 'Bad content', code: 'INVALID_CONTENT', details: 'too short' },
    });
    const flat = await client()
      .check({ content: 'x', policyId: 'p' })
      .catch((e) => e);
    expect(flat).toMatchObject({
      status: 422,
      code: 'INVALID_CONTENT',
      message: 'Bad content',
      details: 'too short',
      requestId: 'req_fault_1',
    });
    server.respond({ status: 503, body: '<html>Service Unavailable</html>' });
    const html = await client({ maxRetries: 0 })
      .policies.list()
      .catch((e) => e);
    expect(html).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(html.message).toContain('Service Unavailable');
  });

  it('a timeout is retried with the same key, then APITimeoutError', async () => {
    delays = [];
    server.respond({ hang: true });
    const started = Date.now();
    const error = await client({ timeout: 150, maxRetries: 1 })
      .batch.check({ policyId: 'p', items: [{ id: '1', content: 'x' }] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.status).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(server.requests).toHaveLength(2);
    expect(new Set(keysOf()).size).toBe(1);
    expect(delays).toEqual([1000]);
  });

  it('a timed-out attempt followed by a success returns the success', async () => {
    server.respond({ hang: true }, { status: 200, body: CHECK_OK });
    const result = await client({ timeout: 150 }).check(
      { content: 'x', policyId: 'p' },
      { idempotencyKey: 'mine' },
    );
    expect(result.decisionId).toBe('dec_1');
    expect(keysOf()).toEqual(['mine', 'mine']);
  });

  it('network errors: a cut connection is retried; a refused one ends in APIConnectionError', async () => {
    delays = [];
    server.respond({ destroy: true }, { status: 200, body: CHECK_OK });
    expect((await client().check({ content: 'x', policyId: 'p' })).decisionId).toBe('dec_1');
    expect(server.requests).toHaveLength(2);
    expect(delays).toEqual([1000]);

    delays = [];
    const closed = new Verdict({
      apiKey: 'k',
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      maxRetries: 2,
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    const error = await closed.policies.list().catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect(error.code).toBe('CONNECTION_ERROR');
    expect(error.message).toContain('ECONNREFUSED');
    expect(delays).toEqual([1000, 2000]);
  });

  it('sends the body requestId as the idempotency key, and none for dry runs', async () => {
    server.respond({ status: 200, body: CHECK_OK });
    await client().check({ content: 'x', policyId: 'p', requestId: 'body-key' });
    expect(keysOf()).toEqual(['body-key']);
    server.respond({ status: 200, body: { dryRun: true } });
    await client().checkDryRun({ policyId: 'p', mockScores: { hate: 1 } });
    expect(keysOf()).toEqual([undefined]);
  });

  it('a Retry-After over 60 s gives up at once with the error and the wait, instead of asking again early', async () => {
    delays = [];
    server.respond({
      status: 503,
      body: errorBody('SERVICE_UNAVAILABLE'),
      headers: { 'retry-after': '120' },
    });
    const error = await client()
      .policies.list()
      .catch((e) => e);
    expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(error.headers.get('retry-after')).toBe('120');
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a success whose body is not the service JSON is an error, never a result (a portal page is no verdict)', async () => {
    server.respond({ status: 200, body: '<html>Sign in to the Wi-Fi</html>' });
    const error = await client()
      .check({ content: 'x', policyId: 'p' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(VerdictError);
    expect(error).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
    expect(server.requests).toHaveLength(1);
  });

  it('does not repeat a POST without an idempotency key after a failure that may have done its work', async () => {
    delays = [];
    server.respond({ status: 503, body: errorBody('SERVICE_UNAVAILABLE') });
    expect(
      await client()
        .webhooks.rotateSecret('whk_1')
        .catch((e) => e),
    ).toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
    server.respond({ destroy: true });
    expect(
      await client()
        .keys.create({ name: 'k', scopes: ['check'] })
        .catch((e) => e),
    ).toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(1);
    // a 429 was refused before any work: that one is retried
    server.respond(
      { status: 429, body: errorBody('RATE_LIMIT_EXCEEDED') },
      { status: 200, body: { success: true } },
    );
    await client().webhooks.test('whk_1', { eventType: 'decision.created' });
    expect(server.requests).toHaveLength(2);
    // a dry-run changes nothing, so it is retried like a GET
    server.respond(
      { status: 503, body: errorBody('SERVICE_UNAVAILABLE') },
      { status: 200, body: { dryRun: true } },
    );
    await client().checkDryRun({ policyId: 'p', mockScores: { hate: 1 } });
    expect(server.requests).toHaveLength(2);
  });

  it('uses an Idempotency-Key passed as a header, in any case, as the one key of the call', async () => {
    for (const name of ['Idempotency-Key', 'idempotency-key', 'IDEMPOTENCY-KEY']) {
      server.respond(
        { status: 503, body: errorBody('SERVICE_UNAVAILABLE') },
        { status: 200, body: CHECK_OK },
      );
      await client().check({ content: 'x', policyId: 'p' }, { headers: { [name]: 'mine-1' } });
      expect(keysOf()).toEqual(['mine-1', 'mine-1']);
    }
  });

  it('reads the code of a rate-limit body that carries it in `error`, and names a gateway page by its status', async () => {
    server.respond({ status: 429, body: { error: 'BURST_LIMIT_EXCEEDED', retryAfter: 1 } });
    const limited = await client({ maxRetries: 0 })
      .policies.list()
      .catch((e) => e);
    expect(limited).toMatchObject({ code: 'BURST_LIMIT_EXCEEDED', message: 'BURST_LIMIT_EXCEEDED' });
    server.respond({ status: 502, body: '<html>Bad Gateway</html>' });
    const gateway = await client({ maxRetries: 0 })
      .policies.list()
      .catch((e) => e);
    expect(gateway).toMatchObject({ status: 502, code: 'SERVICE_UNAVAILABLE' });
  });

  it('an aborted signal stops at once and is not retried', async () => {
    server.respond({ hang: true });
    const controller = new AbortController();
    const pending = client({ timeout: 5000 })
      .check({ content: 'x', policyId: 'p' }, { signal: controller.signal })
      .catch((e) => e);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    expect(server.requests).toHaveLength(1);
  });
});
