import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from './helpers/databases.ts';
import { type ProviderTestBed, providerTestBed } from './helpers/provider-setup.ts';

// The spend counters are upserts with arithmetic in SQL: checked on every engine the environment offers.
describe.each(engines)('provider spend in usage and /v1/providers (%s)', (engine) => {
  let bed: ProviderTestBed;
  beforeAll(async () => {
    bed = await providerTestBed({ engine });
  }, 60_000);
  afterAll(async () => bed?.close());

  it('adds each answered evaluation’s cost to the account’s month and the provider’s month', async () => {
    const { key } = await bed.t.newKey(['check', 'policies:write']);
    await bed.t.request('POST', '/v1/policies', {
      key,
      body: {
        policyId: 'spend',
        yamlContent: 'name: s\nprovider: openai\ncategories:\n  hate: {threshold: 0.5, action: block}\n',
      },
    });
    for (let i = 0; i < 2; i++)
      expect(
        (
          await bed.t.request('POST', '/v1/check', {
            key,
            body: { content: `hate:0.${i}`, policyId: 'spend' },
          })
        ).status,
      ).toBe(200);
    // a failed evaluation costs and counts nothing
    bed.fake.behaviour = { status: 500 };
    expect(
      (await bed.t.request('POST', '/v1/check', { key, body: { content: 'x', policyId: 'spend' } })).status,
    ).toBe(502);
    bed.fake.behaviour = {};
    expect((await bed.t.request('GET', '/v1/usage', { key })).body).toMatchObject({
      evaluations: 2,
      costUsd: 0.002,
    });
    const openai = (await bed.t.request('GET', '/v1/providers')).body.providers.find(
      (p: any) => p.name === 'openai',
    );
    expect(openai).toMatchObject({ evaluationsThisMonth: 2, spendThisMonthUsd: 0.002 });
  });
});
