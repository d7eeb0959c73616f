import { parseTime } from '../domain/decision-filters.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { PolicyLifecycle } from '../domain/policies/lifecycle.ts';
import type { Policy } from '../domain/policies/policy.ts';
import type { PolicyService } from '../domain/policies/service.ts';
import { type Principal, requireScope } from '../domain/principal.ts';
import type { NamedProviders } from '../domain/routing.ts';
import type { Queue } from '../jobs/queue.ts';
import { type CandidateInput, candidateView, resolveCandidate } from './candidate.ts';
import {
  DEFAULT_EXAMPLES,
  emptyReport,
  MAX_EXAMPLES,
  type ReportState,
  reportView,
  tally,
} from './report.ts';
import type { BacktestRecord, BacktestRepository, BacktestWindow } from './repository.ts';
import { storedOutcome, triggeredOf } from './stored-outcome.ts';

export const BACKTEST_TASK = 'backtest.run';
/** Windows with more decisions than this run as a background job. */
export const SYNC_LIMIT = 5000;
export const DEFAULT_LIMIT = 100_000;
export const MAX_LIMIT = 1_000_000;
const DEFAULT_DAYS = 30;
const PAGE = 1000;

export interface BacktestRequest extends CandidateInput {
  from?: unknown;
  to?: unknown;
  /** `policy` (default): decisions made under this policy ID; `account`: every decision of the account */
  scope?: unknown;
  limit?: unknown;
  examples?: unknown;
  async?: unknown;
}

const invalid = (field: string, message: string) => new AppError('INVALID_PARAMETER', message, { field });

function intIn(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalid(field, `${field} must be an integer from ${min} to ${max}`);
  return value;
}

function timeOf(value: unknown, field: string, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string') throw invalid(field, `${field} must be an ISO 8601 timestamp`);
  return parseTime(field, value);
}

/**
 * Backtests (issue 18): a candidate policy replayed over the account's stored decisions, from their stored scores
 * (no model call), reported as an old→new action matrix. Small windows answer at once; large ones run on the job
 * queue, checkpointing cursor and running report after every page so that a restart resumes where it stopped.
 */
export class BacktestService {
  constructor(
    private readonly repository: BacktestRepository,
    private readonly deps: {
      policies: PolicyService;
      lifecycle: PolicyLifecycle;
      providers: NamedProviders | null;
      queue: Queue;
    },
  ) {}

