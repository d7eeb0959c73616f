import type { CheckService } from '../checks.ts';
import type { Highlight } from '../engine.ts';
import { AppError } from '../errors.ts';
import type { EvaluatorRegistry } from '../evaluators.ts';
import { type Principal, requireScope } from '../principal.ts';
import { type CategoryName, LANGUAGES, type Language } from '../taxonomy.ts';
import { type UsageService, units } from '../usage.ts';

/**
 * Perspective attributes Verdict's categories can answer honestly. SEVERE_TOXICITY, FLIRTATION and the experimental
 * attributes have no counterpart, and asking for them is an error that says so.
 */
export const PERSPECTIVE_ATTRIBUTES: Record<string, CategoryName> = {
  TOXICITY: 'toxicity',
  INSULT: 'harassment',
  PROFANITY: 'profanity',
  THREAT: 'violence',
  IDENTITY_ATTACK: 'hate',
  SEXUALLY_EXPLICIT: 'sexual',
};

const KNOWN_UNSUPPORTED = ['SEVERE_TOXICITY', 'FLIRTATION'];

interface Requested {
  attribute: string;
  category: CategoryName;
  threshold: number | null;
}

export interface AnalyzeRequest {
  text: string;
  attributes: Requested[];
  language: Language | 'auto';
  spanAnnotations: boolean;
  doNotStore: boolean;
  clientToken: string | null;
}

const badRequest = (message: string, details: Record<string, unknown>) =>
  new AppError('INVALID_PARAMETER', message, details);

/** Validates a Perspective `comments:analyze` body. Throws 422 AppErrors (the route renders Google's shape). */
export function parseAnalyzeRequest(body: unknown): AnalyzeRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('The body must be a JSON object', { field: 'body' });
  const b = body as Record<string, unknown>;
  const comment = b.comment as Record<string, unknown> | undefined;
  if (typeof comment !== 'object' || comment === null || Array.isArray(comment))
    throw new AppError('MISSING_REQUIRED_FIELD', 'comment is required', { field: 'comment' });
  if (comment.type !== undefined && comment.type !== 'PLAIN_TEXT')
    throw badRequest('Only comment.type PLAIN_TEXT is supported', { field: 'comment.type' });
  if (typeof comment.text !== 'string' || comment.text.trim() === '')
    throw new AppError('INVALID_CONTENT', 'Comment must be non-empty.', { field: 'comment.text' });
  const requested = b.requestedAttributes;
  if (
    typeof requested !== 'object' ||
    requested === null ||
    Array.isArray(requested) ||
    Object.keys(requested).length === 0
  )
    throw badRequest('requestedAttributes must name at least one attribute', {
      field: 'requestedAttributes',
    });
  const attributes: Requested[] = [];
  for (const [attribute, options] of Object.entries(requested)) {
    const category = PERSPECTIVE_ATTRIBUTES[attribute];
    if (!category) {
      throw badRequest(
        KNOWN_UNSUPPORTED.includes(attribute)
          ? `Verdict cannot judge ${attribute}: its models have no such category. Supported: ${Object.keys(PERSPECTIVE_ATTRIBUTES).join(', ')}`
          : `Unknown or unsupported attribute ${attribute}. Supported: ${Object.keys(PERSPECTIVE_ATTRIBUTES).join(', ')}`,
        { field: `requestedAttributes.${attribute}`, supported: Object.keys(PERSPECTIVE_ATTRIBUTES) },
      );
    }
    const o = (options ?? {}) as Record<string, unknown>;
    if (typeof o !== 'object' || Array.isArray(o))
      throw badRequest(`requestedAttributes.${attribute} must be an object`, {
        field: `requestedAttributes.${attribute}`,
      });
    if (o.scoreType !== undefined && o.scoreType !== 'PROBABILITY')
      throw badRequest('Only scoreType PROBABILITY is supported', {
        field: `requestedAttributes.${attribute}.scoreType`,
      });
    const threshold = o.scoreThreshold;
    if (threshold !== undefined && (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)))
      throw badRequest('scoreThreshold must be a number from 0 to 1', {
        field: `requestedAttributes.${attribute}.scoreThreshold`,
      });
    attributes.push({ attribute, category, threshold: (threshold as number | undefined) ?? null });
  }
  let language: Language | 'auto' = 'auto';
  if (b.languages !== undefined && b.languages !== null) {
    if (!Array.isArray(b.languages) || b.languages.some((l) => typeof l !== 'string'))
      throw badRequest('languages must be an array of language codes', { field: 'languages' });
    const codes = (b.languages as string[]).map((l) => l.split(/[-_]/)[0]!.toLowerCase());
    const unsupported = codes.filter((c) => !(LANGUAGES as readonly string[]).includes(c));
    if (unsupported.length > 0) {
      throw new AppError(
        'UNSUPPORTED_LANGUAGE',
        `Attribute ${attributes[0]!.attribute} does not support request languages: ${unsupported.join(', ')}`,
        { field: 'languages', allowed: [...LANGUAGES] },
      );
    }
    if (codes.length > 0) language = codes[0] as Language;
  }
  for (const flag of ['spanAnnotations', 'doNotStore'] as const)
    if (b[flag] !== undefined && typeof b[flag] !== 'boolean')
      throw badRequest(`${flag} must be true or false`, { field: flag });
  return {
    text: comment.text,
    attributes,
    language,
    spanAnnotations: b.spanAnnotations === true,
    doNotStore: b.doNotStore === true,
    clientToken: typeof b.clientToken === 'string' ? b.clientToken.slice(0, 256) : null,
  };
}

