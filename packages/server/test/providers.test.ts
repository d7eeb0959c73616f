import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { photo } from './helpers/images.ts';
import { AZURE_KEY, OPENAI_KEY, type ProviderTestBed, providerTestBed } from './helpers/provider-setup.ts';

let bed: ProviderTestBed;
const policy = (id: string, yaml: string) =>
  bed.t.request('POST', '/v1/policies', { body: { policyId: id, yamlContent: yaml } });
const check = (content: string, policyId: string) =>
  bed.t.request('POST', '/v1/check', { body: { content, policyId } });

beforeAll(async () => {
  bed = await providerTestBed();
  const categories =
    'categories:\n  hate: { threshold: 0.5, action: block }\n  spam: { threshold: 0.5, action: flag }\n';
  for (const name of ['openai', 'guard', 'safeguard', 'azure', 'slow', 'dead'])
    expect((await policy(`via-${name}`, `name: ${name}\nprovider: ${name}\n${categories}`)).status).toBe(201);
  await policy(
    'via-shield',
    'name: shield\nprovider: shield\ncategories:\n  hate: { threshold: 0.5, action: block }\n  harassment: { threshold: 0.5, action: flag }\n',
  );
  await policy('dead-then-openai', `name: f\nprovider: dead\nfallback: [openai]\n${categories}`);
  await policy('dead-then-local', `name: f\nprovider: dead\nfallback: [local]\n${categories}`);
  await policy(
    'cascade',
    `name: c\nescalate: { provider: openai, when: uncertain, band: 0.1 }\n${categories}`,
  );
}, 60_000);
afterAll(async () => bed?.close());
beforeEach(() => {
  bed.fake.behaviour = {};
});

