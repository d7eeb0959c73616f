import { performance } from 'node:perf_hooks';
import { applyBankMatch } from '../banks/outcome.ts';
import type { BankMatch } from '../banks/types.ts';
import type { DecisionRecord, ReplayFrame, ReplayItem } from '../storage/repositories/decisions.ts';
import type { CheckService } from './checks.ts';
import { requireField, validateDoNotStore, validateLanguage, validateMetadata } from './content.ts';
import type { DecisionStore } from './decisions.ts';
import { applyPolicy, type CategoryResult, type PolicyOutcome } from './engine.ts';
import { AppError } from './errors.ts';
import type { EvaluatorRegistry, PreparedContent } from './evaluators.ts';
import type { MediaRef } from './media.ts';
import type { Policy } from './policies/policy.ts';
import type { PolicyService } from './policies/service.ts';
import { type Principal, requireScope } from './principal.ts';
import { ACTION_SEVERITY, type Action, type CategoryName, type Language } from './taxonomy.ts';
import { type UsageService, units, withReservation } from './usage.ts';
import { frameResult } from './video-analysis.ts';
import { type FrameResult, SYNC_VIDEO_FRAMES, type VideoEvaluation } from './video-evaluator.ts';

/** Images per multi-modal request, at most (interface §8). */
export const MAX_MULTIMODAL_IMAGES = 10;

export interface MultimodalRequest {
  text?: unknown;
  images?: unknown;
  video?: unknown;
  policyId?: unknown;
  context?: unknown;
  metadata?: unknown;
  doNotStore?: unknown;
}

export interface MultimodalContext {
  language?: Language | 'auto';
  useCase?: string;
  userId?: string;
  userReputation?: number;
  locale?: string;
}

/** One item's verdict inside a multi-modal decision (interface §4.7). */
export interface MultimodalItemResult {
  index: number;
  contentType: 'text' | 'image' | 'video';
  contentRef?: string;
  safe: boolean;
  flagged: boolean;
  action: Action;
  categories: Omit<CategoryResult, 'action'>[];
  provider: string;
  modelVersion: string;
  latency: number;
  cost: number;
  /** For a video: the sampled frames, each judged under the policy (each counts one quota unit). */
  frames?: FrameResult[];
  /** For an image: the policy bank that decided it before any model ran. */
  bankMatch?: BankMatch;
}

interface Item {
  contentType: 'text' | 'image' | 'video';
  prepared: PreparedContent;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
const present = (value: unknown) => value !== undefined && value !== null;

function optionalString(value: unknown, field: string, maxLength: number): string | undefined {
  if (!present(value)) return undefined;
  if (typeof value !== 'string' || value.length > maxLength) {
    throw new AppError('INVALID_PARAMETER', `${field} must be a string of at most ${maxLength} characters`, {
      field,
    });
  }
  return value;
}

function validateContext(value: unknown): MultimodalContext {
  if (!present(value)) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('INVALID_PARAMETER', 'context must be an object', { field: 'context' });
  }
  const raw = value as Record<string, unknown>;
  const context: MultimodalContext = {};
  if (present(raw.language)) context.language = validateLanguage(raw.language, 'context.language');
  const useCase = optionalString(raw.useCase, 'context.useCase', 64);
  if (useCase !== undefined) context.useCase = useCase;
  const userId = optionalString(raw.userId, 'context.userId', 255);
  if (userId !== undefined) context.userId = userId;
  const locale = optionalString(raw.locale, 'context.locale', 35);
  if (locale !== undefined) context.locale = locale;
  if (present(raw.userReputation)) {
    if (typeof raw.userReputation !== 'number' || !Number.isFinite(raw.userReputation)) {
      throw new AppError('INVALID_PARAMETER', 'context.userReputation must be a number', {
        field: 'context.userReputation',
      });
    }
    context.userReputation = raw.userReputation;
  }
  return context;
}

