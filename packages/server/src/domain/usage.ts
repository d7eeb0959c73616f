import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import { total, type UsageRepository, type UsageUnits } from '../storage/repositories/usage.ts';
import type { DecisionSideWrite } from './decisions.ts';
import { AppError } from './errors.ts';
import type { Principal } from './principal.ts';
import type { ContentType } from './taxonomy.ts';

export type { UsageUnits };

export const units = (partial: Partial<UsageUnits>): UsageUnits => ({
  text: 0,
  image: 0,
  videoFrames: 0,
  ...partial,
});

export function unitsOfType(contentType: ContentType, count = 1): UsageUnits {
  if (contentType === 'image') return units({ image: count });
  if (contentType === 'video') return units({ videoFrames: count });
  return units({ text: count });
}

/** What a replay counts: one evaluation, an image one for an image and a text one otherwise (nothing is fetched). */
export function unitsOfReplay(contentType: DecisionRecord['contentType']): UsageUnits {
  return unitsOfType(contentType === 'image' ? 'image' : 'text');
}

/**
 * What a stored decision counts: one per text and image, one per video frame; multi-modal items each count; a
 * replay as unitsOfReplay.
 */
export function unitsOfDecision(d: DecisionRecord): UsageUnits {
  if (d.replayOf !== null) return unitsOfReplay(d.contentType);
  if (d.contentType !== 'multimodal' && d.contentType !== 'video') return unitsOfType(d.contentType);
  const out = units({});
  for (const item of (d.results ?? []) as {
    contentType?: string;
    frames?: unknown[];
    frameNumber?: number;
  }[]) {
    if (d.contentType === 'video' || item.frameNumber !== undefined) out.videoFrames++;
    else if (item.contentType === 'image') out.image++;
    else if (item.contentType === 'video') out.videoFrames += item.frames?.length ?? 1;
    else out.text++;
  }
  return out;
}

export const monthOf = (date: Date) => date.toISOString().slice(0, 7);

/** A `month` query parameter: `YYYY-MM`, the current UTC month when absent, else 422 INVALID_PARAMETER. */
export function parseMonth(month: unknown, now = new Date()): string {
  if (month === undefined) return monthOf(now);
  if (typeof month !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    throw new AppError('INVALID_PARAMETER', 'month must look like YYYY-MM', { field: 'month' });
  }
  return month;
}

/** Units already counted by a reservation; they must not be counted again when the decision is stored. */
const RESERVED = Symbol('usageReserved');
type Reservable = DecisionRecord & { [RESERVED]?: true };

/** Marks decisions whose units were reserved earlier (e.g. when an async batch was accepted). */
export function coverDecisions(decisions: DecisionRecord[]): void {
  for (const d of decisions) (d as Reservable)[RESERVED] = true;
}

export interface Reservation {
  /** Marks decisions as covered by this reservation (call before storing them). */
  cover(decisions: DecisionRecord[]): void;
  /** Gives the units back when the work failed. Idempotent. */
  release(): Promise<void>;
}

const NOTHING_RESERVED: Reservation = { cover() {}, release: async () => {} };

/**
 * Monthly metering, quotas and trials (decisions §9). Accounts without a quota are metered in the decision's own
 * transaction (no extra write); accounts with a quota reserve their units atomically before any work is done, so
 * the quota holds across instances, and get them back if the work fails.
 */
export class UsageService {
  constructor(private readonly repo: UsageRepository) {}

  /** 402 TRIAL_EXPIRED once the account's free trial has ended. */
  assertTrialActive(principal: Principal, now = new Date()): void {
    const { trialEndsAt } = principal.account;
    if (trialEndsAt !== null && Date.parse(trialEndsAt) <= now.getTime()) {
      throw new AppError('TRIAL_EXPIRED', 'The free trial of this account has ended', { trialEndsAt });
    }
  }