/** POST /v1alpha1/comments:analyze (issue 19): Perspective's request and answer, scored by Verdict. */
export class PerspectiveService {
  constructor(
    private readonly checks: CheckService,
    private readonly evaluators: EvaluatorRegistry,
    private readonly usage: UsageService,
  ) {}

  /**
   * Scores a comment. Unless `doNotStore` is true, it is checked as a stored decision under `policyId` (default
   * `default`), so the policy's routing and the audit trail apply; with `doNotStore` nothing is kept.
   */
  async analyze(principal: Principal, body: unknown, options: { policyId?: string }) {
    requireScope(principal, 'check');
    const request = parseAnalyzeRequest(body);
    let scores: Partial<Record<CategoryName, number>>;
    let highlights: Partial<Record<CategoryName, Highlight[]>> = {};
    let detected: string | null;
    let decisionId: string | null = null;
    let text = request.text;
    if (request.doNotStore) {
      const evaluator = this.evaluators.get('text');
      const prepared = evaluator.prepare(request.text, 'comment.text');
      text = prepared.stored;
      const { result } = await this.usage.meter(principal, units({ text: 1 }), () =>
        evaluator.evaluate(prepared, { language: request.language }),
      );
      scores = result.scores;
      highlights = result.highlights ?? {};
      detected = result.language ?? null;
    } else {
      const { record } = await this.checks.check(
        principal,
        { content: request.text, policyId: options.policyId ?? 'default', language: request.language },
        { requestId: null },
      );
      text = record.content;
      scores = record.rawScores;
      highlights = { ...record.replayData?.highlights };
      for (const c of record.categories) if (c.highlights) highlights[c.category] = c.highlights;
      detected = record.language;
      decisionId = record.decisionId;
    }
    type Score = { value: number; type: 'PROBABILITY' };
    const attributeScores: Record<
      string,
      { spanScores: { begin: number; end: number; score: Score }[]; summaryScore: Score }
    > = {};
    for (const { attribute, category, threshold } of request.attributes) {
      const value = round(scores[category] ?? 0);
      if (threshold !== null && value < threshold) continue;
      const spans = request.spanAnnotations ? (highlights[category] ?? []) : [];
      attributeScores[attribute] = {
        spanScores: (spans.length > 0 ? spans : [{ start: 0, end: text.length }]).map((s) => ({
          begin: s.start,
          end: s.end,
          score: { value, type: 'PROBABILITY' as const },
        })),
        summaryScore: { value, type: 'PROBABILITY' as const },
      };
    }
    const language = request.language === 'auto' ? (detected ?? 'en') : request.language;
    return {
      response: {
        attributeScores,
        languages: [language],
        detectedLanguages: detected ? [detected] : [],
        ...(request.clientToken !== null && { clientToken: request.clientToken }),
      },
      decisionId,
    };
  }
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
