import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.ts';
import { createTestCa, HttpsReceiver } from './helpers/https-receiver.ts';
import { CLI, callApi, freePort, type ServerProcess, startServerProcess } from './helpers/process.ts';

const KEY = 'vk_bootstrap_webhook_crash_0000000000';

const call = (base: string, method: string, url: string, body?: unknown) =>
  callApi(base, KEY, method, url, body);

describe('kill -9 in the middle of deliveries and async batches', () => {
  const ca = createTestCa();
  const dataDir = tempDir('verdict-crash-');
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  it('after a restart every event is delivered at least once and every batch completes, once', async () => {
    const receiver = new HttpsReceiver(ca);
    await receiver.start();
    // A slow receiver that fails the first attempt of every third event: plenty of deliveries are in flight or
    // waiting for a retry when the service dies.
    const attempts = new Map<string, number>();
    const succeeded = new Set<string>();
    receiver.responder = (r) => {
      const n = (attempts.get(r.eventId) ?? 0) + 1;
      attempts.set(r.eventId, n);
      const fail = n === 1 && r.eventId.charCodeAt(r.eventId.length - 1) % 3 === 0;
      if (!fail) succeeded.add(r.eventId);
      return { status: fail ? 500 : 200, delayMs: 40 };
    };
    const port = String(await freePort());
    const env = {
      PORT: port,
      VERDICT_DATA_DIR: dataDir,
      VERDICT_BOOTSTRAP_KEY: KEY,
      VERDICT_ALLOW_PRIVATE_URLS: 'true',
      VERDICT_CA_FILE: ca.caFile,
      VERDICT_WEBHOOK_RETRY_SCHEDULE: '200ms,400ms,800ms,1600ms,3s',
      VERDICT_JOB_LEASE_MS: '3000',
      VERDICT_WORKER_CONCURRENCY: '4',
    };
    let server: ServerProcess = await startServerProcess(env);
    try {
      const base = server.url;
      const account = await call(base, 'GET', '/v1/account');
      receiver.secrets.push(account.body.signingSecret);
      const hook = await call(base, 'POST', '/v1/webhooks', {
        url: `${receiver.url}/events`,
        events: ['decision.created'],
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      receiver.secrets.push(hook.body.secret);

      const singles: string[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await call(base, 'POST', '/v1/check', {
          content: `message number ${i}`,
          policyId: 'default',
        });
        expect(res.status).toBe(200);
        singles.push(res.body.decisionId);
      }
      const batches: string[] = [];
      for (let b = 0; b < 3; b++) {
        const res = await call(base, 'POST', '/v1/batch/check/async', {
          policyId: 'default',
          webhookUrl: `${receiver.url}/batches`,
          items: Array.from({ length: 40 }, (_, i) => ({
            id: `b${b}-${i}`,
            content: `batch ${b} item ${i} text`,
          })),
        });
        expect(res.status).toBe(202);
        batches.push(res.body.batchId);
      }
      // Kill while the first batch is being worked on.
      let before = await Promise.all(batches.map((id) => call(base, 'GET', `/v1/batch/${id}`)));
      for (let i = 0; i < 200 && before[0]!.body.processedItems === 0; i++) {
        await sleep(10);
        before = await Promise.all(batches.map((id) => call(base, 'GET', `/v1/batch/${id}`)));
      }
      const deliveredBefore = succeeded.size;
      server.child.kill('SIGKILL');
      await server.exited;
      process.stderr.write(
        `[crash test] at kill: ${deliveredBefore} events delivered, batches ${before.map((b) => `${b.body.status}:${b.body.processedItems}`).join(' ')}\n`,
      );
      const unfinished = before.filter((b) => b.body.status !== 'completed').length;
      // The crash must have interrupted something, or the test proves nothing.
      expect(deliveredBefore < singles.length || unfinished > 0).toBe(true);

      const t0 = Date.now();
      server = await startServerProcess(env);
      const restarted = server.url;
      const lap = (what: string) =>
        process.stderr.write(`[crash test] ${what} after ${Date.now() - t0} ms\n`);
      lap('restarted');
      const eventsOf = (decisionIds: Set<string>) =>
        receiver.requests.filter((r) => r.path === '/events' && decisionIds.has(r.json?.data?.id));
      await receiver
        .waitFor(
          // Distinct batches: an event whose first attempt failed shows up twice once its retry succeeds.
          () =>
            new Set(
              receiver.requests
                .filter((r) => r.path === '/batches' && succeeded.has(r.eventId))
                .map((r) => r.json?.data?.batchId),
            ).size >= 3,
          45_000,
          'every batch to complete',
        )
        .catch(async (error) => {
          process.stderr.write(`${server.output().slice(-4000)}\n${receiver.requests.length} requests\n`);
          void Promise.all(batches.map((id) => call(server.url, 'GET', `/v1/batch/${id}`))).then((all) =>
            process.stderr.write(
              `${JSON.stringify(all.map((b) => [b.body.status, b.body.processedItems, b.body.error]))}\n`,
            ),
          );
          await sleep(500);
          throw error;
        });
      lap('batches completed');
      const final = await Promise.all(batches.map((id) => call(restarted, 'GET', `/v1/batch/${id}`)));
      for (const b of final)
        expect(b.body).toMatchObject({ status: 'completed', totalItems: 40, processedItems: 40 });
      const expected = new Set([
        ...singles,
        ...final.flatMap((b) => b.body.items.map((i: any) => i.decisionId)),
      ]);
      expect(expected.size).toBe(20 + 120);
      await receiver.waitFor(
        () => {
          const ok = new Set(
            eventsOf(expected)
              .filter((r) => succeeded.has(r.eventId))
              .map((r) => r.json.data.id),
          );
          return ok.size === expected.size;
        },
        45_000,
        'every decision.created to be delivered',
      );
      lap('all events delivered');
      // Each completion event reached the batch's webhookUrl, signed with the account's secret.
      const completions = receiver.requests.filter((r) => r.path === '/batches' && succeeded.has(r.eventId));
      expect(new Set(completions.map((r) => r.json.data.batchId))).toEqual(new Set(batches));
      expect(completions.every((r) => r.verifiedWith === account.body.signingSecret)).toBe(true);
      // Every request the receiver ever got was signed, and retries kept their event ID and body.
      expect(receiver.requests.filter((r) => r.verifiedWith === null)).toEqual([]);
      for (const r of receiver.requests) {
        expect(r.body).toBe(receiver.requests.find((o) => o.eventId === r.eventId)!.body);
      }
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      // Resuming did not decide any batch item twice.
      const db = new SQLite(path.join(dataDir, 'verdict.db'), { readonly: true });
      try {
        const decisions = db.prepare('select count(*) as n from decisions').get() as { n: number };
        expect(decisions.n).toBe(20 + 120);
      } finally {
        db.close();
      }
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await receiver.stop();
      await sleep(10);
    }
  }, 120_000);

  it('scaled out: `serve --no-worker` only records events; a separate `verdict worker` delivers them', async () => {
    const receiver = new HttpsReceiver(ca);
    await receiver.start();
    const dir = tempDir('verdict-scale-');
    const port = String(await freePort());
    const { DATABASE_URL: _d, REDIS_URL: _r, ...inherited } = process.env;
    const env = {
      ...inherited,
      PORT: port,
      LOG_LEVEL: 'warn',
      VERDICT_DATA_DIR: dir,
      VERDICT_BOOTSTRAP_KEY: KEY,
      VERDICT_ALLOW_PRIVATE_URLS: 'true',
      VERDICT_CA_FILE: ca.caFile,
    };
    const spawnCli = (args: string[]) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (d) => {
        output += d;
      });
      child.stderr!.on('data', (d) => {
        output += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      return { child, exited, output: () => output };
    };
    const api = spawnCli(['serve', '--no-worker']);
    let worker: ReturnType<typeof spawnCli> | null = null;
    try {
      await receiver.waitFor(() => api.output().includes('listening on'), 60_000, 'the API to start');
      const base = `http://127.0.0.1:${port}`;
      const hook = await call(base, 'POST', '/v1/webhooks', {
        url: `${receiver.url}/scaled`,
        events: ['decision.created'],
      });
      expect(hook.status).toBe(201);
      receiver.secrets.push(hook.body.secret);
      const check = await call(base, 'POST', '/v1/check', { content: 'scaled out', policyId: 'default' });
      expect(check.status).toBe(200);
      await sleep(1500);
      expect(receiver.requests).toHaveLength(0); // no worker in the API process
      worker = spawnCli(['worker']);
      await receiver.waitFor(() => receiver.requests.length >= 1, 60_000, 'the worker to deliver');
      expect(receiver.requests[0]!.json.data.id).toBe(check.body.decisionId);
      expect(receiver.requests[0]!.verifiedWith).toBe(hook.body.secret);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
      api.child.kill('SIGTERM');
      await api.exited;
      await receiver.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
