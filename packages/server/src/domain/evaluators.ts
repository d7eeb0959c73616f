import type { BankScreen } from '../banks/matcher.ts';
import type { BankMatch } from '../banks/types.ts';
import type { OcrResult } from '../ocr/engine.ts';
import type { ProviderResult } from '../providers/provider.ts';
import { validateText } from './content.ts';
import { AppError } from './errors.ts';
import type { MediaRef } from './media.ts';
import type { Policy } from './policies/policy.ts';
import {
  type NamedProviders,
  type ProviderAttempt,
  type ProviderScores,
  type ReuseScores,
  routeContent,
} from './routing.ts';
import type { ContentType, Language } from './taxonomy.ts';

/** Content validated and ready to evaluate; `stored` is what the decision record keeps (text, or a reference). */
export interface PreparedContent {
  contentType: ContentType;
  stored: string;
  payload: unknown;
}

export interface Evaluation {
  provider: string;
  result: ProviderResult;
  /** The media evaluated (images by reference and fingerprint), stored with the decision. */
  media?: MediaRef[];
  /** Set when a hash bank decided the content before any model ran (no scores then). */
  bankMatch?: BankMatch;
  /** Text read in an image (and judged by the text model). */
  ocr?: OcrResult;
  /** Text routed beyond `local`: which providers were asked and why, and each one's own scores. */
  routing?: { attempts: ProviderAttempt[]; perProvider: Record<string, ProviderScores> };
}

export interface EvaluateOptions {
  language: Language | 'auto';
  /** false when `language` is the default rather than the caller's (see ProviderInput) */
  languageDeclared?: boolean;
  signal?: AbortSignal;
  /** The policy's hash banks: images are screened against them before any model runs. */
  banks?: BankScreen | null;
  /** The policy whose routing chooses the providers (text); absent: the bundled model. */
  policy?: Pick<Policy, 'categories' | 'routing'>;
  /** Scores stored with an earlier decision, by provider (replays): those providers are not asked again. */
  reuse?: ReuseScores;
}

/**
 * Turns one kind of content into provider scores. `prepare` only validates (cheap, synchronous), so batches
 * can validate every item before evaluating any; `evaluate` does the work (fetching, decoding, inference).
 */
export interface ContentEvaluator {
  readonly contentType: ContentType;
  prepare(content: unknown, field: string): PreparedContent;
  evaluate(prepared: PreparedContent, options: EvaluateOptions): Promise<Evaluation>;
  /** Re-creates prepared content from a stored decision, or null when the content was stored by reference only. */
  fromStored?(stored: string): PreparedContent | null;
}

/**
 * fromStored for media given by URL or inline: a stored URL can be fetched again (prepared as a new request's
 * `content` would be); inline bytes were never stored, and a URL that no longer validates cannot be replayed.
 */
export function preparedFromStoredUrl(evaluator: ContentEvaluator, stored: string): PreparedContent | null {
  if (!/^https?:\/\//i.test(stored)) return null;
  try {
    return evaluator.prepare(stored, 'content');
  } catch {
    return null;
  }
}

export class TextEvaluator implements ContentEvaluator {
  readonly contentType = 'text' as const;

  constructor(private readonly providers: NamedProviders) {}

  prepare(content: unknown, field: string): PreparedContent {
    const text = validateText(content, field);
    return { contentType: 'text', stored: text, payload: text };
  }

  async evaluate(prepared: PreparedContent, options: EvaluateOptions): Promise<Evaluation> {
    const routed = await routeContent(
      this.providers,
      {
        contentType: 'text',
        text: prepared.payload as string,
        language: options.language,
        ...(options.languageDeclared === false && { languageDeclared: false }),
      },
      options.policy,
      { ...(options.reuse && { reuse: options.reuse }), ...(options.signal && { signal: options.signal }) },
    );
    return {
      provider: routed.provider,
      result: routed.result,
      ...(routed.perProvider && { routing: { attempts: routed.attempts, perProvider: routed.perProvider } }),
    };
  }

  fromStored(stored: string): PreparedContent {
    return { contentType: 'text', stored, payload: stored };
  }
}

export class EvaluatorRegistry {
  private readonly evaluators = new Map<ContentType, ContentEvaluator>();

  register(evaluator: ContentEvaluator): void {
    this.evaluators.set(evaluator.contentType, evaluator);
  }

  get(contentType: ContentType, field = 'contentType'): ContentEvaluator {
    const evaluator = this.evaluators.get(contentType);
    if (!evaluator) {
      throw new AppError(
        'INVALID_CONTENT_TYPE',
        `${contentType} content cannot be evaluated by this server`,
        {
          field,
          supported: [...this.evaluators.keys()],
        },
      );
    }
    return evaluator;
  }

  has(contentType: ContentType): boolean {
    return this.evaluators.has(contentType);
  }
}
