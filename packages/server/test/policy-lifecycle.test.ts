import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const V1 = `name: Community
categories:
  hate:
    threshold: 0.5
    action: block
  spam:
    threshold: 0.9
    action: warn
`;
const V2 = `name: Community
categories:
  hate:
    threshold: 0.6
    action: flag
  violence:
    threshold: 0.7
    action: block
`;

describe.each(engines)('policy life cycle (%s)', (engine) => {
  let t: TestApp;
  let key: string;
  let other: string;
  let accountId: string;
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    ({ key, accountId } = await t.newKey(['check', 'policies:read', 'policies:write', 'decisions:read']));
    other = (await t.newKey(['check', 'policies:read', 'policies:write', 'decisions:read'])).key;
  });
  afterAll(() => t.close());

  const post = (yamlContent: string, k = key, policyId = 'community') =>
    t.request('POST', '/v1/policies', { key: k, body: { policyId, yamlContent } });

  it('re-posting identical YAML answers the existing version (200) without writing one', async () => {
    expect((await post(V1)).status).toBe(201);
    const again = await post(V1);
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(1);
    const versions = await t.request('GET', '/v1/policies/community/versions', { key });
    expect(versions.body.versions.map((v: any) => v.version)).toEqual([1]);
  });

  it('lists versions and reads any of them with ?version=N', async () => {
    expect((await post(V2)).body.version).toBe(2);
    const versions = await t.request('GET', '/v1/policies/community/versions', { key });
    expect(versions.status).toBe(200);
    expect(versions.body.policyId).toBe('community');
    expect(versions.body.versions.map((v: any) => [v.version, Object.keys(v.categories)])).toEqual([
      [1, ['hate', 'spam']],
      [2, ['hate', 'violence']],
    ]);
    const v1 = await t.request('GET', '/v1/policies/community?version=1', { key });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ version: 1, yamlContent: V1 });
    expect(v1.body.categories.spam).toEqual({ threshold: 0.9, action: 'warn' });
    const latest = await t.request('GET', '/v1/policies/community', { key });
    expect(latest.body.version).toBe(2);
    const missing = await t.request('GET', '/v1/policies/community?version=9', { key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('POLICY_VERSION_NOT_FOUND');
    for (const bad of ['0', 'abc', '1.5']) {
      const res = await t.request('GET', `/v1/policies/community?version=${bad}`, { key });
      expect(res.status, bad).toBe(422);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
    }
    const unknown = await t.request('GET', '/v1/policies/community?versoin=1', { key });
    expect(unknown.body.error.code).toBe('INVALID_PARAMETER');
    // built-ins have one version
    const builtin = await t.request('GET', '/v1/policies/default/versions', { key });
    expect(builtin.body.versions.map((v: any) => v.version)).toEqual([1]);
    expect((await t.request('GET', '/v1/policies/default?version=1', { key })).status).toBe(200);
    // another account sees neither the policy nor its versions
    const foreign = await t.request('GET', '/v1/policies/community/versions', { key: other });
    expect(foreign.status).toBe(403);
    expect((await t.request('GET', '/v1/policies/community?version=1', { key: other })).status).toBe(403);
  });

  it('diffs two versions: categories added, removed and changed, and a unified YAML diff', async () => {
    const diff = await t.request('GET', '/v1/policies/community/diff', { key });
    expect(diff.status).toBe(200);
    expect(diff.body).toMatchObject({ policyId: 'community', from: 1, to: 2 });
    expect(diff.body.categories).toEqual({
      added: [{ category: 'violence', threshold: 0.7, action: 'block' }],
      removed: [{ category: 'spam', threshold: 0.9, action: 'warn' }],
      changed: [
        { category: 'hate', threshold: { from: 0.5, to: 0.6 }, action: { from: 'block', to: 'flag' } },
      ],
    });
    expect(diff.body.fields).toEqual([]);
    expect(diff.body.unified).toContain('--- community@v1');
    expect(diff.body.unified).toContain('+++ community@v2');
    expect(diff.body.unified).toContain('-    threshold: 0.5');
    expect(diff.body.unified).toContain('+  violence:');
    const reverse = await t.request('GET', '/v1/policies/community/diff?from=2&to=1', { key });
    expect(reverse.body.categories.added.map((c: any) => c.category)).toEqual(['spam']);
    const same = await t.request('GET', '/v1/policies/community/diff?from=2&to=2', { key });
    expect(same.body).toMatchObject({
      unified: '',
      fields: [],
      categories: { added: [], removed: [], changed: [] },
    });
    const renamed = await post(V2.replace('Community', 'Community B'));
    const named = await t.request('GET', `/v1/policies/community/diff?to=${renamed.body.version}`, { key });
    expect(named.body.fields).toEqual([{ field: 'name', from: 'Community', to: 'Community B' }]);
    expect((await t.request('GET', '/v1/policies/community/diff?from=99', { key })).body.error.code).toBe(
      'POLICY_VERSION_NOT_FOUND',
    );
    expect((await t.request('GET', '/v1/policies/community/diff?from=x', { key })).status).toBe(422);
  });

  it('rolls back: a new version equal to the old one; to the latest itself writes nothing', async () => {
    const before = (await t.request('GET', '/v1/policies/community', { key })).body.version;
    const rolled = await t.request('POST', '/v1/policies/community/rollback', { key, body: { version: 1 } });
    expect(rolled.status).toBe(200);
    expect(rolled.body).toMatchObject({ version: before + 1, yamlContent: V1 });
    expect(rolled.body.categories).toEqual({
      hate: { threshold: 0.5, action: 'block' },
      spam: { threshold: 0.9, action: 'warn' },
    });
    const check = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'hate:0.55', policyId: 'community' },
    });
    expect(check.body).toMatchObject({ action: 'block', policyVersion: before + 1 });
    const again = await t.request('POST', '/v1/policies/community/rollback', { key, body: { version: 1 } });
    expect(again.body.version).toBe(before + 1);
    const versions = await t.request('GET', '/v1/policies/community/versions', { key });
    expect(versions.body.versions).toHaveLength(before + 1);
    const errors: [unknown, string, number][] = [
      [{}, 'MISSING_REQUIRED_FIELD', 422],
      [{ version: 'one' }, 'INVALID_PARAMETER', 422],
      [{ version: 0 }, 'INVALID_PARAMETER', 422],
      [{ version: 99 }, 'POLICY_VERSION_NOT_FOUND', 404],
    ];
    for (const [body, code, status] of errors) {
      const res = await t.request('POST', '/v1/policies/community/rollback', { key, body });
      expect([res.status, res.body.error.code], JSON.stringify(body)).toEqual([status, code]);
    }
    const builtin = await t.request('POST', '/v1/policies/default/rollback', { key, body: { version: 1 } });
    expect([builtin.status, builtin.body.error.code]).toEqual([409, 'POLICY_READ_ONLY']);
    const foreign = await t.request('POST', '/v1/policies/community/rollback', {
      key: other,
      body: { version: 1 },
    });
    expect(foreign.status).toBe(403);
    const reader = (await t.newKey(['policies:read'])).key;
    const denied = await t.request('POST', '/v1/policies/default/rollback', {
      key: reader,
      body: { version: 1 },
    });
    expect(denied.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('deletes: refused for built-ins, others, and while a shadow uses it; decisions keep their version', async () => {
    await post(V1, key, 'doomed');
    const decision = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'hate:0.9', policyId: 'doomed' },
    });
    expect(decision.body).toMatchObject({ action: 'block', policyId: 'doomed', policyVersion: 1 });
    const builtin = await t.request('DELETE', '/v1/policies/strict', { key });
    expect([builtin.status, builtin.body.error.code]).toEqual([409, 'POLICY_READ_ONLY']);
    expect((await t.request('DELETE', '/v1/policies/doomed', { key: other })).status).toBe(403);
    // used as a shadow's candidate, then as a live policy with a shadow
    const shadow = await t.request('PUT', '/v1/policies/community/shadow', {
      key,
      body: { shadowPolicyId: 'doomed' },
    });
    expect(shadow.status).toBe(200);
    const inUse = await t.request('DELETE', '/v1/policies/doomed', { key });
    expect([inUse.status, inUse.body.error.code]).toEqual([409, 'POLICY_IN_USE']);
    expect(inUse.body.error.details.shadows[0]).toMatchObject({ policyId: 'community' });
    const live = await t.request('DELETE', '/v1/policies/community', { key });
    expect(live.body.error.code).toBe('POLICY_IN_USE');
    expect((await t.request('DELETE', '/v1/policies/community/shadow', { key })).status).toBe(200);
    const deleted = await t.request('DELETE', '/v1/policies/doomed', { key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ policyId: 'doomed', deleted: true });
    expect((await t.request('GET', '/v1/policies/doomed', { key })).body.error.code).toBe('POLICY_NOT_FOUND');
    expect((await t.request('DELETE', '/v1/policies/doomed', { key })).status).toBe(404);
    const kept = await t.request('GET', `/v1/decisions/${decision.body.decisionId}`, { key });
    expect(kept.body).toMatchObject({ policyId: 'doomed', policyVersion: 1, action: 'block' });
    // the ID used again continues the numbering, so old decisions' versions stay unambiguous
    const recreated = await post(V2, key, 'doomed');
    expect(recreated.status).toBe(201);
    expect(recreated.body.version).toBe(2);
  });

  it('records rollbacks, deletions and shadows in the audit log; an identical re-post records nothing', async () => {
    const actions = async (policyId: string) => {
      const log = await t.request(
        'GET',
        `/v1/audit?targetType=policy&targetId=${policyId}&accountId=${accountId}`,
      );
      expect(log.status).toBe(200);
      return log.body.entries.map((e: any) => e.action).reverse();
    };
    expect(await actions('community')).toEqual([
      'policy.created',
      'policy.updated',
      'policy.updated',
      'policy.rolled_back',
      'policy.shadow_started',
      'policy.shadow_stopped',
    ]);
    expect(await actions('doomed')).toEqual(['policy.created', 'policy.deleted', 'policy.created']);
    const log = await t.request('GET', `/v1/audit?action=policy.deleted&accountId=${accountId}`);
    expect(log.body.entries[0]).toMatchObject({ before: { policyId: 'doomed', version: 1 }, after: null });
  });
});