/**
 * Multi-modal checks (interface §4.7): text and up to 10 images judged under one policy, concurrently, into one
 * stored decision whose verdict is the most severe of its items. Every item is validated before any is evaluated.
 */
export class MultimodalService {
  constructor(
    private readonly policies: PolicyService,
    private readonly evaluators: EvaluatorRegistry,
    private readonly store: DecisionStore,
    private readonly checks: CheckService,
    /** Metering and quotas: each text, image and video frame counts one (decisions §9). */
    private readonly usage?: UsageService,
  ) {}

  async check(
    principal: Principal,
    body: MultimodalRequest,
    options: { requestId: string | null },
  ): Promise<DecisionRecord> {
    const started = performance.now();
    requireScope(principal, 'check');
    requireField(body.policyId, 'policyId');
    if (!present(body.text) && !present(body.images) && !present(body.video)) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'At least one of text, images or video is required', {
        field: 'text',
        oneOf: ['text', 'images', 'video'],
      });
    }
    const items: Item[] = [];
    if (present(body.text)) {
      items.push({ contentType: 'text', prepared: this.evaluators.get('text').prepare(body.text, 'text') });
    }
    if (present(body.images)) {
      if (!Array.isArray(body.images)) {
        throw new AppError('INVALID_CONTENT', 'images must be an array of URLs or base64 data URIs', {
          field: 'images',
        });
      }
      if (body.images.length > MAX_MULTIMODAL_IMAGES) {
        throw new AppError('TOO_MANY_ITEMS', `At most ${MAX_MULTIMODAL_IMAGES} images per request`, {
          field: 'images',
          max: MAX_MULTIMODAL_IMAGES,
          count: body.images.length,
        });
      }
      if (body.images.length === 0 && items.length === 0 && !present(body.video)) {
        throw new AppError('MISSING_REQUIRED_FIELD', 'At least one of text, images or video is required', {
          field: 'images',
          oneOf: ['text', 'images', 'video'],
        });
      }
      const evaluator = this.evaluators.get('image', 'images');
      body.images.forEach((image, i) => {
        items.push({ contentType: 'image', prepared: evaluator.prepare(image, `images[${i}]`) });
      });
    }
    if (present(body.video)) {
      // A bounded frame budget, judged synchronously (decisions §3); long videos belong to /v1/video/*.
      items.push({
        contentType: 'video',
        prepared: this.evaluators.get('video', 'video').prepare(body.video, 'video'),
      });
    }
    const context = validateContext(body.context);
    const metadata = validateMetadata(body.metadata);
    const doNotStore = validateDoNotStore(body.doNotStore, 'doNotStore');
    const language = context.language ?? 'en';
    const policy = await this.policies.resolve(principal, body.policyId);
    const requested = units({
      text: items.filter((i) => i.contentType === 'text').length,
      image: items.filter((i) => i.contentType === 'image').length,
      videoFrames: items.some((i) => i.contentType === 'video') ? SYNC_VIDEO_FRAMES : 0,
    });
    const run = async (cover: (records: DecisionRecord[]) => void) => {
      const record = await this.evaluate(principal, items, policy, {
        started,
        language,
        context,
        metadata,
        requestId: options.requestId,
      });
      if (doNotStore) record.doNotStore = true;
      cover([record]);
      await this.store.save([record]);
      return record;
    };
    if (!this.usage) return run(() => {});
    return withReservation(this.usage, principal, requested, (reservation) =>
      run((records) => reservation.cover(records)),
    );
  }

  private async evaluate(
    principal: Principal,
    items: Item[],
    policy: Policy,
    options: {
      started: number;
      language: Language | 'auto';
      context: MultimodalContext;
      metadata: Record<string, unknown> | null;
      requestId: string | null;
    },
  ): Promise<DecisionRecord> {
    const { started, language, context, metadata } = options;
    // Evaluate concurrently; the first failure fails the request and cancels queued image work.
    const abort = new AbortController();
    const banks = this.checks.bankScreen(principal, policy);
    const evaluated = await Promise.all(
      items.map(async (item, index) => {
        const itemStarted = performance.now();
        const evaluation = await this.evaluators.get(item.contentType).evaluate(item.prepared, {
          language,
          languageDeclared: context.language !== undefined,
          policy,
          signal: abort.signal,
          banks,
        });
        return { item, index, evaluation, latency: round(performance.now() - itemStarted) };
      }),
    ).catch((error: unknown) => {
      abort.abort(error);
      throw error;
    });

    const results: MultimodalItemResult[] = [];
    const replayItems: ReplayItem[] = [];
    const combined: Partial<Record<CategoryName, number>> = {};
    const judged = new Set<CategoryName>();
    const media: MediaRef[] = [];
    let cost = 0;
    let textLanguage: string | null = null;
    let bankMatch: BankMatch | null = null;
    for (const { item, index, evaluation, latency } of evaluated) {
      const { result } = evaluation;
      const itemOutcome = applyPolicy(policy, result);
      if (
        evaluation.bankMatch &&
        (!bankMatch || ACTION_SEVERITY[evaluation.bankMatch.action] > ACTION_SEVERITY[bankMatch.action])
      ) {
        bankMatch = evaluation.bankMatch;
      }
      const frames = item.contentType === 'video' ? frameScores(evaluation as VideoEvaluation) : null;
      results.push({
        index,
        contentType: item.contentType,
        ...(item.contentType !== 'text' && { contentRef: item.prepared.stored }),
        ...itemVerdict(
          evaluation.bankMatch ? applyBankMatch(itemOutcome, evaluation.bankMatch) : itemOutcome,
        ),
        provider: evaluation.provider,
        modelVersion: result.modelVersion,
        latency,
        cost: result.cost,
        ...(frames && { frames: framesUnder(policy, frames) }),
        ...(evaluation.bankMatch && { bankMatch: evaluation.bankMatch }),
      });
      replayItems.push({
        scores: result.scores,
        evaluated: result.evaluated,
        ...(result.highlights && { highlights: result.highlights }),
        ...(frames && { frames }),
      });
      for (const category of result.evaluated) {
        judged.add(category);
        combined[category] = Math.max(combined[category] ?? 0, result.scores[category] ?? 0);
      }
      if (evaluation.media) media.push(...evaluation.media);
      if (item.contentType === 'text') textLanguage = result.language ?? null;
      cost += result.cost;
    }
    // Max score per category over the items: a category triggers overall exactly when it triggers for some item,
    // so the overall action is the most severe item action.
    const scored = applyPolicy(policy, { scores: combined, evaluated: judged });
    // A banked image decides the whole request at least as severely as its bank rule says.
    const outcome = bankMatch ? applyBankMatch(scored, bankMatch) : scored;
    const providers = [...new Set(results.map((r) => r.provider))];
    const versions = [...new Set(results.map((r) => r.modelVersion))];
    const text = items.find((i) => i.contentType === 'text')?.prepared.stored;
    const imageRefs = items.filter((i) => i.contentType === 'image').map((i) => i.prepared.stored);
    const video = items.find((i) => i.contentType === 'video')?.prepared.stored;
    return this.checks.record(principal, policy, outcome, {
      content: JSON.stringify({
        ...(text !== undefined && { text }),
        images: imageRefs,
        ...(video !== undefined && { video }),
      }),
      contentType: 'multimodal',
      rawScores: combined,
      evaluated: [...judged],
      provider: providers.join('+'),
      modelVersion: versions.join('+'),
      cost,
      language: textLanguage ?? (language === 'auto' ? null : language),
      metadata,
      requestId: options.requestId,
      replayOf: null,
      request: {
        path: '/v1/check/multimodal',
        body: {
          ...(text !== undefined && { text }),
          ...(imageRefs.length > 0 && { images: imageRefs }),
          ...(video !== undefined && { video }),
          policyId: policy.policyId,
          ...(Object.keys(context).length > 0 && { context }),
          ...(metadata !== null && { metadata }),
        },
      },
      latency: round(performance.now() - started),
      results,
      media,
      ...(bankMatch && { bankMatch }),
      replayData: { items: replayItems },
    });
  }
}

