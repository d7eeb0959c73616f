import { performance } from 'node:perf_hooks';
import type { DecisionRecord, ReplayData } from '../storage/repositories/decisions.ts';
import type { CategoryResult, Highlight, PolicyOutcome } from './engine.ts';
import type { Evaluation } from './evaluators.ts';
import type { Policy } from './policies/policy.ts';
import type { CategoryName } from './taxonomy.ts';

export const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** What every replay of `original` records the same way: its content and metadata, the link, the request. */
export function replayFields(
  original: DecisionRecord,
  policy: Policy,
  requestId: string | null,
  started: number,
) {
  const request = original.request as { path?: string; body?: object };
  return {
    content: original.content,
    contentType: original.contentType,
    metadata: original.metadata,
    requestId,
    replayOf: original.decisionId,
    ...(original.media && { media: original.media }),
    request: {
      path: request.path ?? '/v1/check',
      body: { ...(request.body ?? {}), policyId: policy.policyId },
    },
    latency: round(performance.now() - started),
  };
}

/** The highlights of categories the outcome does not list: kept with the decision for replays under other policies. */
export function replayHighlights(
  all: Partial<Record<CategoryName, Highlight[]>> | undefined,
  outcome: PolicyOutcome,
): ReplayData | null {
  if (!all) return null;
  const listed = new Set<string>(outcome.categories.map((c) => c.category));
  const out: Partial<Record<CategoryName, Highlight[]>> = {};
  for (const [category, highlights] of Object.entries(all) as [CategoryName, Highlight[] | undefined][])
    if (!listed.has(category) && highlights && highlights.length > 0) out[category] = highlights;
  return Object.keys(out).length > 0 ? { highlights: out } : null;
}

/** Adds which providers were asked, and their own scores, to what a decision keeps for replays. */
export function withRouting(data: ReplayData | null, routing: Evaluation['routing']): ReplayData | null {
  if (!routing) return data;
  return { ...data, providers: routing.perProvider, routing: routing.attempts };
}

export function highlightsOf(categories: CategoryResult[]): Partial<Record<CategoryName, Highlight[]>> {
  const out: Partial<Record<CategoryName, Highlight[]>> = {};
  for (const c of categories) if (c.highlights) out[c.category] = c.highlights;
  return out;
}
