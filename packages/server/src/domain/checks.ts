import { performance } from 'node:perf_hooks';
import type { BankMatcher } from '../banks/matcher.ts';
import { applyBankMatch } from '../banks/outcome.ts';
import type { ListMatcher } from '../lists/matcher.ts';
import { applyLists, withListMatches } from '../lists/outcome.ts';
import type { ListMatch } from '../lists/types.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import { highlightsOf, replayFields, replayHighlights, round, withRouting } from './check-records.ts';
import {
  requireField,
  validateContentType,
  validateDoNotStore,
  validateLanguage,
  validateMetadata,
} from './content.ts';
import { type ContentWarning, textWarnings } from './content-warnings.ts';
import type { DecisionService, DecisionStore } from './decisions.ts';
import { applyPolicy, type PolicyOutcome } from './engine.ts';
import { AppError } from './errors.ts';
import type { Evaluation, EvaluatorRegistry, PreparedContent } from './evaluators.ts';
import { newId } from './ids.ts';
import { replayMultimodal } from './multimodal.ts';
import type { Policy } from './policies/policy.ts';
import type { PolicyService } from './policies/service.ts';
import { type Principal, requireScope } from './principal.ts';
import type { ReuseScores } from './routing.ts';
import { type CategoryName, type ContentType, type Language, POLICY_CATEGORY_NAMES } from './taxonomy.ts';
import { type UsageService, unitsOfReplay, unitsOfType, withReservation } from './usage.ts';
import { SYNC_VIDEO_FRAMES } from './video-evaluator.ts';

export interface PreparedCheck {
  contentType: ContentType;
  content: PreparedContent;
  language: Language | 'auto';
  metadata: Record<string, unknown> | null;
  policy: Policy;
  explicitLanguage: boolean;
  /** Content that is plainly not what its type says (a base64 image scored as text); reported, not refused. */
  warnings: ContentWarning[];
  /** Store the decision without its content (and highlight text). */
  doNotStore: boolean;
}

export interface CheckRequest {
  content?: unknown;
  policyId?: unknown;
  contentType?: unknown;
  language?: unknown;
  metadata?: unknown;
  doNotStore?: unknown;
}

/** Single checks, dry runs and replays: validate → resolve policy → evaluate → apply policy → store. */
export class CheckService {
  constructor(
    private readonly policies: PolicyService,
    private readonly evaluators: EvaluatorRegistry,
    private readonly store: DecisionStore,
    private readonly decisions: DecisionService,
    private readonly usage: UsageService,
    private readonly banks: BankMatcher | null = null,
    private readonly lists: ListMatcher | null = null,
  ) {}

  /** The entries of the policy's match lists found in a text (issue 18); none when the policy names no lists. */
  listMatches(principal: Principal, policy: Policy, text: string): Promise<ListMatch[]> {
    if (!this.lists || !policy.lists) return Promise.resolve([]);
    return this.lists.match(principal.accountId, policy.lists, text);
  }

  /** The policy's bank screen for this caller (null when the policy names no banks). */
  bankScreen(principal: Principal, policy: Policy) {
    return this.banks?.screenFor(principal.accountId, policy.banks) ?? null;
  }

  /**
   * Validates one check request and resolves its policy, without evaluating anything: batches validate every item
   * first, then evaluate. Throws the spec's 4xx codes; `field` prefixes name the item in error details.
   */
  async prepare(
    principal: Principal,
    body: CheckRequest,
    options: { fieldPrefix?: string } = {},
  ): Promise<PreparedCheck> {
    requireScope(principal, 'check');
    const f = (name: string) => `${options.fieldPrefix ?? ''}${name}`;
    requireField(body.content, f('content'));
    requireField(body.policyId, f('policyId'));
    const contentType = validateContentType(body.contentType, f('contentType'));
    const evaluator = this.evaluators.get(contentType, f('contentType'));
    const content = evaluator.prepare(body.content, f('content'));
    const language = validateLanguage(body.language, f('language'));
    const metadata = validateMetadata(body.metadata, f('metadata'));
    const doNotStore = validateDoNotStore(body.doNotStore, f('doNotStore'));
    const policy = await this.policies.resolve(principal, body.policyId);
    return {
      contentType,
      content,
      language,
      metadata,
      policy,
      explicitLanguage: body.language !== undefined,
      doNotStore,
      warnings: contentType === 'text' ? textWarnings(content.stored, f('content')) : [],
    };
  }