describe('external providers: each kind against its published API shape', () => {
  it('openai-moderation: maps categories, sends the key as a bearer token, prices the call', async () => {
    const before = bed.fake.requests.length;
    const res = await check('you people hate:0.9 spam:0.7', 'via-openai');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider: 'openai', action: 'block', cost: 0.001 });
    const hate = res.body.categories.find((c: { category: string }) => c.category === 'hate');
    expect(hate).toMatchObject({ score: 0.9, evaluated: true, triggered: true });
    // spam is not an OpenAI category: the bundled model judged it
    expect(res.body.categories.find((c: { category: string }) => c.category === 'spam')).toMatchObject({
      score: 0.7,
      triggered: true,
    });
    const sent = bed.fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/v1/moderations');
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(sent[0]!.json).toEqual({ input: 'you people hate:0.9 spam:0.7', model: 'omni-moderation-latest' });
    expect(
      res.body.routing.map((a: { provider: string; outcome: string }) => `${a.provider}:${a.outcome}`),
    ).toEqual(['local:answered', 'openai:answered']);
  });

  it('openai-moderation: threatening sub-categories count as violence', async () => {
    await policy(
      'violence-openai',
      'name: v\nprovider: openai\ncategories:\n  violence: { threshold: 0.5, action: block }\n',
    );
    const res = await check('i will find you harassment_threatening:0.8', 'violence-openai');
    expect(res.body.categories[0]).toMatchObject({ category: 'violence', score: 0.8, triggered: true });
  });

  it('Llama Guard: unsafe with category codes; P(unsafe) from logprobs is the score', async () => {
    const unsafe = await check('hate:0.8 text', 'via-guard');
    expect(unsafe.body).toMatchObject({ provider: 'guard', action: 'block' });
    expect(unsafe.body.categories[0].score).toBeCloseTo(0.8, 3);
    const request = bed.fake.requests.at(-1)!;
    expect(request.json).toMatchObject({
      model: 'meta-llama/Llama-Guard-3-8B',
      logprobs: true,
      temperature: 0,
    });
    expect(request.json.messages).toEqual([{ role: 'user', content: 'hate:0.8 text' }]);
    const safe = await check('have a nice day', 'via-guard');
    expect(safe.body.action).toBe('allow');
    expect(safe.body.categories[0].score).toBeCloseTo(0.02, 3);
  });

  it('Llama Guard without logprobs: the answer alone (1 named, 0 otherwise)', async () => {
    bed.fake.behaviour = { noLogprobs: true };
    const res = await check('hate:0.7 text', 'via-guard');
    expect(res.body.categories[0]).toMatchObject({ score: 1, triggered: true });
  });

  it('logprobs: false asks for none (servers that refuse the parameter); maxTokens is sent as set', async () => {
    await policy(
      'via-guard-plain',
      'name: g\nprovider: guard-plain\ncategories:\n  hate: { threshold: 0.5, action: block }\n',
    );
    const res = await check('hate:0.7 text', 'via-guard-plain');
    const request = bed.fake.requests.at(-1)!;
    expect(request.json.logprobs).toBeUndefined();
    expect(request.json.top_logprobs).toBeUndefined();
    expect(request.json.max_tokens).toBe(8);
    expect(res.body.categories[0]).toMatchObject({ score: 1, triggered: true });
  });

  it('ShieldGemma: one yes/no prompt per category, P(Yes) as the score, priced per 1k characters', async () => {
    const before = bed.fake.requests.length;
    const text = 'harassment:0.75 and hate:0.1';
    const res = await check(text, 'via-shield');
    expect(res.status).toBe(200);
    const sent = bed.fake.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent.map((r) => /\* "No ([A-Za-z ]+)"/.exec(r.json.messages[0].content)?.[1]).sort()).toEqual([
      'Harassment',
      'Hate Speech',
    ]);
    const byName = Object.fromEntries(
      res.body.categories.map((c: { category: string; score: number }) => [c.category, c.score]),
    );
    expect(byName.harassment).toBeCloseTo(0.75, 3);
    expect(byName.hate).toBeCloseTo(0.1, 3);
    expect(res.body.cost).toBeCloseTo((0.01 * text.length) / 1000, 6);
  });

  it("gpt-oss-safeguard: the policy's categories in the prompt, JSON labels, logprobs as scores", async () => {
    const res = await check('hate:0.85 buy now', 'via-safeguard');
    const request = bed.fake.requests.at(-1)!;
    const system = request.json.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('- hate:');
    expect(system.content).toContain('- spam:');
    expect(system.content).not.toContain('- violence:');
    expect(request.json).toMatchObject({ reasoning_effort: 'low', max_tokens: 2048 });
    expect(res.body.categories[0]).toMatchObject({ category: 'hate', triggered: true });
    expect(res.body.categories[0].score).toBeCloseTo(0.85, 3);
  });

  it('azure-content-safety: text:analyze with the subscription key; severity / 6 as the score', async () => {
    const res = await check('hate:0.7', 'via-azure');
    const request = bed.fake.requests.at(-1)!;
    expect(request.path).toBe('/contentsafety/text:analyze?api-version=2024-09-01');
    expect(request.headers['ocp-apim-subscription-key']).toBe(AZURE_KEY);
    expect(request.json).toEqual({
      text: 'hate:0.7',
      categories: ['Hate'],
      outputType: 'FourSeverityLevels',
    });
    expect(res.body.categories[0].score).toBeCloseTo(4 / 6, 5);
    expect(res.body).toMatchObject({ provider: 'azure', action: 'block', cost: 0.0015 });
  });
});

