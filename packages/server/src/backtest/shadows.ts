import type { AuditSink } from '../audit/types.ts';
import { parseTime } from '../domain/decision-filters.ts';
import type { DecisionSideWrite } from '../domain/decisions.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { PolicyLifecycle, PolicyUseCheck } from '../domain/policies/lifecycle.ts';
import type { PolicyService } from '../domain/policies/service.ts';
import { type Principal, requireScope } from '../domain/principal.ts';
import type { NamedProviders } from '../domain/routing.ts';
import { TtlCache } from '../domain/ttl-cache.ts';
import type { Db } from '../storage/database.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import { type CandidateInput, candidateView, resolveCandidate } from './candidate.ts';
import { DEFAULT_EXAMPLES, emptyReport, MAX_EXAMPLES, reportView, tally } from './report.ts';
import type { ShadowRecord, ShadowRepository } from './shadow-repository.ts';
import { storedOutcome, triggeredOf } from './stored-outcome.ts';

/** A shadow runs at most this long (a forgotten one must not record for ever). */
export const MAX_SHADOW_MS = 90 * 86_400_000;
/** A report reads at most this many recorded decisions (the oldest first); beyond, it says it is truncated. */
export const MAX_REPORT_ROWS = 200_000;
const PAGE = 2000;

export interface ShadowRequest extends CandidateInput {
  until?: unknown;
}

/**
 * Shadow policies (issue 18): beside a live policy, a candidate decides every new live decision from the same
 * stored scores (no second model call), inside the decision's own transaction; the response and events never see
 * it. The check path pays one cached lookup per decision when no shadow runs (entries trusted for `cacheMs`).
 */
export class ShadowService {
  private readonly cache: TtlCache<string, ShadowRecord | null>;

  constructor(
    private readonly repository: ShadowRepository,
    private readonly deps: {
      policies: PolicyService;
      lifecycle: PolicyLifecycle;
      providers: NamedProviders | null;
      /** Starting and stopping a shadow are audit entries (`policy.shadow_started`, `policy.shadow_stopped`). */
      audit: AuditSink;
    },
    cacheMs: number,
  ) {
    this.cache = new TtlCache(cacheMs);
  }

  async set(principal: Principal, policyId: unknown, body: ShadowRequest) {
    requireScope(principal, 'policies:write');
    const live = await this.deps.policies.resolve(principal, policyId);
    const candidate = await resolveCandidate(principal, live, body, this.deps, true);
    if (candidate.source === 'policy' && candidate.policy.policyId === live.policyId) {
      throw new AppError(
        'INVALID_PARAMETER',
        'A policy cannot shadow itself; send a version or YAML instead',
        {
          field: 'shadowPolicyId',
        },
      );
    }
    const now = new Date();
    let until: string | null = null;
    if (body.until !== undefined && body.until !== null) {
      if (typeof body.until !== 'string') throw invalidUntil();
      until = parseTime('until', body.until);
      const at = Date.parse(until);
      if (at <= now.getTime() || at > now.getTime() + MAX_SHADOW_MS) throw invalidUntil();
    }
    const record: ShadowRecord = {
      id: newId('shd'),
      accountId: principal.accountId,
      policyId: live.policyId,
      candidate,
      sourcePolicyId: candidate.source === 'policy' ? candidate.policy.policyId : null,
      until,
      active: true,
      createdAt: now.toISOString(),
      stoppedAt: null,
    };
    const previous = await this.repository.active(principal.accountId, live.policyId);
    await this.repository.replace(record);
    this.cache.clear();
    await this.deps.audit.record(
      principal,
      'policy.shadow_started',
      { type: 'policy', id: live.policyId, accountId: principal.accountId },
      { before: previous && shadowView(previous), after: shadowView(record) },
    );
    return record;
  }

  async get(principal: Principal, policyId: unknown): Promise<ShadowRecord> {
    requireScope(principal, 'policies:read');
    const live = await this.deps.policies.resolve(principal, policyId);
    const shadow = await this.repository.latest(principal.accountId, live.policyId);
    if (!shadow) throw notFound(live.policyId);
    return shadow;
  }

  async stop(principal: Principal, policyId: unknown): Promise<ShadowRecord> {
    requireScope(principal, 'policies:write');
    const live = await this.deps.policies.resolve(principal, policyId);
    const shadow = await this.repository.active(principal.accountId, live.policyId);
    if (!shadow) throw notFound(live.policyId);
    const now = new Date().toISOString();
    await this.repository.stop(shadow.id, now);
    this.cache.clear();
    const stopped = { ...shadow, active: false, stoppedAt: now };
    await this.deps.audit.record(
      principal,
      'policy.shadow_stopped',
      { type: 'policy', id: live.policyId, accountId: principal.accountId },
      { before: shadowView(shadow), after: shadowView(stopped) },
    );
    return stopped;
  }

