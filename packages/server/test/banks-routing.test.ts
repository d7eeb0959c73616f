import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderTestBed, providerTestBed } from './helpers/provider-setup.ts';

// Banks and provider routing together: a policy that routes images to an external provider (Azure Content
// Safety's image:analyze, a local HTTPS fake) and screens a hash bank. The bank is decided first, so a banked
// image is never sent to the provider (nor to the bundled model); an unbanked one is routed as usual.
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'pdq');
const photo = (name: string) => fs.readFileSync(path.join(fixtures, name));

describe('hash banks under a policy that routes images to an external provider', () => {
  let bed: ProviderTestBed;
  const banked = photo('q2821.jpg');
  const unrelated = photo('q0291.jpg');
  const check = (bytes: Buffer) =>
    bed.t.request('POST', '/v1/check', {
      body: { content: bytes.toString('base64'), contentType: 'image', policyId: 'routed-banked' },
    });

  beforeAll(async () => {
    bed = await providerTestBed();
    expect((await bed.t.request('POST', '/v1/banks', { body: { name: 'known' } })).status).toBe(201);
    const item = await bed.t.request('POST', '/v1/banks/known/items', {
      body: { image: banked.toString('base64'), label: 'case 17' },
    });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
    const policy = await bed.t.request('POST', '/v1/policies', {
      body: {
        policyId: 'routed-banked',
        yamlContent:
          'name: r\nprovider: azure\ncategories:\n  violence: { threshold: 0.5, action: flag }\nbanks:\n  - { bank: known, action: block, maxDistance: 31 }\n',
      },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
  }, 60_000);
  afterAll(async () => bed?.close());

  it('a banked image is decided by its bank; the routed provider is never called', async () => {
    const before = bed.fake.requests.length;
    const res = await check(banked);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ action: 'block', provider: 'banks', cost: 0 });
    expect(res.body.bankMatch).toMatchObject({ bank: 'known', label: 'case 17', distance: 0 });
    expect(res.body.routing).toBeUndefined();
    expect(bed.fake.requests.length).toBe(before);
  }, 60_000);

  it('an unbanked image is routed to the provider as the policy says', async () => {
    bed.fake.behaviour = { imageSeverities: { Violence: 6 } };
    const before = bed.fake.requests.length;
    const res = await check(unrelated);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ provider: 'azure', action: 'flag' });
    expect(res.body.bankMatch).toBeUndefined();
    expect(bed.fake.requests.slice(before).map((r) => r.path)).toEqual([
      '/contentsafety/image:analyze?api-version=2024-09-01',
    ]);
  }, 60_000);

  it('a policy naming a bank and an unknown provider is refused for the provider', async () => {
    const res = await bed.t.request('POST', '/v1/policies', {
      body: {
        policyId: 'bad',
        yamlContent:
          'name: b\nprovider: nowhere\ncategories:\n  violence: { threshold: 0.5, action: flag }\nbanks:\n  - { bank: known, action: block }\n',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_POLICY', details: { provider: 'nowhere' } });
  });
});