/**
 * A multi-modal decision under another policy (`POST /v1/decisions/{id}/replay`), from the items' stored scores:
 * each item, each video frame and the whole decided again, nothing evaluated. Null for decisions stored without
 * their items' scores (before migration 0006).
 */
export function replayMultimodal(
  original: Pick<DecisionRecord, 'replayData' | 'results' | 'rawScores' | 'evaluated'>,
  policy: Policy,
): { outcome: PolicyOutcome; results: MultimodalItemResult[] } | null {
  const items = original.replayData?.items;
  const stored = (original.results ?? []) as MultimodalItemResult[];
  if (!items || items.length !== stored.length) return null;
  const results = stored.map((item, i): MultimodalItemResult => {
    const raw = items[i]!;
    return {
      ...item,
      ...itemVerdict(applyPolicy(policy, raw)),
      latency: 0,
      cost: 0,
      ...(raw.frames && { frames: framesUnder(policy, raw.frames) }),
    };
  });
  const outcome = applyPolicy(policy, { scores: original.rawScores, evaluated: original.evaluated });
  return { outcome, results };
}

/** An item's verdict under a policy, as its result shows it (categories without their action). */
function itemVerdict(outcome: PolicyOutcome) {
  return {
    safe: outcome.safe,
    flagged: outcome.flagged,
    action: outcome.action,
    categories: outcome.categories.map(({ action: _a, ...c }) => c),
  };
}

