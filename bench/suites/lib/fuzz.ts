// The fuzz run against a service that is already up: every operation of its /openapi.json in turn, each request a
// hostile variant (hostile.ts) from a PRNG seeded by (seed, request number), so `--seed S --replay N` sends one again.
import { type FuzzKnown, hostileRequest } from './hostile.ts';
import { operations } from './openapi.ts';
import { Rng } from './prng.ts';
import { rssMb } from './probe.ts';
import { type RawRequest, rawRequest } from './raw-http.ts';
import { ADMIN_KEY, api, createPolicy } from './service.ts';

export interface FuzzOptions {
  origin: string;
  /** An admin key of the service (default: the one the suites start it with). */
  adminKey?: string;
  /** The service's process, for its RSS. */
  pid?: number;
  requests: number;
  seed: number;
  concurrency: number;
  timeoutMs: number;
  /** Only this request number (a replay of one failure). */
  replay?: number;
  progress?: (line: string) => void;
}

export interface FuzzFailure {
  n: number;
  operation: string;
  outcome: string;
  request: string;
}

export interface FuzzSummary {
  seed: number;
  requests: number;
  operations: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  unanswered: number;
  failures: FuzzFailure[];
  rssStartMb: number | null;
  rssPeakMb: number | null;
  rssEndMb: number | null;
  serviceUp: boolean;
  /** What the closing liveness probe and check answered (status, and the check's body), to tell why it is not up. */
  finalAnswers: { healthz: number | null; check: number | null; checkBody: string | null };
  seconds: number;
}

/** A request, shortened for a report: method, path, headers and the first bytes of the body. */
export function describe(req: RawRequest): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${(typeof v === 'string' ? v : v.toString('latin1')).slice(0, 80)}`)
    .join(' | ');
  const body = req.body
    ? ` body(${req.body.length} B): ${JSON.stringify(req.body.subarray(0, 200).toString('latin1'))}`
    : '';
  return `${req.method} ${req.path.slice(0, 200)} [${headers}]${body}`;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const started = performance.now();
  const say = options.progress ?? (() => {});
  const key = options.adminKey ?? ADMIN_KEY;
  const doc = (await api(options.origin, 'GET', '/openapi.json')).body;
  const ops = operations(doc);
  if (ops.length === 0) throw new Error('no operations in /openapi.json');
  await createPolicy(options.origin, 'fuzz', key);
  const text = 'Fuzzing the service: a short ordinary sentence about a football match and the weather.';
  const check = await api(options.origin, 'POST', '/v1/check', { content: text, policyId: 'fuzz' }, { key });
  if (check.status !== 200) throw new Error(`a valid check failed before fuzzing: ${check.status}`);
  // Decision and policy IDs only, and not the run's own policy: a key or account ID in a path would let
  // DELETE /v1/keys/{id} revoke the admin key, or PATCH /v1/accounts/{id} set its quota to 0, and DELETE
  // /v1/policies/fuzz would remove the policy the bodies name; the rest of the run would test nothing. Paths get a
  // policy of their own to change and delete.
  await createPolicy(options.origin, 'fuzz-target', key);
  const known: FuzzKnown = {
    adminKey: key,
    policyId: 'fuzz',
    text,
    ids: [check.body.decisionId, 'fuzz-target', 'default'],
  };

  const rssStart = rssMb(options.pid);
  let rssPeak = rssStart;
  const byStatus: Record<string, number> = {};
  const failures: FuzzFailure[] = [];
  let serverErrors = 0;
  let unanswered = 0;
  let sent = 0;
  const numbers =
    options.replay !== undefined ? [options.replay] : Array.from({ length: options.requests }, (_, i) => i);
  let next = 0;
  const worker = async () => {
    while (next < numbers.length) {
      const n = numbers[next++]!;
      const rng = new Rng((options.seed ^ Math.imul(n + 1, 0x9e3779b1)) >>> 0);
      const op = ops[n % ops.length]!;
      const req = hostileRequest(op, rng, known);
      const outcome = await rawRequest(options.origin, req, options.timeoutMs, `#${n}`);
      sent++;
      if (options.replay !== undefined) {
        const what =
          outcome.kind === 'answered' ? `${outcome.status} ${outcome.body.slice(0, 300)}` : outcome.reason;
        say(`#${n} ${describe(req)}\n  → ${what}`);
      }
      const key = outcome.kind === 'answered' ? String(outcome.status) : 'unanswered';
      byStatus[key] = (byStatus[key] ?? 0) + 1;
      const bad = outcome.kind === 'unanswered' || outcome.status >= 500;
      if (outcome.kind === 'unanswered') unanswered++;
      else if (outcome.status >= 500) serverErrors++;
      if (bad && failures.length < 50) {
        const what =
          outcome.kind === 'answered'
            ? `${outcome.status} ${outcome.body.slice(0, 300)}`
            : `${outcome.reason}${outcome.previous ? ` (the connection's previous request: ${outcome.previous})` : ''}`;
        failures.push({ n, operation: `${op.method} ${op.path}`, outcome: what, request: describe(req) });
        say(
          `FAIL #${n} (${op.method} ${op.path}): ${what}\n  ${describe(req).slice(0, 400)}\n  replay: --seed ${options.seed} --replay ${n}`,
        );
      }
      if (sent % 1000 === 0) {
        const rss = rssMb(options.pid);
        if (rss !== null && (rssPeak === null || rss > rssPeak)) rssPeak = rss;
        say(
          `${sent}/${numbers.length} requests, ${serverErrors} 5xx, ${unanswered} unanswered, RSS ${rss?.toFixed(0) ?? '?'} MB`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, numbers.length) }, worker));

  const health = await api(options.origin, 'GET', '/healthz').catch(() => null);
  const again = await api(
    options.origin,
    'POST',
    '/v1/check',
    { content: text, policyId: 'fuzz' },
    { key },
  ).catch(() => null);
  const rssEnd = rssMb(options.pid);
  if (rssEnd !== null && (rssPeak === null || rssEnd > rssPeak)) rssPeak = rssEnd;
  return {
    seed: options.seed,
    requests: sent,
    operations: ops.length,
    byStatus,
    serverErrors,
    unanswered,
    failures,
    rssStartMb: rssStart,
    rssPeakMb: rssPeak,
    rssEndMb: rssEnd,
    serviceUp: health?.status === 200 && again?.status === 200,
    finalAnswers: {
      healthz: health?.status ?? null,
      check: again?.status ?? null,
      checkBody: again ? JSON.stringify(again.body).slice(0, 300) : null,
    },
    seconds: (performance.now() - started) / 1000,
  };
}
