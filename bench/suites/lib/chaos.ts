// The chaos run: the compiled service (API + worker) under a load of checks and asynchronous batches whose events
// go to a local HTTPS receiver, killed with SIGKILL at random moments and restarted on the same data (and port),
// then checked: every 200 has its stored decision, every accepted batch completes, every event arrives at least
// once and every delivery of an event carries the same event ID.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestCa, HttpsReceiver } from '../../../packages/server/test/helpers/https-receiver.ts';
import { type BenchServer, freePort } from '../../lib/service.ts';
import { Rng } from './prng.ts';
import { api, createPolicy, prepareStorage, type Storage, startVerdict } from './service.ts';

export interface ChaosOptions extends Storage {
  kills: number;
  seed: number;
  /** Load between two kills: a random time in [minUpMs, maxUpMs). */
  minUpMs: number;
  maxUpMs: number;
  concurrency: number;
  /** How long, after the last restart, everything may take to settle (batches done, events delivered). */
  settleMs: number;
  progress?: (line: string) => void;
}

export interface ChaosSummary {
  kills: number;
  db: string;
  checksOk: number;
  batchesAccepted: number;
  /** PostgreSQL: the schema holding the run's data (kept when something was lost). */
  databaseUrl?: string;
  /** Requests that got no answer or a 5xx (the service was being killed or starting): allowed, not counted. */
  refused: number;
  missingDecisions: string[];
  incompleteBatches: string[];
  missingEvents: string[];
  /** Events of one (type, subject) delivered under more than one event ID. */
  splitEvents: string[];
  deliveries: number;
  lost: number;
  seconds: number;
  dataDir: string;
}