  /** Evaluates a prepared check and builds its decision record; does not store it. */
  async evaluate(
    principal: Principal,
    prepared: PreparedCheck,
    options: { requestId: string | null; path?: string; started?: number },
  ): Promise<DecisionRecord> {
    const started = options.started ?? performance.now();
    const { contentType, content, language, metadata, policy } = prepared;
    // A bank match is decided inside evaluate() before any model or routed provider runs (issue 20).
    const evaluation = await this.evaluators.get(contentType).evaluate(content, {
      language,
      languageDeclared: prepared.explicitLanguage,
      policy,
      banks: this.bankScreen(principal, policy),
    });
    const listMatches =
      contentType === 'text' ? await this.listMatches(principal, policy, content.stored) : [];
    const scored = applyLists(policy, evaluation.result, listMatches);
    const outcome = evaluation.bankMatch ? applyBankMatch(scored, evaluation.bankMatch) : scored;
    const request = {
      path: options.path ?? '/v1/check',
      body: {
        content: content.stored,
        policyId: policy.policyId,
        contentType,
        ...(prepared.explicitLanguage && { language }),
        ...(metadata !== null && { metadata }),
        ...(prepared.doNotStore && { doNotStore: true }),
      },
    };
    const record = this.record(principal, policy, outcome, {
      content: content.stored,
      contentType,
      rawScores: evaluation.result.scores,
      evaluated: evaluation.result.evaluated,
      provider: evaluation.provider,
      modelVersion: evaluation.result.modelVersion,
      cost: evaluation.result.cost,
      language: evaluation.result.language ?? (language === 'auto' ? null : language),
      metadata,
      requestId: options.requestId,
      replayOf: null,
      request,
      latency: round(performance.now() - started),
      ...(evaluation.media && { media: evaluation.media }),
      ...(evaluation.bankMatch && { bankMatch: evaluation.bankMatch }),
      ...(evaluation.ocr && { ocr: evaluation.ocr }),
      replayData: withListMatches(
        withRouting(replayHighlights(evaluation.result.highlights, outcome), evaluation.routing),
        listMatches,
      ),
    });
    if (prepared.doNotStore) record.doNotStore = true;
    return record;
  }

  /** A single check: prepare → evaluate → store (interface §4.1); with the content's warnings, if any. */
  async check(
    principal: Principal,
    body: CheckRequest,
    options: { requestId: string | null; path?: string },
  ): Promise<{ record: DecisionRecord; warnings: ContentWarning[] }> {
    const started = performance.now();
    const prepared = await this.prepare(principal, body);
    // A video is judged on a fixed frame budget; each frame counts one unit (decisions §9).
    const count = prepared.contentType === 'video' ? SYNC_VIDEO_FRAMES : 1;
    return withReservation(
      this.usage,
      principal,
      unitsOfType(prepared.contentType, count),
      async (reservation) => {
        const record = await this.evaluate(principal, prepared, { ...options, started });
        reservation.cover([record]);
        await this.store.save([record]);
        return { record, warnings: prepared.warnings };
      },
    );
  }