  async start(
    principal: Principal,
    policyId: unknown,
    body: BacktestRequest,
  ): Promise<{ async: boolean; backtest: BacktestRecord }> {
    requireScope(principal, 'policies:read');
    requireScope(principal, 'decisions:read');
    const live = await this.deps.policies.resolve(principal, policyId);
    const window = this.window(live, body);
    if (body.async !== undefined && typeof body.async !== 'boolean')
      throw invalid('async', 'async must be a boolean');
    const candidate = await resolveCandidate(principal, live, body, this.deps);
    const total = await this.repository.count(principal.accountId, window);
    const now = new Date().toISOString();
    const record: BacktestRecord = {
      id: newId('bkt'),
      accountId: principal.accountId,
      policyId: live.policyId,
      candidate,
      window,
      status: 'queued',
      processed: 0,
      total,
      cursor: null,
      report: emptyReport(),
      error: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    if (body.async === true || total > SYNC_LIMIT) {
      await this.repository.insert(record);
      await this.enqueue(record.id);
      return { async: true, backtest: record };
    }
    const state = emptyReport();
    const { processed, cursor } = await this.replay(record, state, null, 0);
    const done = { ...record, status: 'completed' as const, processed, cursor, report: state };
    done.completedAt = new Date().toISOString();
    await this.repository.insert(done);
    return { async: false, backtest: done };
  }

  async get(principal: Principal, backtestId: string): Promise<BacktestRecord> {
    requireScope(principal, 'decisions:read');
    const record = await this.repository.get(backtestId, principal.accountId);
    if (!record)
      throw new AppError('BACKTEST_NOT_FOUND', `Backtest ${backtestId} does not exist`, { backtestId });
    return record;
  }

  /** The job: resumes from the last checkpoint; idempotent, so a job run twice after a crash is harmless. */
  async run(backtestId: string, signal?: AbortSignal): Promise<void> {
    const record = await this.repository.get(backtestId);
    if (!record || record.status === 'completed' || record.status === 'failed') return;
    await this.repository.update(backtestId, { status: 'running' });
    const state = record.report ?? emptyReport();
    const checkpoint = async (processed: number, cursor: string | null) =>
      this.repository.update(backtestId, { processed, cursor, report: state });
    const { processed, cursor } = await this.replay(record, state, record.cursor, record.processed, {
      checkpoint,
      ...(signal && { signal }),
    });
    await this.repository.update(backtestId, {
      status: 'completed',
      processed,
      cursor,
      report: state,
      completedAt: new Date().toISOString(),
    });
  }

  async fail(backtestId: string, error: unknown): Promise<void> {
    const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
    const message = error instanceof AppError ? error.message : 'The backtest failed';
    await this.repository.update(backtestId, { status: 'failed', error: { code, message } });
  }

  /** Re-enqueues backtests whose job was lost (enqueueing an ID still pending is a no-op). */
  async resumeStalled(leaseMs: number): Promise<number> {
    const ids = await this.repository.stalled(new Date(Date.now() - leaseMs).toISOString());
    for (const id of ids) await this.enqueue(id);
    return ids.length;
  }

  private enqueue(id: string): Promise<void> {
    return this.deps.queue.enqueue([{ name: BACKTEST_TASK, data: { backtestId: id }, id, maxAttempts: 5 }]);
  }

  /** Replays pages of decisions into `state` until `total` are counted or none are left. */
  private async replay(
    record: BacktestRecord,
    state: ReportState,
    from: string | null,
    done: number,
    options: {
      checkpoint?: (processed: number, cursor: string | null) => Promise<void>;
      signal?: AbortSignal;
    } = {},
  ): Promise<{ processed: number; cursor: string | null }> {
    const candidate: Policy = record.candidate.policy;
    let cursor = from;
    let processed = done;
    while (processed < record.total) {
      if (options.signal?.aborted)
        throw new Error('backtest interrupted; it resumes from its last checkpoint');
      const size = Math.min(PAGE, record.total - processed);
      const page = await this.repository.page(record.accountId, record.window, cursor, size);
      if (page.length === 0) break;
      for (const d of page) {
        const result = await storedOutcome(d, candidate, this.deps.providers);
        const replayed = 'outcome' in result;
        tally(
          state,
          {
            decisionId: d.decisionId,
            oldAction: d.action,
            oldTriggered: triggeredOf(d.categories),
            newAction: replayed ? result.outcome.action : null,
            newTriggered: replayed ? triggeredOf(result.outcome.categories) : null,
            notReplayable: replayed ? null : result.notReplayable,
          },
          record.window.examples,
        );
      }
      processed += page.length;
      cursor = page[page.length - 1]!.decisionId;
      await options.checkpoint?.(processed, cursor);
    }
    return { processed, cursor };
  }

  private window(live: Policy, body: BacktestRequest): BacktestWindow {
    const now = new Date();
    const to = timeOf(body.to, 'to', now.toISOString());
    const from = timeOf(
      body.from,
      'from',
      new Date(Date.parse(to) - DEFAULT_DAYS * 86_400_000).toISOString(),
    );
    if (from >= to) throw invalid('from', 'from must be before to');
    if (body.scope !== undefined && body.scope !== 'policy' && body.scope !== 'account')
      throw invalid('scope', 'scope must be "policy" or "account"');
    return {
      policyId: body.scope === 'account' ? null : live.policyId,
      from,
      to,
      limit: intIn(body.limit, 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT),
      examples: intIn(body.examples, 'examples', 0, MAX_EXAMPLES, DEFAULT_EXAMPLES),
    };
  }
}

/** The backtest as the API shows it; the report once completed. */
export function backtestView(b: BacktestRecord) {
  return {
    backtestId: b.id,
    policyId: b.policyId,
    candidate: candidateView(b.candidate.policy, b.candidate.source),
    window: {
      scope: b.window.policyId === null ? ('account' as const) : ('policy' as const),
      from: b.window.from,
      to: b.window.to,
      limit: b.window.limit,
    },
    status: b.status,
    progress: {
      processed: b.processed,
      total: b.total,
      percentComplete: b.total === 0 ? 100 : Math.round((b.processed / b.total) * 1000) / 10,
    },
    ...(b.status === 'completed' && b.report && { report: reportView(b.report) }),
    ...(b.error && { error: b.error }),
    createdAt: b.createdAt,
    completedAt: b.completedAt,
  };
}
