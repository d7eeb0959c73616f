import fs from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { documentPaths, GENERATED_FILE, openApiDocument, renderTypes } from '../scripts/openapi-types.ts';
import type { components, paths } from '../src/generated/openapi.ts';
import { type Decision, type DecisionList, Verdict } from '../src/index.ts';
import { PENDING_PATHS, type PendingPaths } from '../src/pending-types.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Schemas = components['schemas'];

// the drop-in compatibility endpoints are for OpenAI's and Perspective's own clients, not this SDK
const HIDDEN = new Set(['/healthz', '/readyz', '/v1/moderations', '/v1alpha1/comments:analyze']);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describe('SDK types follow the server schemas', () => {
  let document: Record<string, unknown>;

  it('src/generated/openapi.ts is what the server documents now', async () => {
    document = await openApiDocument();
    const fresh = await renderTypes(document);
    const current = fs.existsSync(GENERATED_FILE) ? fs.readFileSync(GENERATED_FILE, 'utf8') : '';
    if (fresh !== current) {
      const a = current.split('\n');
      const b = fresh.split('\n');
      const line = b.findIndex((text, i) => text !== a[i]);
      throw new Error(
        'packages/sdk/src/generated/openapi.ts is out of date with the server routes: run ' +
          '`npm run generate -w packages/sdk` (and fix what `npm run typecheck` then reports).\n' +
          `First difference at line ${line + 1}:\n  file:      ${a[line] ?? '<end>'}\n  generated: ${b[line] ?? '<end>'}`,
      );
    }
  }, 60_000);

  it('pending (hand-typed) paths are only those the server does not document yet', () => {
    expectTypeOf<(typeof PENDING_PATHS)[number]>().toEqualTypeOf<keyof PendingPaths>();
    const documented = new Set(documentPaths(document));
    const stale = PENDING_PATHS.filter((p) => documented.has(p));
    expect(
      stale,
      `The server now documents ${stale.join(', ')}: run \`npm run generate -w packages/sdk\` and remove them ` +
        'from packages/sdk/src/pending-types.ts',
    ).toEqual([]);
  });

  it('every documented operation has an SDK method', async () => {
    const called = new Set<string>();
    const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
      called.add(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const v = new Verdict({ apiKey: 'k', baseUrl: 'http://sdk.test', fetch: fakeFetch });
    const id = 'ID';
    const calls: Promise<unknown>[] = [
      v.check({ content: 'x', policyId: 'p' }),
      v.checkDryRun({ policyId: 'p' }),
      v.checkMultimodal({ policyId: 'p', text: 'x' }),
      v.batch.check({ policyId: 'p', items: [{ id: '1', content: 'x' }] }),
      v.batch.checkAsync({ policyId: 'p', items: [{ id: '1', content: 'x' }], webhookUrl: 'https://x' }),
      v.batch.get(id),
      v.policies.create({ policyId: 'p', yamlContent: 'x' }),
      v.policies.get(id),
      v.policies.list(),
      v.policies.validate({ yamlContent: 'x' }),
      v.policies.versions(id),
      v.policies.diff(id, { from: 1 }),
      v.policies.rollback(id, 1),
      v.policies.delete(id),
      v.policies.backtest(id, { version: 1 }),
      v.policies.getBacktest(id),
      v.policies.setShadow(id, { version: 1 }),
      v.policies.getShadow(id),
      v.policies.stopShadow(id),
      v.policies.shadowReport(id),
      v.decisions.get(id),
      Promise.resolve(v.decisions.list()),
      v.decisions.replay(id, { policyId: 'p' }),
      v.decisions.curl(id),
      v.decisions.export({ q: 'x' }).next(),
      v.video.check({ videoUrl: 'https://x', policyId: 'p' }),
      v.video.upload({ video: new Uint8Array([1]), policyId: 'p' }),
      v.video.status(id),
      v.video.result(id),
      v.video.evidence(`https://verdict.example/v1/evidence/${id}`),
      v.webhooks.create({ url: 'https://x', events: ['decision.created'] }),
      v.webhooks.list(),
      v.webhooks.get(id),
      v.webhooks.update(id, { enabled: false }),
      v.webhooks.delete(id),
      v.webhooks.test(id, { eventType: 'decision.created' }),
      v.webhooks.deliveries(id),
      v.webhooks.rotateSecret(id),
      v.keys.create({ name: 'k', scopes: ['check'] }),
      v.keys.list(),
      v.keys.update(id, { name: 'n' }),
      v.keys.revoke(id),
      v.accounts.create({ name: 'a' }),
      v.accounts.list(),
      v.accounts.update(id, { name: 'a' }),
      v.account.get(),
      v.usage.get(),
      v.usage.byKey(),
      v.banks.create({ name: 'b' }),
      v.banks.list(),
      v.banks.get(id),
      v.banks.delete(id),
      v.banks.addItem(id, { hash: 'a'.repeat(64) }),
      v.banks.listItems(id),
      v.banks.deleteItem(id, id),
      v.banks.import(id, 'a'),
      v.providers.list(),
      v.stats.get(),
      v.audit.list({ action: 'key.revoked' }),
      v.lists.create({ name: 'l', kind: 'block' }),
      v.lists.list(),
      v.lists.get(id),
      v.lists.delete(id),
      v.lists.add(id, ['x']),
      v.lists.remove(id, { entries: ['x'] }),
      v.lists.import(id, 'x'),
      v.review.queue(),
      v.review.quality({ policyId: 'p' }),
      v.review.claim({ limit: 1 }),
      v.review.release(id),
      v.review.confirm(id),
      v.review.appeal(id, { statement: 's' }),
      v.review.appeals(id),
      v.review.statement(id),
      v.review.exportStatements(),
    ];
    await Promise.all(calls);
    const operations = [...documentPaths(document), ...PENDING_PATHS]
      .filter((p) => !HIDDEN.has(p))
      .flatMap((p) => {
        const item = (document.paths as Record<string, Record<string, unknown>>)[p] ?? {};
        const methods = PENDING_PATHS.includes(p as never)
          ? [p.includes('{') ? 'get' : 'post']
          : METHODS.filter((m) => item[m]);
        return methods.map((m) => `${m.toUpperCase()} ${p.replace(/\{\w+\}/g, id)}`);
      });
    expect([...called].sort()).toEqual([...new Set(operations)].sort());
  }, 30_000);

  it('method signatures are the generated request and response types (checked by tsc)', () => {
    type Body<P extends keyof paths, M extends keyof paths[P]> = Json<
      NonNullable<(paths[P][M] & { requestBody?: unknown })['requestBody']>
    >;
    type Ok<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = Json<
      (paths[P][M] & { responses: Record<S, unknown> })['responses'][S]
    >;
    const v = new Verdict({ apiKey: 'k' });
    expectTypeOf(v.check).parameter(0).toEqualTypeOf<Body<'/v1/check', 'post'>>();
    expectTypeOf(v.check).returns.resolves.toEqualTypeOf<Schemas['CheckResult']>();
    expectTypeOf(v.checkDryRun).parameter(0).toEqualTypeOf<Body<'/v1/check/dry-run', 'post'>>();
    expectTypeOf(v.checkMultimodal).returns.resolves.toEqualTypeOf<Ok<'/v1/check/multimodal', 'post'>>();
    expectTypeOf(v.batch.check).parameter(0).toEqualTypeOf<Body<'/v1/batch/check', 'post'>>();
    expectTypeOf(v.batch.checkAsync).returns.resolves.toEqualTypeOf<
      Ok<'/v1/batch/check/async', 'post', 202>
    >();
    expectTypeOf(v.batch.get).returns.resolves.toEqualTypeOf<Ok<'/v1/batch/{batchId}', 'get'>>();
    expectTypeOf(v.policies.create).returns.resolves.toEqualTypeOf<Schemas['Policy']>();
    expectTypeOf(v.decisions.get).returns.resolves.toEqualTypeOf<Schemas['Decision']>();
    expectTypeOf<Decision>().toEqualTypeOf<Schemas['Decision']>();
    expectTypeOf<DecisionList>().toEqualTypeOf<Ok<'/v1/decisions', 'get'>>();
    expectTypeOf(v.decisions.replay)
      .parameter(1)
      .toEqualTypeOf<Body<'/v1/decisions/{decisionId}/replay', 'post'>>();
    expectTypeOf(v.decisions.curl).returns.resolves.toEqualTypeOf<
      Ok<'/v1/decisions/{decisionId}/curl', 'get'>
    >();
    expectTypeOf(v.webhooks.create).parameter(0).toEqualTypeOf<Body<'/v1/webhooks', 'post'>>();
    expectTypeOf(v.webhooks.create).returns.resolves.toEqualTypeOf<Schemas['Webhook']>();
    expectTypeOf(v.webhooks.update).parameter(1).toEqualTypeOf<Body<'/v1/webhooks/{webhookId}', 'patch'>>();
    expectTypeOf(v.webhooks.test).returns.resolves.toEqualTypeOf<
      Ok<'/v1/webhooks/{webhookId}/test', 'post'>
    >();
    expectTypeOf(v.webhooks.deliveries).returns.resolves.toEqualTypeOf<
      Ok<'/v1/webhooks/{webhookId}/deliveries', 'get'>
    >();
    expectTypeOf(v.keys.create).returns.resolves.toEqualTypeOf<Schemas['ApiKey']>();
    expectTypeOf(v.accounts.create).parameter(0).toEqualTypeOf<Body<'/v1/accounts', 'post'>>();
    expectTypeOf(v.account.get).returns.resolves.toEqualTypeOf<Schemas['Account']>();
    expectTypeOf(v.usage.get).returns.resolves.toEqualTypeOf<Ok<'/v1/usage', 'get'>>();
    expectTypeOf(v.usage.byKey).returns.resolves.toEqualTypeOf<Ok<'/v1/usage/keys', 'get'>>();
    // Pages iterate decisions.
    expectTypeOf<ReturnType<typeof v.decisions.list>>().toMatchTypeOf<AsyncIterable<Decision>>();
  });
});
