import { performance } from 'node:perf_hooks';
import {
  type Provider,
  ProviderError,
  type ProviderInput,
  type ProviderResult,
} from '../providers/provider.ts';
import type { Highlight } from './engine.ts';
import type { Policy } from './policies/policy.ts';
import type { CategoryName, ContentType } from './taxonomy.ts';

/** One provider's part in a decision: why it was (or was not) asked, and what came of it. */
export interface ProviderAttempt {
  provider: string;
  role: 'local' | 'primary' | 'escalation' | 'fallback';
  outcome: 'answered' | 'reused' | 'failed' | 'skipped';
  reason: string;
  latency?: number;
  cost?: number;
  error?: string;
}

/** A provider's raw scores, kept with the decision so that a replay need not ask it again. */
export interface ProviderScores {
  scores: Partial<Record<CategoryName, number>>;
  evaluated: CategoryName[];
  modelVersion: string;
}

/** Stored scores by provider name; `local`'s may carry its highlights. */
export type ReuseScores = Record<
  string,
  ProviderScores & { highlights?: Partial<Record<CategoryName, Highlight[]>> }
>;

export interface RoutedEvaluation {
  /** The provider whose scores decided (an external one when it answered, else `local`). */
  provider: string;
  result: ProviderResult;
  attempts: ProviderAttempt[];
  /** Every provider's own scores, by name (only when more than `local` took part). */
  perProvider: Record<string, ProviderScores> | null;
}

/** The providers by name: `local` (the bundled model for the content type) and the operator's external ones. */
export interface NamedProviders {
  named(name: string, contentType?: ContentType): Provider | undefined;
}

type RoutingPolicy = Pick<Policy, 'categories' | 'routing'>;

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * Runs a policy's routing for one text or image (issue 19). The bundled model always runs (cheap, and the cascade
 * needs its scores); an external provider's scores replace local ones for the categories it judges. A provider that
 * fails hands over to the next of `fallback`; `local` there accepts the bundled model's scores; a provider that
 * cannot judge this content type or any of the policy's categories is skipped; when every candidate was skipped the
 * bundled model answers, and when one failed and nothing answered, the evaluation fails with ProviderError
 * (502 PROVIDER_ERROR). `reuse` holds scores stored with an earlier decision (a replay): those providers are not
 * asked again.
 */
export async function routeContent(
  providers: NamedProviders,
  input: ProviderInput,
  policy: RoutingPolicy | undefined,
  options: { reuse?: ReuseScores; signal?: AbortSignal } = {},
): Promise<RoutedEvaluation> {
  const attempts: ProviderAttempt[] = [];
  const reuse = options.reuse ?? {};
  const routing = policy?.routing ?? null;
  const type = input.contentType;
  const policyCategories = policy ? (Object.keys(policy.categories) as CategoryName[]) : [];
  // the bundled model, whatever its name (tests replace it)
  const localName = providers.named('local', type)?.name ?? 'local';
  const ask = async (
    name: string,
    role: ProviderAttempt['role'],
    reason: string,
    categories?: CategoryName[],
  ) => {
    const provider = providers.named(name, type);
    const stored = reuse[name];
    // stored scores serve only if they cover what is asked of this provider now
    const needed = (categories ?? policyCategories).filter((c) => provider?.categories.includes(c) ?? false);
    if (stored && needed.every((c) => stored.evaluated.includes(c))) {
      attempts.push({ provider: name, role, outcome: 'reused', reason });
      return { ...stored, cost: 0 } as ProviderResult;
    }
    const started = performance.now();
    try {
      if (!provider) throw new ProviderError(name, `provider "${name}" is not configured`);
      const asked: ProviderInput = categories ? { ...input, categories } : input;
      const result = await provider.evaluate(asked, options.signal);
      attempts.push({
        provider: name,
        role,
        outcome: 'answered',
        reason,
        latency: round(performance.now() - started),
        cost: result.cost,
      });
      return result;
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      attempts.push({
        provider: name,
        role,
        outcome: 'failed',
        reason,
        latency: round(performance.now() - started),
        error: error.message,
      });
      return null;
    }
  };

  const local = await ask('local', 'local', `the bundled model judges every ${type}`);
  if (!local) throw new ProviderError(localName, `the bundled ${type} model failed`);
  if (!routing || (routing.provider === 'local' && !routing.escalate))
    return { provider: localName, result: local, attempts, perProvider: null };

  const target = routing.escalate?.provider ?? routing.provider;
  const role = routing.escalate ? 'escalation' : 'primary';
  let reason = 'the policy names this provider';
  if (routing.escalate) {
    const band = routing.escalate.band;
    const judges = new Set(providers.named(target, type)?.categories ?? []);
    const uncertain = policyCategories.filter((c) => {
      const threshold = policy!.categories[c]!.threshold;
      const score = local.scores[c];
      return judges.has(c) && score !== undefined && Math.abs(score - threshold) <= band;
    });
    if (uncertain.length === 0) {
      attempts.push({
        provider: target,
        role,
        outcome: 'skipped',
        reason: `no local score within ${band} of its threshold`,
      });
      return { provider: localName, result: local, attempts, perProvider: null };
    }
    reason = `uncertain: ${uncertain.map((c) => `${c} ${round(local.scores[c]!)}`).join(', ')} within ${band} of the threshold`;
  }

  const perProvider: Record<string, ProviderScores> = { local: scoresOf(local) };
  const candidates = [target, ...routing.fallback];
  let failed = false;
  for (const [index, name] of candidates.entries()) {
    const why =
      index === 0 ? reason : `fallback after ${candidates[index - 1]} ${failed ? 'failed' : 'was skipped'}`;
    const candidateRole = index === 0 ? role : 'fallback';
    if (name === 'local') {
      attempts.push({ provider: 'local', role: candidateRole, outcome: 'reused', reason: why });
      return { provider: localName, result: local, attempts, perProvider };
    }
    const provider = providers.named(name, type);
    if (provider && !provider.contentTypes.includes(type)) {
      attempts.push({
        provider: name,
        role: candidateRole,
        outcome: 'skipped',
        reason: `it does not judge ${type}s`,
      });
      continue;
    }
    const asked = policyCategories.filter((c) => provider?.categories.includes(c) ?? true);
    if (asked.length === 0) {
      attempts.push({
        provider: name,
        role: candidateRole,
        outcome: 'skipped',
        reason: 'it judges none of the policy’s categories',
      });
      continue;
    }
    const result = await ask(name, candidateRole, why, asked);
    if (!result) {
      failed = true;
      continue;
    }
    perProvider[name] = scoresOf(result);
    return { provider: name, result: merge(local, result), attempts, perProvider };
  }
  if (!failed) return { provider: localName, result: local, attempts, perProvider };
  const error = new ProviderError(target, 'no provider of the policy answered');
  Object.assign(error, { attempts });
  throw error;
}

function scoresOf(result: ProviderResult): ProviderScores {
  return { scores: result.scores, evaluated: [...result.evaluated], modelVersion: result.modelVersion };
}

/** Local scores with the external provider's in place for the categories it judged; their local highlights go. */
function merge(local: ProviderResult, external: ProviderResult): ProviderResult {
  const scores = { ...local.scores };
  const highlights = { ...local.highlights };
  for (const c of external.evaluated) {
    scores[c] = external.scores[c] ?? 0;
    delete highlights[c];
  }
  return {
    scores,
    evaluated: [...new Set([...local.evaluated, ...external.evaluated])],
    highlights,
    ...(local.language && { language: local.language }),
    modelVersion: external.modelVersion,
    cost: local.cost + external.cost,
  };
}