  /** Applies a policy to mock scores; no provider is called and nothing is stored (interface §4.2). */
  async dryRun(principal: Principal, body: { policyId?: unknown; mockScores?: unknown }) {
    requireScope(principal, 'check');
    requireField(body.policyId, 'policyId');
    const scores: Partial<Record<CategoryName, number>> = {};
    if (body.mockScores !== undefined && body.mockScores !== null) {
      if (typeof body.mockScores !== 'object' || Array.isArray(body.mockScores)) {
        throw new AppError('INVALID_PARAMETER', 'mockScores must be an object of category → score', {
          field: 'mockScores',
        });
      }
      for (const [category, score] of Object.entries(body.mockScores)) {
        if (!(POLICY_CATEGORY_NAMES as readonly string[]).includes(category)) {
          throw new AppError('INVALID_PARAMETER', `Unknown category "${category}" in mockScores`, {
            field: `mockScores.${category}`,
            allowed: POLICY_CATEGORY_NAMES,
          });
        }
        if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
          throw new AppError('INVALID_PARAMETER', `mockScores.${category} must be a number from 0 to 1`, {
            field: `mockScores.${category}`,
          });
        }
        scores[category as CategoryName] = score;
      }
    }
    const policy = await this.policies.resolve(principal, body.policyId);
    const outcome = applyPolicy(policy, { scores, evaluated: Object.keys(scores) as CategoryName[] });
    return {
      dryRun: true as const,
      policyId: policy.policyId,
      policyVersion: policy.version,
      safe: outcome.safe,
      flagged: outcome.flagged,
      action: outcome.action,
      categories: outcome.categories.map(({ action: _a, ...c }) => c),
    };
  }

  /**
   * Re-decides a stored decision under another policy (decisions §4). The original raw scores are reused when they
   * cover every category of the new policy that the content type can be judged on; otherwise the stored content
   * is evaluated again.
   */
  async replay(
    principal: Principal,
    decisionId: string,
    body: { policyId?: unknown },
    options: { requestId: string | null },
  ): Promise<DecisionRecord> {
    const started = performance.now();
    requireScope(principal, 'check');
    requireField(body.policyId, 'policyId');
    const original = await this.decisions.find(principal.accountId, decisionId);
    const policy = await this.policies.resolve(principal, body.policyId);
    const multimodal = original.contentType === 'multimodal' ? replayMultimodal(original, policy) : null;
    if (original.contentType === 'multimodal' && !multimodal) {
      throw new AppError(
        'INVALID_CONTENT',
        'This multi-modal decision was stored without its items’ scores and cannot be replayed',
        { decisionId },
      );
    }
    const units = unitsOfReplay(original.contentType);
    return withReservation(this.usage, principal, units, async (reservation) => {
      const record = multimodal
        ? this.record(principal, policy, multimodal.outcome, {
            ...replayFields(original, policy, options.requestId, started),
            rawScores: original.rawScores,
            evaluated: original.evaluated,
            provider: original.provider,
            modelVersion: original.modelVersion,
            cost: 0,
            language: original.language,
            results: multimodal.results,
            replayData: original.replayData ?? null,
          })
        : await this.replayWith(original, policy, principal, options.requestId, started);
      reservation.cover([record]);
      await this.store.save([record]);
      return record;
    });
  }

  private async replayWith(
    original: DecisionRecord,
    policy: Policy,
    principal: Principal,
    requestId: string | null,
    started: number,
  ): Promise<DecisionRecord> {
    const decisionId = original.decisionId;
    const evaluated = new Set(original.evaluated);
    const covered = Object.keys(policy.categories).every(
      (c) => evaluated.has(c as CategoryName) || !this.judgeable(original, c as CategoryName),
    );
    if (original.contentType === 'text')
      return this.replayText(original, policy, principal, requestId, started);
    let source = {
      rawScores: original.rawScores,
      evaluated: original.evaluated,
      highlights: { ...original.replayData?.highlights, ...highlightsOf(original.categories) },
      provider: original.provider,
      modelVersion: original.modelVersion,
      cost: 0,
      language: original.language,
    };
    let routing: Evaluation['routing'];
    if (!covered) {
      // Multi-modal decisions were refused before getting here.
      const evaluator = this.evaluators.get(original.contentType as ContentType);
      if (original.content === '') {
        // stored content is never empty: this decision's content was redacted under VERDICT_CONTENT_RETENTION
        throw new AppError(
          'INVALID_CONTENT',
          'The content of this decision was removed under the retention policy and cannot be re-evaluated',
          { decisionId, reason: 'content_redacted' },
        );
      }
      const prepared = evaluator.fromStored?.(original.content) ?? null;
      if (!prepared) {
        throw new AppError(
          'INVALID_CONTENT',
          'The original content was stored by reference and cannot be re-evaluated',
          {
            decisionId,
          },
        );
      }
      const language =
        (original.language as Parameters<typeof evaluator.evaluate>[1]['language'] | null) ?? 'auto';
      const evaluation = await evaluator.evaluate(prepared, {
        language,
        policy,
        banks: this.bankScreen(principal, policy),
      });
      if (evaluation.bankMatch) {
        const outcome = applyBankMatch(applyPolicy(policy, evaluation.result), evaluation.bankMatch);
        return this.record(principal, policy, outcome, {
          ...replayFields(original, policy, requestId, started),
          rawScores: {},
          evaluated: [],
          provider: evaluation.provider,
          modelVersion: evaluation.result.modelVersion,
          cost: 0,
          language: original.language,
          bankMatch: evaluation.bankMatch,
          replayData: null,
        });
      }
      source = {
        rawScores: evaluation.result.scores,
        evaluated: evaluation.result.evaluated,
        highlights: evaluation.result.highlights ?? {},
        provider: evaluation.provider,
        modelVersion: evaluation.result.modelVersion,
        cost: evaluation.result.cost,
        language: evaluation.result.language ?? original.language,
      };
      routing = evaluation.routing;
    }
    const outcome = applyPolicy(policy, {
      scores: source.rawScores,
      evaluated: source.evaluated,
      highlights: source.highlights,
    });
    return this.record(principal, policy, outcome, {
      ...replayFields(original, policy, requestId, started),
      rawScores: source.rawScores,
      evaluated: source.evaluated,
      provider: source.provider,
      modelVersion: source.modelVersion,
      cost: source.cost,
      language: source.language,
      replayData: withRouting(replayHighlights(source.highlights, outcome), routing),
    });
  }

  /**
   * A text replays through the new policy's routing with every provider's stored scores reused (issue 19): only a
   * provider the original decision did not ask is called (e.g. the new policy escalates and the old one did not).
   */
  private async replayText(
    original: DecisionRecord,
    policy: Policy,
    principal: Principal,
    requestId: string | null,
    started: number,
  ): Promise<DecisionRecord> {
    const highlights = { ...original.replayData?.highlights, ...highlightsOf(original.categories) };
    const stored = original.replayData?.providers;
    const reuse: ReuseScores = stored
      ? Object.fromEntries(
          Object.entries(stored).map(([name, s]) => [name, name === 'local' ? { ...s, highlights } : s]),
        )
      : {
          // decided by the bundled model alone: its scores are the decision's raw scores
          local: {
            scores: original.rawScores,
            evaluated: original.evaluated,
            modelVersion: original.modelVersion ?? '',
            highlights,
          },
        };
    const language = (original.language as Language | null) ?? 'auto';
    const evaluation = await this.evaluators
      .get('text')
      .evaluate(
        { contentType: 'text', stored: original.content, payload: original.content },
        { language, policy, reuse },
      );
    const listMatches = await this.listMatches(principal, policy, original.content);
    const outcome = applyLists(policy, evaluation.result, listMatches);
    return this.record(principal, policy, outcome, {
      ...replayFields(original, policy, requestId, started),
      rawScores: evaluation.result.scores,
      evaluated: evaluation.result.evaluated,
      provider: evaluation.provider,
      modelVersion: evaluation.result.modelVersion,
      cost: evaluation.result.cost,
      language: evaluation.result.language ?? original.language,
      replayData: withListMatches(
        withRouting(replayHighlights(evaluation.result.highlights, outcome), evaluation.routing),
        listMatches,
      ),
    });
  }

  /** Whether the original's provider could have judged `category` at all (so a missing score means "not stored"). */
  private judgeable(original: DecisionRecord, category: CategoryName): boolean {
    return judgeableFor(original.contentType, category);
  }

  record(
    principal: Principal,
    policy: Policy,
    outcome: PolicyOutcome,
    rest: Omit<
      DecisionRecord,
      | 'decisionId'
      | 'accountId'
      | 'safe'
      | 'flagged'
      | 'action'
      | 'categories'
      | 'policyId'
      | 'policyVersion'
      | 'timestamp'
      | 'results'
    > & { results?: unknown[] | null },
  ): DecisionRecord {
    return {
      decisionId: newId('dec'),
      accountId: principal.accountId,
      keyId: principal.keyId,
      ...outcome,
      policyId: policy.policyId,
      policyVersion: policy.version,
      timestamp: new Date().toISOString(),
      results: rest.results ?? null,
      ...rest,
    } as DecisionRecord;
  }
}

/** Whether the bundled models judge `category` for this content type (a missing stored score then means "not stored"). */
export function judgeableFor(contentType: DecisionRecord['contentType'], category: CategoryName): boolean {
  if (contentType === 'text') return category !== 'suggestive';
  return category === 'sexual' || category === 'suggestive';
}
