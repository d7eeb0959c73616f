import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loggerOptions } from '../src/server.ts';
import { ADMIN_KEY } from './helpers/app.ts';
import { AZURE_KEY, OPENAI_KEY, type ProviderTestBed, providerTestBed } from './helpers/provider-setup.ts';

let bed: ProviderTestBed;
const lines: string[] = [];

beforeAll(async () => {
  bed = await providerTestBed();
}, 60_000);
afterAll(async () => bed?.close());

describe('keys never reach the logs', () => {
  it('provider keys and Verdict keys (header, ?key=) are absent from every log line, at trace level', async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    // the service's own log settings, at the most verbose level
    const app = await buildApp(bed.t.ctx, { logger: { ...loggerOptions({ logLevel: 'trace' }), stream } });
    await app.ready();
    const headers = { authorization: `Bearer ${ADMIN_KEY}` };
    const policy = (id: string, provider: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/policies',
        headers,
        payload: {
          policyId: id,
          yamlContent: `name: p\nprovider: ${provider}\ncategories:\n  hate: {threshold: 0.5, action: block}\n`,
        },
      });
    await policy('log-openai', 'openai');
    await policy('log-azure', 'azure');
    const check = (policyId: string) =>
      app.inject({ method: 'POST', url: '/v1/check', headers, payload: { content: 'hate:0.9', policyId } });
    expect((await check('log-openai')).statusCode).toBe(200);
    expect((await check('log-azure')).statusCode).toBe(200);
    // failures are logged with their error: the key must not be in them either
    bed.fake.behaviour = { status: 401 };
    expect((await check('log-openai')).statusCode).toBe(502);
    expect((await check('log-azure')).statusCode).toBe(502);
    bed.fake.behaviour = {};
    const perspective = await app.inject({
      method: 'POST',
      url: `/v1alpha1/comments:analyze?key=${ADMIN_KEY}`,
      payload: { comment: { text: 'hello there' }, requestedAttributes: { TOXICITY: {} }, doNotStore: true },
    });
    expect(perspective.statusCode).toBe(200);
    await app.close();
    const log = lines.join('');
    expect(log).toContain('provider failed');
    expect(log).toContain('key=[redacted]');
    for (const secret of [OPENAI_KEY, AZURE_KEY, ADMIN_KEY]) expect(log).not.toContain(secret);
  });
});
