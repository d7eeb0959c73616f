import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { dataUri, photo } from './helpers/images.ts';

let t: TestApp;
let baseUrl: string;
let key: string;

beforeAll(async () => {
  t = await createTestApp(); // the bundled models
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  ({ key } = await t.newKey(['check', 'decisions:read']));
}, 60_000);
afterAll(async () => t?.close());

const usage = async () => (await t.request('GET', '/v1/usage', { key })).body.evaluations as number;

describe('POST /v1/moderations with the official openai client', () => {
  const client = () => new OpenAI({ apiKey: key, baseURL: `${baseUrl}/v1`, maxRetries: 0 });

  it('flags a threat and passes a greeting, in OpenAI’s result shape', async () => {
    const before = await usage();
    const threat = await client().moderations.create({
      model: 'omni-moderation-latest',
      input: 'I am going to kill you',
    });
    expect(threat.id).toMatch(/^modr-/);
    expect(threat.model).toMatch(/^verdict-local-/);
    const [result] = threat.results;
    expect(result!.flagged).toBe(true);
    expect(result!.categories.violence).toBe(true);
    expect(result!.category_scores.violence).toBeGreaterThanOrEqual(0.5);
    expect(result!.category_applied_input_types.violence).toEqual(['text']);
    // categories the bundled models cannot judge: never invented
    expect(result!.category_scores['violence/graphic']).toBe(0);
    expect(result!.category_applied_input_types['violence/graphic']).toEqual([]);
    const greeting = await client().moderations.create({ input: 'Thanks, have a lovely weekend!' });
    expect(greeting.results[0]!.flagged).toBe(false);
    expect(await usage()).toBe(before + 2);
  });

  it('answers an array of strings with one result each', async () => {
    const res = await client().moderations.create({ input: ['hello friend', 'you are a worthless idiot'] });
    expect(res.results).toHaveLength(2);
    expect(res.results[0]!.flagged).toBe(false);
    expect(res.results[1]!.category_scores.harassment).toBeGreaterThan(
      res.results[0]!.category_scores.harassment,
    );
  });

  it('judges a multimodal input (text and an image_url data URL) as one result', async () => {
    const image = dataUri(await photo('jpeg'));
    const res = await client().moderations.create({
      model: 'omni-moderation-latest',
      input: [
        { type: 'text', text: 'look at this' },
        { type: 'image_url', image_url: { url: image } },
      ],
    });
    expect(res.results).toHaveLength(1);
    expect(res.results[0]!.category_applied_input_types.sexual.sort()).toEqual(['image', 'text']);
    expect(res.results[0]!.category_applied_input_types.violence).toEqual(['text']);
  }, 60_000);

  it('errors take OpenAI’s shape and status: a bad key is AuthenticationError, bad input BadRequestError', async () => {
    const bad = new OpenAI({
      apiKey: 'vk_not_a_real_key_0000000000',
      baseURL: `${baseUrl}/v1`,
      maxRetries: 0,
    });
    const auth = await bad.moderations.create({ input: 'hi' }).catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((auth as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    const invalid = await client()
      .moderations.create({ input: [] as string[] })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect((invalid as InstanceType<typeof OpenAI.APIError>).type).toBe('invalid_request_error');
    const raw = await t.request('POST', '/v1/moderations', { key, body: { input: '   ' } });
    expect(raw.status).toBe(400);
    expect(raw.body).toEqual({
      error: {
        message: expect.any(String),
        type: 'invalid_request_error',
        param: 'input[0].text',
        code: 'invalid_content',
      },
    });
  });

  it('needs the check scope', async () => {
    const { key: readOnly } = await t.newKey(['decisions:read']);
    const res = await t.request('POST', '/v1/moderations', { key: readOnly, body: { input: 'hi' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
  });
});

describe('POST /v1alpha1/comments:analyze (Perspective)', () => {
  // the request of Perspective's own documentation, sent as its clients send it (key in the query string)
  const documented = {
    comment: { text: 'What kind of idiot name is foo?' },
    languages: ['en'],
    requestedAttributes: { TOXICITY: {} },
  };
  const analyze = (body: unknown, query = `key=${key}`, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/v1alpha1/comments:analyze?${query}`,
      payload: body as object,
      headers,
    });

  it('answers the documented request in Perspective’s shape, authenticated by ?key=', async () => {
    const res = await analyze(documented);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.attributeScores.TOXICITY.summaryScore).toEqual({
      value: expect.any(Number),
      type: 'PROBABILITY',
    });
    expect(body.attributeScores.TOXICITY.summaryScore.value).toBeGreaterThan(0.5);
    expect(body.attributeScores.TOXICITY.spanScores).toEqual([
      { begin: 0, end: documented.comment.text.length, score: body.attributeScores.TOXICITY.summaryScore },
    ]);
    expect(body.languages).toEqual(['en']);
    expect(body.detectedLanguages).toEqual(['en']);
  });

  it('stores a decision under ?policyId= unless doNotStore is true', async () => {
    const stored = await analyze(documented, `key=${key}&policyId=strict`);
    const decisionId = stored.headers['x-verdict-decision-id'] as string;
    expect(decisionId).toMatch(/^dec_/);
    const decision = await t.request('GET', `/v1/decisions/${decisionId}`, { key });
    expect(decision.body).toMatchObject({ policyId: 'strict', content: documented.comment.text });
    const before = await usage();
    const ephemeral = await analyze({ ...documented, doNotStore: true });
    expect(ephemeral.statusCode).toBe(200);
    expect(ephemeral.headers['x-verdict-decision-id']).toBeUndefined();
    expect(await usage()).toBe(before + 1);
  });

  it('accepts the key as a bearer token or X-Goog-Api-Key too; a missing or wrong key is Google’s 401', async () => {
    expect((await analyze(documented, '', { authorization: `Bearer ${key}` })).statusCode).toBe(200);
    expect((await analyze(documented, '', { 'x-goog-api-key': key })).statusCode).toBe(200);
    const missing = await analyze(documented, '');
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(missing.json().error.details[0]).toMatchObject({ reason: 'MISSING_API_KEY' });
    expect((await analyze(documented, 'key=vk_wrong_0000000000000000')).json().error.details[0].reason).toBe(
      'INVALID_API_KEY',
    );
  });

  it('says so when an attribute cannot be judged (SEVERE_TOXICITY, FLIRTATION)', async () => {
    for (const attribute of ['SEVERE_TOXICITY', 'FLIRTATION']) {
      const res = await analyze({ ...documented, requestedAttributes: { TOXICITY: {}, [attribute]: {} } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(res.json().error.message).toContain(`Verdict cannot judge ${attribute}`);
    }
  });

  it('maps every supported attribute, honours scoreThreshold, and gives highlight spans on spanAnnotations', async () => {
    const res = await analyze({
      comment: { text: 'You are a stupid idiot and I will hurt you' },
      requestedAttributes: {
        TOXICITY: {},
        INSULT: {},
        PROFANITY: {},
        THREAT: {},
        IDENTITY_ATTACK: { scoreThreshold: 0.99 },
        SEXUALLY_EXPLICIT: { scoreType: 'PROBABILITY' },
      },
      spanAnnotations: true,
    });
    expect(res.statusCode).toBe(200);
    const scores = res.json().attributeScores;
    expect(Object.keys(scores).sort()).toEqual([
      'INSULT',
      'PROFANITY',
      'SEXUALLY_EXPLICIT',
      'THREAT',
      'TOXICITY',
    ]);
    const insult = scores.INSULT.spanScores;
    expect(insult.length).toBeGreaterThan(0);
    expect(insult[0].end - insult[0].begin).toBeLessThan(40);
  });

  it('refuses an unsupported language in Perspective’s words, and an empty comment', async () => {
    const zh = await analyze({ ...documented, languages: ['zh'] });
    expect(zh.statusCode).toBe(400);
    expect(zh.json().error.message).toBe('Attribute TOXICITY does not support request languages: zh');
    const empty = await analyze({ ...documented, comment: { text: '' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.details[0].reason).toBe('INVALID_CONTENT');
  });
});