  /** The report of the policy's newest shadow (running or stopped), in the shape of a backtest's. */
  async report(principal: Principal, policyId: unknown, query: { examples?: unknown }) {
    requireScope(principal, 'decisions:read');
    const shadow = await this.get(principal, policyId);
    const examples = query.examples === undefined ? DEFAULT_EXAMPLES : Number(query.examples);
    if (typeof query.examples === 'string' && !/^\d{1,2}$/.test(query.examples)) throw invalidExamples();
    if (!Number.isInteger(examples) || examples < 0 || examples > MAX_EXAMPLES) throw invalidExamples();
    const state = emptyReport();
    let cursor: string | null = null;
    let truncated = false;
    for (;;) {
      const page = await this.repository.comparisons(shadow.id, cursor, PAGE);
      for (const c of page) tally(state, c, examples);
      if (page.length < PAGE) break;
      cursor = page[page.length - 1]!.decisionId;
      if (state.total >= MAX_REPORT_ROWS) {
        truncated = true;
        break;
      }
    }
    return { shadow, report: reportView(state), truncated };
  }

  /** Refuses to delete a policy a running shadow holds (the lifecycle's use check). */
  readonly useCheck: PolicyUseCheck = async (trx, accountId, policyId) => {
    const using = await this.repository.using(trx, accountId, policyId, new Date().toISOString());
    if (using.length > 0) {
      throw new AppError(
        'POLICY_IN_USE',
        `Policy "${policyId}" is used by a running shadow; stop it first (DELETE /v1/policies/${using[0]!.policyId}/shadow)`,
        { policyId, shadows: using.map((s) => ({ shadowId: s.id, policyId: s.policyId })) },
      );
    }
  };

  /** The decision store's side write: records the shadow's verdict beside each new live decision. */
  readonly sideWrite: DecisionSideWrite = async (trx, decisions) => {
    const now = Date.now();
    for (const d of decisions) {
      if (d.replayOf !== null) continue;
      const shadow = await this.lookup(trx, d.accountId, d.policyId, now);
      if (!shadow || (shadow.until !== null && Date.parse(shadow.until) <= Date.parse(d.timestamp))) continue;
      // a shadow must never fail the live decision: a comparison that throws is not recorded
      const comparison = await this.compare(d, shadow).catch(() => null);
      if (comparison) await this.repository.record(trx, shadow.id, d.accountId, comparison, d.timestamp);
    }
  };

  private async lookup(trx: Db, accountId: string, policyId: string, now: number) {
    const key = `${accountId}\u0000${policyId}`;
    const cached = this.cache.get(key, now);
    if (cached !== undefined) return cached;
    const shadow = await this.repository.active(accountId, policyId, trx);
    this.cache.set(key, shadow, now);
    return shadow;
  }

  private async compare(d: DecisionRecord, shadow: ShadowRecord) {
    const result = await storedOutcome(
      { ...d, contentRedacted: d.content === '' },
      shadow.candidate.policy,
      this.deps.providers,
    );
    const replayed = 'outcome' in result;
    return {
      decisionId: d.decisionId,
      oldAction: d.action,
      oldTriggered: triggeredOf(d.categories),
      newAction: replayed ? result.outcome.action : null,
      newTriggered: replayed ? triggeredOf(result.outcome.categories) : null,
      notReplayable: replayed ? null : result.notReplayable,
    };
  }
}

const notFound = (policyId: string) =>
  new AppError('SHADOW_NOT_FOUND', `Policy "${policyId}" has no shadow`, { policyId });
const invalidUntil = () =>
  new AppError('INVALID_PARAMETER', 'until must be an ISO 8601 time in the future, at most 90 days ahead', {
    field: 'until',
  });
const invalidExamples = () =>
  new AppError('INVALID_PARAMETER', `examples must be an integer from 0 to ${MAX_EXAMPLES}`, {
    field: 'examples',
  });

/** A shadow as the API shows it. */
export function shadowView(s: ShadowRecord) {
  const expired = s.until !== null && Date.parse(s.until) <= Date.now();
  return {
    shadowId: s.id,
    policyId: s.policyId,
    candidate: candidateView(s.candidate.policy, s.candidate.source),
    status: !s.active ? ('stopped' as const) : expired ? ('expired' as const) : ('running' as const),
    until: s.until,
    createdAt: s.createdAt,
    stoppedAt: s.stoppedAt,
  };
}