describe('images routed to azure-content-safety (image:analyze)', () => {
  it('sends the image as base64; Azure judges categories the bundled image model cannot', async () => {
    await policy(
      'img-azure',
      'name: i\nprovider: azure\ncategories:\n  violence: { threshold: 0.5, action: block }\n  suggestive: { threshold: 0.9, action: warn }\n',
    );
    const bytes = await photo('jpeg');
    bed.fake.behaviour = { imageSeverities: { Violence: 6 } };
    const res = await bed.t.request('POST', '/v1/check', {
      body: { content: bytes.toString('base64'), contentType: 'image', policyId: 'img-azure' },
    });
    expect(res.status).toBe(200);
    const request = bed.fake.requests.at(-1)!;
    expect(request.path).toBe('/contentsafety/image:analyze?api-version=2024-09-01');
    expect(request.json).toEqual({
      image: { content: bytes.toString('base64') },
      categories: ['Violence'],
      outputType: 'FourSeverityLevels',
    });
    expect(res.body).toMatchObject({ provider: 'azure', action: 'block', cost: 0.0015 });
    expect(res.body.categories[0]).toMatchObject({ category: 'violence', score: 1, evaluated: true });
    // suggestive is not an Azure category: the bundled image model judged it
    expect(res.body.categories[1]).toMatchObject({ category: 'suggestive', evaluated: true });
  }, 60_000);

  it('a text-only provider is skipped for images: the bundled model answers', async () => {
    const before = bed.fake.requests.length;
    const res = await bed.t.request('POST', '/v1/check', {
      body: {
        content: (await photo('png')).toString('base64'),
        contentType: 'image',
        policyId: 'via-openai',
      },
    });
    expect(res.status).toBe(200);
    expect(bed.fake.requests.length).toBe(before);
    expect(res.body.provider).toBe('local');
    expect(res.body.routing.at(-1)).toMatchObject({ provider: 'openai', outcome: 'skipped' });
  }, 60_000);
});