/** A video item's frames as their scores (every category the provider judged), as a replay keeps them. */
function frameScores(evaluation: VideoEvaluation): ReplayFrame[] {
  return evaluation.frames.map((frame) => ({
    frameNumber: frame.frameNumber,
    timestamp: frame.timestamp,
    // a frame a bank decided was not judged by a model: no scores
    scores: frame.bankMatch ? {} : Object.fromEntries(frame.categories.map((c) => [c.category, c.score])),
    ...(frame.bankMatch && { bankMatch: frame.bankMatch }),
  }));
}

/** A video item's frames, judged under the request's (or the replay's) policy. */
function framesUnder(policy: Policy, frames: ReplayFrame[]): FrameResult[] {
  return frames.map((f) => {
    const outcome = applyPolicy(policy, {
      scores: f.scores,
      evaluated: Object.keys(f.scores) as CategoryName[],
    });
    // A bank-decided frame keeps its match while the policy screens that bank within the match's distance (a
    // replay under another policy applies that policy's rule for it).
    const rule = f.bankMatch && policy.banks?.find((b) => b.bank === f.bankMatch!.bank);
    if (!f.bankMatch || !rule || f.bankMatch.distance > rule.maxDistance) {
      return frameResult(f.frameNumber, f.timestamp, outcome);
    }
    const bankMatch = { ...f.bankMatch, action: rule.action, maxDistance: rule.maxDistance };
    return { ...frameResult(f.frameNumber, f.timestamp, applyBankMatch(outcome, bankMatch)), bankMatch };
  });
}

/** The multi-modal response of interface §4.7, with the extension fields we add. */
export function multimodalView(d: DecisionRecord) {
  return {
    decisionId: d.decisionId,
    safe: d.safe,
    flagged: d.flagged,
    action: d.action,
    categories: d.categories.map(({ action: _action, ...category }) => category),
    results: (d.results ?? []) as MultimodalItemResult[],
    totalLatency: d.latency,
    totalCost: d.cost,
    provider: d.provider,
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    contentType: 'multimodal' as const,
    timestamp: d.timestamp,
    ...(d.media && d.media.length > 0 && { media: d.media }),
    ...(d.bankMatch && { bankMatch: d.bankMatch }),
  };
}
