import { applyBankMatch } from '../banks/outcome.ts';
import type { BankMatch } from '../banks/types.ts';
import { judgeableFor } from '../domain/checks.ts';
import { applyPolicy, type PolicyOutcome } from '../domain/engine.ts';
import { replayMultimodal } from '../domain/multimodal.ts';
import type { Policy } from '../domain/policies/policy.ts';
import { type NamedProviders, type ReuseScores, routeContent } from '../domain/routing.ts';
import type { CategoryName } from '../domain/taxonomy.ts';
import { type Provider, ProviderError } from '../providers/provider.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';

/** Why a stored decision cannot be decided again from what was stored (no model is called for it). */
export type NotReplayableReason =
  /** the candidate needs a category the stored scores lack, and the content is still stored */
  | 'missing_scores'
  /** the same, and the content was removed under the retention policy (or `doNotStore`) */
  | 'content_redacted'
  /** a multi-modal decision stored without its items' scores (before migration 0006) */
  | 'no_item_scores'
  /** a hash bank decided it before any model ran, and the candidate does not screen that bank */
  | 'bank_match_only'
  /** the candidate routes to a provider whose scores were not stored with the decision */
  | 'provider_scores_missing';

/** What a backtest or a shadow needs of a stored decision: the fields replay reads, without the content. */
export type StoredDecision = Pick<
  DecisionRecord,
  | 'decisionId'
  | 'contentType'
  | 'action'
  | 'categories'
  | 'rawScores'
  | 'evaluated'
  | 'replayData'
  | 'results'
> & { bankMatch?: BankMatch | null; contentRedacted: boolean };

export type StoredOutcome = { outcome: PolicyOutcome } | { notReplayable: NotReplayableReason };

class ScoresNotStored extends Error {}

/**
 * The providers by name, with every model call refused: routing may only reuse stored scores. A provider asked for
 * scores that were not stored makes the decision "not replayable" instead of costing a model call.
 */
export function storedOnly(providers: NamedProviders): NamedProviders {
  return {
    named(name, contentType) {
      const provider = providers.named(name, contentType);
      if (!provider) return undefined;
      return Object.assign(Object.create(provider) as Provider, {
        evaluate: () => Promise.reject(new ScoresNotStored(name)),
      });
    },
  };
}

/**
 * Decides a stored decision under `policy` the way `POST /v1/decisions/{id}/replay` does when the stored scores
 * suffice (the same engine, multi-modal replay, bank rule and routing), but never calls a model: where replay would
 * evaluate the content again, this answers `notReplayable` with the reason.
 */
export async function storedOutcome(
  d: StoredDecision,
  policy: Policy,
  providers: NamedProviders | null,
): Promise<StoredOutcome> {
  if (d.contentType === 'multimodal') {
    const replayed = replayMultimodal(d, policy);
    return replayed ? { outcome: replayed.outcome } : { notReplayable: 'no_item_scores' };
  }
  if (d.bankMatch) {
    // no model ran: the candidate decides it only through its own rule for the same bank
    const rule = policy.banks?.find((b) => b.bank === d.bankMatch!.bank);
    if (!rule || d.bankMatch.distance > rule.maxDistance) return { notReplayable: 'bank_match_only' };
    const none = applyPolicy(policy, { scores: {}, evaluated: [] });
    return { outcome: applyBankMatch(none, { ...d.bankMatch, action: rule.action }) };
  }
  const evaluated = new Set(d.evaluated);
  for (const category of Object.keys(policy.categories) as CategoryName[]) {
    if (!evaluated.has(category) && judgeableFor(d.contentType, category))
      return { notReplayable: d.contentRedacted ? 'content_redacted' : 'missing_scores' };
  }
  const stored = d.replayData?.providers;
  if (d.contentType === 'video' || !providers || (!policy.routing && !stored)) {
    return { outcome: applyPolicy(policy, { scores: d.rawScores, evaluated: d.evaluated }) };
  }
  // routed text or image: the candidate's routing over the scores each provider gave (issue 19)
  const reuse: ReuseScores = stored ?? {
    local: { scores: d.rawScores, evaluated: d.evaluated, modelVersion: '' },
  };
  try {
    const routed = await routeContent(
      storedOnly(providers),
      d.contentType === 'text'
        ? { contentType: 'text', text: '', language: 'en' }
        : { contentType: 'image', image: new Uint8Array(0) },
      policy,
      { reuse },
    );
    return { outcome: applyPolicy(policy, routed.result) };
  } catch (error) {
    // an unknown provider fails like one that is down: either way its scores are not there
    if (error instanceof ScoresNotStored || error instanceof ProviderError)
      return { notReplayable: 'provider_scores_missing' };
    throw error;
  }
}

/** The names of the triggered categories of an outcome (or of a stored decision's categories). */
export function triggeredOf(categories: { category: CategoryName; triggered: boolean }[]): CategoryName[] {
  return categories.filter((c) => c.triggered).map((c) => c.category);
}
