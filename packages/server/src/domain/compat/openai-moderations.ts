import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { EvaluatorRegistry } from '../evaluators.ts';
import { type Principal, requireScope } from '../principal.ts';
import type { CategoryName } from '../taxonomy.ts';
import { type UsageService, units } from '../usage.ts';

/** OpenAI's moderation categories, in the order its API lists them. */
export const OPENAI_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

/**
 * The Verdict category behind each OpenAI category the bundled models can judge. The others (threatening,
 * illicit, intent, instructions, minors, graphic) have no honest counterpart: they are always false with score 0
 * and an empty `category_applied_input_types`.
 */
const SOURCE: Partial<Record<(typeof OPENAI_CATEGORIES)[number], CategoryName>> = {
  harassment: 'harassment',
  hate: 'hate',
  'self-harm': 'self_harm',
  sexual: 'sexual',
  violence: 'violence',
};

const MAX_INPUTS = 32;
const MAX_IMAGES = 10;
/** Scores are calibrated so that 0.5 means "more likely than not" (decisions §1). */
const FLAG_AT = 0.5;

type Part = { type: 'text'; text: string } | { type: 'image'; content: string };

/** POST /v1/moderations in OpenAI's shape, answered by the bundled models (issue 19). */
export class OpenAIModerationService {
  constructor(
    private readonly evaluators: EvaluatorRegistry,
    private readonly usage: UsageService,
    private readonly textModelVersion: () => string,
  ) {}

  async moderate(principal: Principal, body: unknown) {
    requireScope(principal, 'check');
    const groups = this.parse(body);
    // validate everything before evaluating anything
    const prepared = groups.map((parts) =>
      parts.map((part, i) =>
        part.type === 'text'
          ? this.evaluators.get('text').prepare(part.text, `input[${i}].text`)
          : this.evaluators.get('image').prepare(part.content, `input[${i}].image_url.url`),
      ),
    );
    const count = (type: string) => prepared.flat().filter((p) => p.contentType === type).length;
    const results = await this.usage.meter(
      principal,
      units({ text: count('text'), image: count('image') }),
      () =>
        Promise.all(
          prepared.map(async (parts) => {
            const evaluations = await Promise.all(
              parts.map(async (p) => ({
                type: p.contentType as 'text' | 'image',
                // the service's default language, as /v1/check: a text in another language is also scored in it
                result: (
                  await this.evaluators
                    .get(p.contentType)
                    .evaluate(p, { language: 'en', languageDeclared: false })
                ).result,
              })),
            );
            return result(evaluations);
          }),
        ),
    );
    return {
      id: `modr-${randomBytes(12).toString('hex')}`,
      model: `verdict-local-${this.textModelVersion()}`,
      results,
    };
  }

  /** `input`: a string, an array of strings (one result each), or an array of text and image_url parts (one result). */
  private parse(body: unknown): Part[][] {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new AppError('INVALID_PARAMETER', 'The body must be a JSON object with `input`', {
        field: 'input',
      });
    const input = (body as { input?: unknown }).input;
    if (input === undefined || input === null)
      throw new AppError('MISSING_REQUIRED_FIELD', 'input is required', { field: 'input' });
    const model = (body as { model?: unknown }).model;
    if (model !== undefined && model !== null && typeof model !== 'string')
      throw new AppError('INVALID_PARAMETER', 'model must be a string', { field: 'model' });
    if (typeof input === 'string') return [[{ type: 'text', text: input }]];
    if (!Array.isArray(input) || input.length === 0)
      throw new AppError('INVALID_PARAMETER', 'input must be a string or a non-empty array', {
        field: 'input',
      });
    if (input.every((x) => typeof x === 'string')) {
      if (input.length > MAX_INPUTS)
        throw new AppError('TOO_MANY_ITEMS', `At most ${MAX_INPUTS} inputs per request`, {
          field: 'input',
          max: MAX_INPUTS,
        });
      return input.map((text) => [{ type: 'text', text }]);
    }
    const parts = input.map((part, i): Part => {
      const p = part as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
      if (typeof part === 'object' && part !== null && p.type === 'text' && typeof p.text === 'string')
        return { type: 'text', text: p.text };
      if (
        typeof part === 'object' &&
        part !== null &&
        p.type === 'image_url' &&
        typeof p.image_url?.url === 'string'
      )
        return { type: 'image', content: p.image_url.url };
      throw new AppError(
        'INVALID_PARAMETER',
        `input[${i}] must be a string, { type: "text", text } or { type: "image_url", image_url: { url } }`,
        { field: `input[${i}]` },
      );
    });
    if (parts.filter((p) => p.type === 'image').length > MAX_IMAGES)
      throw new AppError('TOO_MANY_ITEMS', `At most ${MAX_IMAGES} images per request`, {
        field: 'input',
        max: MAX_IMAGES,
      });
    if (parts.filter((p) => p.type === 'text').length > MAX_INPUTS)
      throw new AppError('TOO_MANY_ITEMS', `At most ${MAX_INPUTS} texts per request`, {
        field: 'input',
        max: MAX_INPUTS,
      });
    return [parts];
  }
}

/** One result over the parts of one input: each category's highest score over the parts that judged it. */
function result(
  evaluations: {
    type: 'text' | 'image';
    result: { scores: Partial<Record<CategoryName, number>>; evaluated: CategoryName[] };
  }[],
) {
  const categories: Record<string, boolean> = {};
  const scores: Record<string, number> = {};
  const applied: Record<string, ('text' | 'image')[]> = {};
  for (const name of OPENAI_CATEGORIES) {
    const source = SOURCE[name];
    let score = 0;
    const types = new Set<'text' | 'image'>();
    for (const e of evaluations) {
      if (!source || !e.result.evaluated.includes(source)) continue;
      types.add(e.type);
      score = Math.max(score, e.result.scores[source] ?? 0);
    }
    scores[name] = score;
    categories[name] = score >= FLAG_AT;
    applied[name] = [...types];
  }
  return {
    flagged: Object.values(categories).some(Boolean),
    categories,
    category_scores: scores,
    category_applied_input_types: applied,
  };
}
