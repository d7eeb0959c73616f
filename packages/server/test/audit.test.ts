import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines } from './helpers/databases.ts';
import { createTestCa, HttpsReceiver, type TestCa } from './helpers/https-receiver.ts';
import { verdict } from './helpers/process.ts';

/** Issue 18 §4: every human or administrative action is an append-only audit entry, readable by GET /v1/audit. */
const opened: TestApp[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});
let ca: TestCa;
let receiver: HttpsReceiver;
beforeAll(async () => {
  ca = createTestCa();
  receiver = new HttpsReceiver(ca);
  await receiver.start();
});
afterAll(async () => {
  await receiver?.stop();
  if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
});

async function open(engine: 'sqlite' | 'postgres') {
  const t = await createTestApp({ engine, config: { allowPrivateUrls: true, caFile: ca.caFile } });
  opened.push(t);
  return t;
}

const POLICY_V1 = 'name: Audited\ncategories:\n  hate: { threshold: 0.7, action: block }\n';
const POLICY_V2 = 'name: Audited\ncategories:\n  hate: { threshold: 0.5, action: flag }\n';

describe.each(engines)('the audit log (%s)', (engine) => {
  it('records key, webhook and policy changes with actor, before and after, and never a secret', async () => {
    const t = await open(engine);
    const admin = (await t.request('GET', '/v1/keys')).body.keys.find((k: { prefix: string }) =>
      ADMIN_KEY.startsWith(k.prefix),
    );
    const created = await t.request('POST', '/v1/keys', { body: { name: 'reviewer-1', scopes: ['check'] } });
    expect(created.status).toBe(201);
    const keyId = created.body.id as string;
    expect((await t.request('PATCH', `/v1/keys/${keyId}`, { body: { name: 'reviewer-one' } })).status).toBe(
      200,
    );
    expect((await t.request('DELETE', `/v1/keys/${keyId}`)).status).toBe(200);

    const hook = await t.request('POST', '/v1/webhooks', {
      body: { url: `${receiver.url}/audit`, events: ['decision.blocked'] },
    });
    expect(hook.status).toBe(201);
    const rotated = await t.request('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect((await t.request('DELETE', `/v1/webhooks/${hook.body.id}`)).status).toBe(200);
    expect(
      (await t.request('POST', '/v1/policies', { body: { policyId: 'audited', yamlContent: POLICY_V1 } }))
        .status,
    ).toBe(201);
    expect(
      (await t.request('POST', '/v1/policies', { body: { policyId: 'audited', yamlContent: POLICY_V2 } }))
        .status,
    ).toBe(200);

    const log = await t.request('GET', '/v1/audit?limit=200');
    expect(log.status).toBe(200);
    const actions = log.body.entries.map((e: { action: string }) => e.action);
    // newest first
    expect(actions.indexOf('policy.updated')).toBeLessThan(actions.indexOf('policy.created'));
    expect(actions.indexOf('key.revoked')).toBeLessThan(actions.indexOf('key.updated'));
    expect(actions.indexOf('key.updated')).toBeLessThan(actions.indexOf('key.created'));

    const keyEntries = log.body.entries.filter((e: { target: { id: string } }) => e.target.id === keyId);
    expect(keyEntries.map((e: { action: string }) => e.action)).toEqual([
      'key.revoked',
      'key.updated',
      'key.created',
    ]);
    const [revoked, updated, made] = keyEntries;
    expect(made.before).toBeNull();
    expect(made.after.name).toBe('reviewer-1');
    expect(updated.before.name).toBe('reviewer-1');
    expect(updated.after.name).toBe('reviewer-one');
    expect(revoked.before.revokedAt).toBeNull();
    expect(revoked.after.revokedAt).toEqual(expect.any(String));
    for (const e of keyEntries) {
      expect(e.actor).toEqual({ kind: 'key', keyId: admin.id, name: admin.name, accountId: admin.accountId });
    }
    const text = JSON.stringify(log.body);
    expect(text).not.toContain(created.body.key);
    expect(text).not.toMatch(/keyHash|key_hash|signingSecret/);
    const hookEntries = log.body.entries.filter(
      (e: { target: { id: string } }) => e.target.id === hook.body.id,
    );
    expect(hookEntries.map((e: { action: string }) => e.action)).toEqual([
      'webhook.deleted',
      'webhook.secret_rotated',
      'webhook.created',
    ]);
    expect(hookEntries[0].after).toBeNull();
    expect(hookEntries[2].after.url).toBe(`${receiver.url}/audit`);
    expect(text).not.toContain(hook.body.secret);
    expect(text).not.toContain(rotated.body.secret);
    expect(text).not.toMatch(/"secret"/);

    const policyUpdate = log.body.entries.find((e: { action: string }) => e.action === 'policy.updated');
    expect(policyUpdate.before.yamlContent).toBe(POLICY_V1);
    expect(policyUpdate.after.yamlContent).toBe(POLICY_V2);
    expect(policyUpdate.after.version).toBe(2);
  });

  it('filters by action, target type, target and time, pages by cursor, and rejects bad parameters', async () => {
    const t = await open(engine);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await t.request('POST', '/v1/keys', { body: { name: `k${i}`, scopes: ['check'] } })).body.id);
    }
    await t.request('DELETE', `/v1/keys/${ids[2]}`);

    const onlyRevoked = await t.request('GET', '/v1/audit?action=key.revoked');
    expect(onlyRevoked.body.entries.map((e: { target: { id: string } }) => e.target.id)).toEqual([ids[2]]);
    const allKeys = await t.request('GET', '/v1/audit?action=key');
    expect(allKeys.body.entries.every((e: { target: { type: string } }) => e.target.type === 'key')).toBe(
      true,
    );
    const byTarget = await t.request('GET', `/v1/audit?targetType=key&targetId=${ids[2]}`);
    expect(byTarget.body.entries.map((e: { action: string }) => e.action)).toEqual([
      'key.revoked',
      'key.created',
    ]);
    const future = await t.request('GET', '/v1/audit?from=2999-01-01T00:00:00Z');
    expect(future.body.entries).toEqual([]);

    // pages of two, newest first, cover every key creation exactly once
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res = await t.request(
        'GET',
        `/v1/audit?action=key.created&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.entries.map((e: { target: { id: string } }) => e.target.id));
      cursor = res.body.nextCursor;
      if (!res.body.hasMore) break;
    }
    expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse());
    expect(new Set(seen).size).toBe(seen.length);

    for (const bad of [
      'limit=0',
      'limit=500',
      'from=yesterday',
      'colour=red',
      'from=2030-01-02&to=2030-01-01',
    ]) {
      const res = await t.request('GET', `/v1/audit?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
    }
  });

  it('needs audit:read or admin, and shows an account only its own log unless the operator asks', async () => {
    const t = await open(engine);
    const tenant = await t.newKey(['admin']);
    const reader = await t.newKey(['audit:read'], tenant.accountId);
    const checker = await t.newKey(['check'], tenant.accountId);
    await t.request('POST', '/v1/policies', {
      key: tenant.key,
      body: { policyId: 'tenant-policy', yamlContent: POLICY_V1 },
    });

    expect((await t.request('GET', '/v1/audit', { key: checker.key })).status).toBe(403);
    const own = await t.request('GET', '/v1/audit', { key: reader.key });
    expect(own.status).toBe(200);
    expect(own.body.entries.every((e: { accountId: string }) => e.accountId === tenant.accountId)).toBe(true);
    expect(own.body.entries.map((e: { action: string }) => e.action)).toContain('policy.created');

    const operatorOwn = await t.request('GET', '/v1/audit');
    expect(operatorOwn.body.entries.map((e: { target: { id: string } }) => e.target.id)).not.toContain(
      'tenant-policy',
    );
    const operatorAsks = await t.request('GET', `/v1/audit?accountId=${tenant.accountId}`);
    expect(operatorAsks.body.entries.map((e: { target: { id: string } }) => e.target.id)).toContain(
      'tenant-policy',
    );
    const tenantAsks = await t.request('GET', '/v1/audit?accountId=acc_other', { key: tenant.key });
    expect(tenantAsks.status).toBe(403);
  });

  it('is append-only in the database itself', async () => {
    const t = await open(engine);
    await t.request('POST', '/v1/keys', { body: { name: 'x', scopes: ['check'] } });
    const db = t.ctx.database.db;
    await expect(sql`UPDATE audit_log SET action = 'forged'`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`DELETE FROM audit_log`.execute(db)).rejects.toThrow(/append-only/);
    const log = await t.request('GET', '/v1/audit?action=key.created');
    expect(log.body.entries.length).toBeGreaterThan(0);
  });
});

describe('the audit log of the CLI', () => {
  it('records `verdict keys revoke` as an operator action', async () => {
    const t = await open('sqlite');
    const created = await t.request('POST', '/v1/keys', { body: { name: 'to-revoke', scopes: ['check'] } });
    const env = { VERDICT_DATA_DIR: t.config.dataDir };
    const res = await verdict(['keys', 'revoke', created.body.id], env);
    expect(res.code, res.stderr).toBe(0);
    const log = await t.request('GET', `/v1/audit?targetId=${created.body.id}&action=key.revoked`);
    expect(log.body.entries).toHaveLength(1);
    expect(log.body.entries[0].actor).toEqual({
      kind: 'operator',
      keyId: null,
      name: 'verdict CLI',
      accountId: null,
    });
  });
});
