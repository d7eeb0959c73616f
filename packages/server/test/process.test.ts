import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.ts';
import { photo } from './helpers/images.ts';
import { firstStartKey, startServerProcess, verdict } from './helpers/process.ts';

const dirs: string[] = [];
const newDataDir = () => {
  const dir = tempDir('verdict-proc-');
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function post(url: string, key: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('the service as a process', () => {
  it('first start prints where it listens and an admin key that works for a text check', async () => {
    const dataDir = newDataDir();
    const server = await startServerProcess({ VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      const key = await firstStartKey(server);
      expect(key, server.output()).toBeTruthy();
      expect(server.output()).toContain(`listening on ${server.url}`);
      const res = await post(`${server.url}/v1/check`, key!, {
        content: 'you are a fucking idiot',
        policyId: 'default',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ flagged: true, safe: false, provider: 'local' });
      expect(res.body.modelVersion).toMatch(/^verdict-text-/);
      expect(res.body.categories).toHaveLength(9);
      expect(
        res.body.categories.find((c: any) => c.category === 'toxicity').highlights.length,
      ).toBeGreaterThan(0);
      // An evidence token is a capability: it is not written to the request log (even when unknown)
      const evidence = await fetch(`${server.url}/v1/evidence/evtoken_probe_4c1f9e?x=1`);
      expect(evidence.status).toBe(404);
      expect(fs.existsSync(path.join(dataDir, 'verdict.db'))).toBe(true);
      // the database holds secrets: readable by the service's user only
      expect(fs.statSync(path.join(dataDir, 'verdict.db')).mode & 0o077).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
    // The key is printed once, as a shell line that the example below it (and the README's commands) reads, and
    // never appears in the request logs.
    const key = /\n {2}export VERDICT_API_KEY=(vk_[A-Za-z0-9_-]+)\n/.exec(server.output())![1]!;
    expect(server.output()).toContain('-H "Authorization: Bearer $VERDICT_API_KEY"');
    expect(server.output()).toContain('"statusCode":200');
    expect(server.output().split(key).length - 1).toBe(1);
    expect(server.output()).toContain('"url":"/v1/evidence/[token]?x=1"');
    expect(server.output()).not.toContain('evtoken_probe_4c1f9e');
    // A second start on the same data prints no new key.
    const again = await startServerProcess({ VERDICT_DATA_DIR: dataDir });
    expect(again.output()).not.toContain('First start');
    again.child.kill('SIGTERM');
    await again.exited;
  });

  it('with the image model preloaded, /readyz is 200 only once a worker has loaded it; an image is then judged', async () => {
    const server = await startServerProcess({
      VERDICT_DATA_DIR: newDataDir(),
      VERDICT_IMAGE_PRELOAD: 'true',
      VERDICT_IMAGE_WORKERS: '2',
      VERDICT_TEXT_WARMUP: 'true',
    });
    try {
      const key = await firstStartKey(server);
      let ready: any;
      for (let waited = 0; waited < 60_000 && !ready; waited += 20) {
        const res = await fetch(`${server.url}/readyz`);
        const body = (await res.json()) as any;
        if (res.status === 200) ready = body;
        else {
          expect(res.status).toBe(503);
          // only the image model can still be loading once the service listens
          expect([body.checks.images, body.imageWorkers.loaded]).toEqual([false, 0]);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      expect(ready, server.output()).toBeDefined();
      expect(ready.checks).toEqual({
        storage: true,
        queue: true,
        models: true,
        images: true,
        accepting: true,
      });
      // the first worker loads alone; ready does not wait for the second, which loads while the service answers
      expect(ready.imageWorkers.total).toBe(2);
      expect(ready.imageWorkers.loaded).toBeGreaterThanOrEqual(1);
      const image = await photo('jpeg', 320, 240);
      const res = await post(`${server.url}/v1/check`, key!, {
        content: `data:image/jpeg;base64,${image.toString('base64')}`,
        contentType: 'image',
        policyId: 'default',
      });
      expect(res.status).toBe(200);
      expect(res.body.categories.find((c: any) => c.category === 'sexual')).toMatchObject({
        evaluated: true,
      });
      await expect
        .poll(async () => ((await (await fetch(`${server.url}/readyz`)).json()) as any).imageWorkers.loaded, {
          timeout: 60_000,
          interval: 100,
        })
        .toBe(2);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 120_000);

  it('every decision acknowledged to a client survives kill -9', async () => {
    const dataDir = newDataDir();
    const env = { VERDICT_DATA_DIR: dataDir, VERDICT_BOOTSTRAP_KEY: 'vk_bootstrap_kill_test_0000000000' };
    const server = await startServerProcess(env);
    const acknowledged: string[] = [];
    let stop = false;
    const clients = Array.from({ length: 4 }, async (_, i) => {
      for (let n = 0; !stop; n++) {
        try {
          const res = await post(`${server.url}/v1/check`, env.VERDICT_BOOTSTRAP_KEY, {
            content: `client ${i} message ${n}`,
            policyId: 'default',
          });
          if (res.status === 200) acknowledged.push(res.body.decisionId);
        } catch {
          return; // connection cut by the kill
        }
      }
    });
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 5));
    server.child.kill('SIGKILL');
    stop = true;
    await server.exited;
    await Promise.all(clients);
    const restarted = await startServerProcess(env);
    try {
      for (const id of acknowledged) {
        const res = await fetch(`${restarted.url}/v1/decisions/${id}`, {
          headers: { authorization: `Bearer ${env.VERDICT_BOOTSTRAP_KEY}` },
        });
        expect(res.status, id).toBe(200);
      }
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
  });

  it('SIGTERM finishes the request in flight, then exits 0', async () => {
    const key = 'vk_bootstrap_shutdown_test_000000';
    const server = await startServerProcess({ VERDICT_DATA_DIR: newDataDir(), VERDICT_BOOTSTRAP_KEY: key });
    const body = JSON.stringify({ content: 'slow but steady', policyId: 'default' });
    const url = new URL(`${server.url}/v1/check`);
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          let data = '';
          res.on('data', (d) => {
            data += d;
          });
          res.on('end', () => resolve({ status: res.statusCode!, body: data }));
        },
      );
      req.on('error', reject);
      // Send half the body, ask the server to stop, then finish the request.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const res = await response;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).decisionId).toMatch(/^dec_/);
    expect(await server.exited).toBe(0);
  });

  it('refuses to start on a bad setting with a clear message', async () => {
    const res = await verdict(['serve'], { VERDICT_DATA_DIR: newDataDir(), PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Invalid PORT: expected an integer, got "eighty"');
    const pg = await verdict(['serve'], { VERDICT_DATA_DIR: newDataDir(), DATABASE_URL: 'mysql://x' });
    expect(pg.stderr).toContain('Invalid DATABASE_URL');
    // values that are well-formed but do not work name their setting too (they were bare system errors)
    for (const [env, message] of [
      [{ HOST: 'not_a_host!!' }, 'Invalid HOST: cannot listen on not_a_host!!'],
      [{ VERDICT_CA_FILE: '/nonexistent/ca.pem' }, 'Invalid VERDICT_CA_FILE: cannot read'],
      [{ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x' }, 'Invalid DATABASE_URL: cannot connect'],
      [{ PORT: '0' }, 'Invalid PORT: expected 1–65535, got 0'],
    ] as const) {
      const res = await verdict(['serve'], {
        VERDICT_DATA_DIR: newDataDir(),
        VERDICT_TEXT_WARMUP: 'false',
        ...env,
      });
      expect([res.code, res.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
  }, 60_000);

  it('exits 2 for bad usage: an unknown option, a missing argument or subcommand, a bad option value', async () => {
    const env = { VERDICT_DATA_DIR: newDataDir() };
    for (const args of [
      ['check', 'hello', '--bogus-option'],
      ['decisions'],
      ['policies', 'apply'],
      ['keys', 'create', '--scopes', 'check', '--expires', 'soon'],
      ['keys', 'create', '--scopes', 'check', '--expires', '0d'],
    ]) {
      const res = await verdict(args, env);
      expect([args.join(' '), res.code]).toEqual([args.join(' '), 2]);
    }
    expect((await verdict(['--help'], env)).code).toBe(0);
  }, 60_000);
});

describe('the verdict CLI', () => {
  it('migrates, manages accounts and keys, and the keys work against the server', async () => {
    const env = { VERDICT_DATA_DIR: newDataDir() };
    const migrate = await verdict(['migrate'], env);
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain('Applied: 0001-core');
    expect((await verdict(['migrate'], env)).stdout).toContain('up to date');

    const account = await verdict(['accounts', 'create', '--name', 'Acme', '--quota', '500', '--json'], env);
    expect(account.code, account.stderr).toBe(0);
    const acc = JSON.parse(account.stdout);
    expect(acc).toMatchObject({ name: 'Acme', monthlyQuota: 500 });
    const updated = await verdict(
      [
        'accounts',
        'update',
        acc.accountId,
        '--quota',
        'none',
        '--trial-ends',
        '2031-01-01T00:00:00Z',
        '--json',
      ],
      env,
    );
    expect(JSON.parse(updated.stdout)).toMatchObject({
      monthlyQuota: null,
      trialEndsAt: '2031-01-01T00:00:00.000Z',
    });
    const list = await verdict(['accounts', 'list'], env);
    expect(list.stdout).toContain(acc.accountId);
    expect(list.stdout).toContain('(operator)');

    const created = await verdict(
      [
        'keys',
        'create',
        '--account',
        acc.accountId,
        '--scopes',
        'check,decisions:read',
        '--expires',
        '30d',
        '--json',
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.key).toMatch(/^vk_/);
    expect(Date.parse(key.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const keys = await verdict(['keys', 'list', '--account', acc.accountId], env);
    expect(keys.stdout).toContain(key.id);
    expect(keys.stdout).not.toContain(key.key);

    const bad = await verdict(['keys', 'create', '--scopes', 'root'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('INVALID_SCOPE');
    const noScopes = await verdict(['keys', 'create'], env);
    expect(noScopes.code).not.toBe(0);
    expect(noScopes.stderr).toContain('--scopes');

    const server = await startServerProcess(env);
    try {
      // the commands above made no admin key of their own: the first start still prints one, and it works
      const firstKey = await firstStartKey(server);
      expect(firstKey, server.output()).toBeTruthy();
      expect(
        (await post(`${server.url}/v1/check`, firstKey!, { content: 'hi', policyId: 'default' })).status,
      ).toBe(200);
      const ok = await post(`${server.url}/v1/check`, key.key, { content: 'hello', policyId: 'default' });
      expect(ok.status).toBe(200);
      const revoke = await verdict(['keys', 'revoke', key.id], env);
      expect(revoke.stdout).toContain(`Revoked ${key.id}`);
      const denied = await post(`${server.url}/v1/check`, key.key, { content: 'hello', policyId: 'default' });
      expect(denied.body.error.code).toBe('REVOKED_API_KEY');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000); // a dozen CLI processes in a row, ~2 s each (tsx start-up): 21–24 s alone, more under CI load
});