const BATCH_SIZE = 5;

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const started = performance.now();
  const say = options.progress ?? (() => {});
  const rng = new Rng(options.seed);
  const ca = createTestCa();
  const receiver = new HttpsReceiver(ca);
  await receiver.start();
  const storage = await prepareStorage(options);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-chaos-'));
  const port = await freePort();
  const env = {
    ...storage.env,
    VERDICT_ALLOW_PRIVATE_URLS: 'true',
    VERDICT_CA_FILE: ca.caFile,
    VERDICT_WEBHOOK_RETRY_SCHEDULE: '1s,1s,2s,2s,3s,5s,5s,5s,10s,10s',
    VERDICT_JOB_LEASE_MS: '2000',
    VERDICT_TEXT_WARMUP: 'false',
  };
  const start = () => startVerdict(env, { dataDir, port });
  let server: BenchServer = await start();
  const origin = server.origin;

  const checks: string[] = [];
  const batches: { batchId: string }[] = [];
  let refused = 0;
  let summary: ChaosSummary | undefined;
  try {
    await createPolicy(origin, 'chaos');
    const hook = await api(origin, 'POST', '/v1/webhooks', {
      url: `${receiver.url}/events`,
      events: ['decision.created'],
    });
    if (hook.status !== 201 && hook.status !== 200)
      throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    const account = await api(origin, 'GET', '/v1/account');
    receiver.secrets = [hook.body.secret, account.body.signingSecret];

    let n = 0;
    let loading = true;
    const worker = async () => {
      while (loading) {
        const i = n++;
        const text = `Chaos check ${options.seed}-${i}: a plain sentence about the weekend's football results.`;
        try {
          if (i % 10 === 9) {
            const items = Array.from({ length: BATCH_SIZE }, (_, j) => ({
              id: `i${j}`,
              content: `${text} item ${j}`,
            }));
            const res = await api(origin, 'POST', '/v1/batch/check/async', {
              policyId: 'chaos',
              items,
              webhookUrl: `${receiver.url}/batches`,
            });
            if (res.status === 202) batches.push({ batchId: res.body.batchId });
            else refused++;
          } else {
            const res = await api(origin, 'POST', '/v1/check', { content: text, policyId: 'chaos' });
            if (res.status === 200) checks.push(res.body.decisionId);
            else refused++;
          }
        } catch {
          refused++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const load = Promise.all(Array.from({ length: options.concurrency }, worker));
    for (let k = 1; k <= options.kills; k++) {
      await new Promise((r) => setTimeout(r, options.minUpMs + rng.int(options.maxUpMs - options.minUpMs)));
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGKILL');
      await exited;
      await server.stop(); // closes its log file
      say(
        `kill ${k}/${options.kills}: ${checks.length} checks answered 200, ${batches.length} batches accepted`,
      );
      server = await start();
    }
    await new Promise((r) => setTimeout(r, options.minUpMs));
    loading = false;
    await load;
    say(`load stopped: ${checks.length} checks, ${batches.length} batches; waiting for batches and events`);

    // Settling: every batch completed and every expected event received, or the time is up.
    const deadline = Date.now() + options.settleMs;
    const pendingBatches = new Set(batches.map((b) => b.batchId));
    const lastSeen = new Map<string, string>();
    const batchDecisions: string[] = [];
    while (Date.now() < deadline) {
      for (const batchId of [...pendingBatches]) {
        const res = await api(origin, 'GET', `/v1/batch/${batchId}`).catch(() => null);
        lastSeen.set(batchId, res ? `${res.status} ${JSON.stringify(res.body).slice(0, 300)}` : 'no answer');
        if (res?.status === 200 && res.body.status === 'completed') {
          pendingBatches.delete(batchId);
          for (const item of res.body.items ?? []) batchDecisions.push(item.decisionId);
        }
      }
      if (pendingBatches.size === 0 && missingEvents(receiver, checks, batchDecisions, batches).length === 0)
        break;
      await new Promise((r) => setTimeout(r, 500));
    }

    const missingDecisions: string[] = [];
    for (const id of checks) {
      const res = await api(origin, 'GET', `/v1/decisions/${id}`);
      if (res.status !== 200) missingDecisions.push(id);
    }
    const missing = missingEvents(receiver, checks, batchDecisions, batches);
    const split = splitEvents(receiver);
    summary = {
      kills: options.kills,
      db: options.db,
      checksOk: checks.length,
      batchesAccepted: batches.length,
      refused,
      missingDecisions,
      incompleteBatches: [...pendingBatches].map((id) => `${id}: ${lastSeen.get(id)}`),
      missingEvents: missing,
      splitEvents: split,
      deliveries: receiver.requests.length,
      lost: missingDecisions.length + pendingBatches.size + missing.length + split.length,
      seconds: (performance.now() - started) / 1000,
      dataDir,
      databaseUrl: storage.env.DATABASE_URL || undefined,
    };
    return summary;
  } finally {
    await server.stop();
    await receiver.stop();
    // kept when something was lost, to look into (the PostgreSQL schema's name is in the service's DATABASE_URL)
    if (summary?.lost === 0) await storage.cleanup().catch(() => {});
    fs.rmSync(ca.dir, { recursive: true, force: true });
    if (summary?.lost === 0) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Subjects whose event has not arrived: decision.created for each decision, moderation.completed per batch. */
function missingEvents(
  receiver: HttpsReceiver,
  checks: string[],
  batchDecisions: string[],
  batches: { batchId: string }[],
): string[] {
  const seen = new Set<string>();
  for (const r of receiver.requests) {
    if (r.verifiedWith && r.json?.data?.id) seen.add(`${r.eventType} ${r.json.data.id}`);
  }
  const missing: string[] = [];
  for (const id of [...checks, ...batchDecisions]) {
    if (!seen.has(`decision.created ${id}`)) missing.push(`decision.created ${id}`);
  }
  for (const { batchId } of batches) {
    if (!seen.has(`moderation.completed ${batchId}`)) missing.push(`moderation.completed ${batchId}`);
  }
  return missing;
}

/** (type, subject) pairs delivered under more than one event ID: a redelivery must keep the event's ID. */
function splitEvents(receiver: HttpsReceiver): string[] {
  const ids = new Map<string, Set<string>>();
  for (const r of receiver.requests) {
    const subject = `${r.eventType} ${r.json?.data?.id}`;
    const set = ids.get(subject) ?? new Set<string>();
    ids.set(subject, set);
    set.add(r.eventId);
  }
  return [...ids]
    .filter(([, set]) => set.size > 1)
    .map(([subject, set]) => `${subject}: ${[...set].join(', ')}`);
}