describe('failures: malformed answers, timeouts, retries, fallback, circuit breaker', () => {
  it.each([
    ['not JSON', 'via-openai', 'this is not json'],
    ['wrong shape', 'via-openai', '{"results": []}'],
    ['a score outside 0..1', 'via-openai', JSON.stringify({ results: [{ category_scores: { hate: 7 } }] })],
    [
      'Llama Guard prose',
      'via-guard',
      JSON.stringify({ choices: [{ message: { content: 'I think it is fine' } }] }),
    ],
    [
      'Llama Guard unknown code',
      'via-guard',
      JSON.stringify({ choices: [{ message: { content: 'unsafe\nS99' } }] }),
    ],
    [
      'safeguard fenced JSON',
      'via-safeguard',
      JSON.stringify({ choices: [{ message: { content: '```json\n{"hate":1,"spam":0}\n```' } }] }),
    ],
    ['Azure without severities', 'via-azure', JSON.stringify({ categoriesAnalysis: [{ category: 'Hate' }] })],
  ])(
    'a malformed answer (%s) is 502 PROVIDER_ERROR without fallback, and is not counted',
    async (_what, policyId, rawBody) => {
      bed.fake.behaviour = { rawBody };
      const usage = (await bed.t.request('GET', '/v1/usage')).body.evaluations;
      const res = await check('hate:0.9', policyId);
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('PROVIDER_ERROR');
      expect(res.body.error.details.attempts[0].error).toMatch(/malformed/);
      expect((await bed.t.request('GET', '/v1/usage')).body.evaluations).toBe(usage);
    },
  );

  it('retries 5xx and 429 with backoff within the timeout, then answers', async () => {
    bed.fake.behaviour = { status: 503, times: 2 };
    const before = bed.fake.requests.length;
    const res = await check('hate:0.9', 'via-openai');
    expect(res.status).toBe(200);
    expect(bed.fake.requests.length - before).toBe(3);
    bed.fake.behaviour = { status: 429, times: 1, retryAfter: '0' };
    expect((await check('hate:0.9', 'via-openai')).status).toBe(200);
  });

  it('does not retry a 4xx other than 429 (a wrong key)', async () => {
    bed.fake.behaviour = { status: 401 };
    const before = bed.fake.requests.length;
    const res = await check('hate:0.9', 'via-openai');
    expect(res.status).toBe(502);
    expect(bed.fake.requests.length - before).toBe(1);
    expect(res.body.error.details.attempts[0].error).toContain('HTTP 401');
  });

  it('times out a slow provider at its timeoutMs', async () => {
    bed.fake.behaviour = { delayMs: 2000 };
    const started = Date.now();
    const res = await check('hate:0.9', 'via-slow');
    expect(res.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(res.body.error.details.attempts[0].error).toMatch(/within 300 ms/);
  });

  it('falls back to the next provider, or to local, and records why', async () => {
    const res = await check('hate:0.9', 'dead-then-openai');
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('openai');
    expect(res.body.routing.map((a: any) => [a.provider, a.role, a.outcome])).toEqual([
      ['local', 'local', 'answered'],
      ['dead', 'primary', 'failed'],
      ['openai', 'fallback', 'answered'],
    ]);
    const local = await check('hate:0.9', 'dead-then-local');
    expect(local.body).toMatchObject({ provider: 'test-keywords', action: 'block', cost: 0 });
    const stored = await bed.t.request('GET', `/v1/decisions/${local.body.decisionId}`);
    expect(stored.body.routing.at(-1)).toMatchObject({ provider: 'local', role: 'fallback' });
  });

  it('opens the circuit after repeated failures (shown in /v1/providers and /readyz), then half-opens', async () => {
    // earlier tests failed `dead` twice; one more opens it (failures: 3)
    let res = await check('x', 'via-dead');
    expect(res.status).toBe(502);
    const providers = await bed.t.request('GET', '/v1/providers');
    expect(providers.body.providers.find((p: any) => p.name === 'dead').state).toBe('open');
    const ready = await bed.t.request('GET', '/readyz', { key: null });
    expect(ready.body.providers.dead).toBe('open');
    const metrics = (await bed.t.request('GET', '/metrics')).body as string;
    expect(metrics).toContain('verdict_provider_circuit_state{provider="dead",state="open"} 1');
    expect(metrics).toContain('verdict_provider_circuit_state{provider="dead",state="closed"} 0');
    const started = Date.now();
    res = await check('x', 'via-dead');
    expect(res.body.error.details.attempts[0].error).toMatch(/circuit open/);
    expect(Date.now() - started).toBeLessThan(100);
    await new Promise((r) => setTimeout(r, 450));
    expect(
      (await bed.t.request('GET', '/v1/providers')).body.providers.find((p: any) => p.name === 'dead').state,
    ).toBe('half_open');
  });

  it('keeps connections alive between calls', async () => {
    await check('hate:0.1', 'via-azure');
    const connections = bed.fake.connections;
    for (let i = 0; i < 5; i++) expect((await check('hate:0.1', 'via-azure')).status).toBe(200);
    expect(bed.fake.connections).toBe(connections);
  });

  it('never has more than maxConcurrency calls in flight to a provider', async () => {
    // the slow provider's abandoned call may still be waiting at the fake
    while (bed.fake.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    bed.fake.behaviour = { delayMs: 100 };
    bed.fake.maxInFlight = 0;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => check(`hate:0.${i + 1}`, 'via-openai')),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(bed.fake.maxInFlight).toBe(2);
  });
});

describe('cascade, replay, cost and usage', () => {
  it('escalates only texts whose local scores are near a threshold', async () => {
    const before = bed.fake.requests.length;
    const texts = [
      ...Array.from({ length: 19 }, (_, i) => `hate:0.0${i % 9} spam:0.1`),
      'hate:0.45 borderline',
    ];
    const results = [];
    for (const text of texts) results.push(await check(text, 'cascade'));
    expect(bed.fake.requests.length - before).toBe(1);
    const escalated = results.at(-1)!.body;
    expect(escalated.provider).toBe('openai');
    expect(escalated.routing[1]).toMatchObject({
      provider: 'openai',
      role: 'escalation',
      outcome: 'answered',
    });
    expect(escalated.routing[1].reason).toMatch(/uncertain: hate 0.45/);
    expect(results[0]!.body.provider).toBe('test-keywords');
    expect(results[0]!.body.routing).toBeUndefined();
  });

  it('replays reuse each provider’s stored scores; a provider not asked before is asked once', async () => {
    const original = await check('hate:0.45', 'via-openai');
    const before = bed.fake.requests.length;
    const replay = await bed.t.request('POST', `/v1/decisions/${original.body.decisionId}/replay`, {
      body: { policyId: 'cascade' },
    });
    expect(replay.status).toBe(200);
    expect(bed.fake.requests.length).toBe(before);
    expect(replay.body.routing.map((a: any) => a.outcome)).toEqual(['reused', 'reused']);
    expect(replay.body.cost).toBe(0);
    const localOnly = await check('hate:0.48', 'default');
    const escalated = await bed.t.request('POST', `/v1/decisions/${localOnly.body.decisionId}/replay`, {
      body: { policyId: 'cascade' },
    });
    expect(bed.fake.requests.length).toBe(before + 1);
    expect(escalated.body.routing.map((a: any) => `${a.provider}:${a.outcome}`)).toEqual([
      'local:reused',
      'openai:answered',
    ]);
  });

  it('dry runs call no provider', async () => {
    const before = bed.fake.requests.length;
    const res = await bed.t.request('POST', '/v1/check/dry-run', {
      body: { policyId: 'via-openai', mockScores: { hate: 0.9 } },
    });
    expect(res.body.action).toBe('block');
    expect(bed.fake.requests.length).toBe(before);
  });

  it('shows the month’s provider cost in usage, per account, and per provider in /v1/providers', async () => {
    const openaiBefore = (await bed.t.request('GET', '/v1/providers')).body.providers.find(
      (p: any) => p.name === 'openai',
    );
    const { key } = await bed.t.newKey(['check', 'policies:write', 'decisions:read']);
    await bed.t.request('POST', '/v1/policies', {
      key,
      body: {
        policyId: 'mine-openai',
        yamlContent: 'name: m\nprovider: openai\ncategories:\n  hate: {threshold: 0.5, action: block}\n',
      },
    });
    for (let i = 0; i < 3; i++)
      expect(
        (await bed.t.request('POST', '/v1/check', { key, body: { content: 'hi', policyId: 'mine-openai' } }))
          .status,
      ).toBe(200);
    const usage = await bed.t.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({ evaluations: 3, costUsd: 0.003 });
    const after = (await bed.t.request('GET', '/v1/providers')).body.providers.find(
      (p: any) => p.name === 'openai',
    );
    expect(after.evaluationsThisMonth - openaiBefore.evaluationsThisMonth).toBe(3);
    expect(after.spendThisMonthUsd - openaiBefore.spendThisMonthUsd).toBeCloseTo(0.003, 9);
  });

  it('refuses a policy naming an unknown provider, or escalating to local', async () => {
    let res = await policy(
      'bad',
      'name: b\nprovider: nope\ncategories:\n  hate: {threshold: 0.5, action: block}\n',
    );
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { provider: 'nope' } });
    expect(res.body.error.details.allowed).toContain('openai');
    res = await policy(
      'bad',
      'name: b\nescalate: { provider: local }\ncategories:\n  hate: {threshold: 0.5, action: block}\n',
    );
    expect(res.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { line: 2 } });
  });

  it('GET /v1/providers: operator admins see health and spend; others are refused', async () => {
    const res = await bed.t.request('GET', '/v1/providers');
    expect(res.status).toBe(200);
    const openai = res.body.providers.find((p: any) => p.name === 'openai');
    expect(openai).toMatchObject({ kind: 'openai-moderation', state: 'closed' });
    expect(openai.calls).toBeGreaterThan(5);
    expect(openai.latencyMs.p50).toBeGreaterThan(0);
    expect(openai.spendThisMonthUsd).toBeGreaterThan(0);
    expect(res.body.providers[0]).toMatchObject({ name: 'local', kind: 'bundled' });
    expect(JSON.stringify(res.body)).not.toContain(OPENAI_KEY);
    const { key } = await bed.t.newKey(['check']);
    expect((await bed.t.request('GET', '/v1/providers', { key })).status).toBe(403);
  });
});