  async reserve(principal: Principal, requested: UsageUnits, now = new Date()): Promise<Reservation> {
    const { monthlyQuota } = principal.account;
    this.assertTrialActive(principal, now);
    if (monthlyQuota === null || total(requested) === 0) return NOTHING_RESERVED;
    const month = monthOf(now);
    if (!(await this.repo.addWithin(principal.accountId, month, requested, monthlyQuota))) {
      const used = (await this.repo.get(principal.accountId, month)).evaluations;
      const message =
        used >= monthlyQuota
          ? `The monthly quota of this account (${monthlyQuota} evaluations) is used up`
          : `This request needs ${total(requested)} evaluations; ${monthlyQuota - used} of this month's ${monthlyQuota} are left`;
      throw new AppError('QUOTA_EXCEEDED', message, {
        quota: monthlyQuota,
        used,
        requested: total(requested),
        month,
      });
    }
    let released = false;
    return {
      cover: coverDecisions,
      release: async () => {
        if (released) return;
        released = true;
        await this.repo.subtract(principal.accountId, month, requested);
      },
    };
  }

  /** Counts stored decisions not covered by a reservation, in the same transaction as the decisions. */
  readonly sideWrite: DecisionSideWrite = async (trx, decisions) => {
    const month = monthOf(new Date());
    const byAccount = new Map<string, UsageUnits>();
    const costs = new Map<string, number>();
    for (const d of decisions) {
      if (d.cost > 0) costs.set(d.accountId, (costs.get(d.accountId) ?? 0) + d.cost);
      if ((d as Reservable)[RESERVED]) continue;
      const sum = byAccount.get(d.accountId) ?? units({});
      const u = unitsOfDecision(d);
      sum.text += u.text;
      sum.image += u.image;
      sum.videoFrames += u.videoFrames;
      byAccount.set(d.accountId, sum);
    }
    for (const [accountId, u] of byAccount) await this.repo.add(trx, accountId, month, u);
    for (const [accountId, cost] of costs) await this.repo.addCost(trx, accountId, month, cost);
    // each external provider's answered calls, as the decisions' routing records them
    const spend = new Map<string, { calls: number; cost: number }>();
    for (const d of decisions) {
      for (const attempt of d.replayData?.routing ?? []) {
        if (attempt.outcome !== 'answered' || attempt.provider === 'local') continue;
        const sum = spend.get(attempt.provider) ?? { calls: 0, cost: 0 };
        sum.calls++;
        sum.cost += attempt.cost ?? 0;
        spend.set(attempt.provider, sum);
      }
    }
    if (spend.size > 0) await this.repo.addProviderSpend(trx, month, spend);
  };

  /** Each external provider's answered evaluations and USD this month, from stored decisions. */
  providerSpend(month = monthOf(new Date())) {
    return this.repo.providerSpend(month);
  }

  /**
   * Runs evaluations that store no decision (the compatibility endpoints) under the quota, and counts them once
   * they answered: a failure counts nothing.
   */
  async meter<T>(principal: Principal, requested: UsageUnits, work: () => Promise<T>): Promise<T> {
    const reserved = principal.account.monthlyQuota !== null;
    return withReservation(this, principal, requested, async () => {
      const result = await work();
      // a quota account's units were counted by the reservation
      if (!reserved) await this.repo.addNow(principal.accountId, monthOf(new Date()), requested);
      return result;
    });
  }

  async get(principal: Principal, month?: unknown) {
    const m = parseMonth(month);
    const row = await this.repo.get(principal.accountId, m);
    const quota = principal.account.monthlyQuota;
    return {
      accountId: principal.accountId,
      month: m,
      evaluations: row.evaluations,
      breakdown: { text: row.text, image: row.image, videoFrames: row.videoFrames },
      costUsd: row.costUsd,
      monthlyQuota: quota,
      remaining: quota === null ? null : Math.max(0, quota - row.evaluations),
      trialEndsAt: principal.account.trialEndsAt,
    };
  }
}

/** Runs `work` under a reservation of `requested` units: released if the work throws. */
export async function withReservation<T>(
  usage: UsageService,
  principal: Principal,
  requested: UsageUnits,
  work: (reservation: Reservation) => Promise<T>,
): Promise<T> {
  const reservation = await usage.reserve(principal, requested);
  try {
    return await work(reservation);
  } catch (error) {
    await reservation.release();
    throw error;
  }
}
