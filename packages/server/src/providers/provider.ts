import type { Highlight } from '../domain/engine.ts';
import type { CategoryName, ContentType, Language } from '../domain/taxonomy.ts';
import type { ProviderHealth } from './external/stats.ts';

export type { ProviderHealth };

/** What a provider is asked to judge. Media arrives decoded by the media layer, never as a URL to fetch. */
export type ProviderInput =
  | {
      contentType: 'text';
      text: string;
      language: Language | 'auto';
      /**
       * false when `language` is only the default (`en`, the request had none): the bundled model then scores a
       * text in the language its words show. Absent means declared.
       */
      languageDeclared?: boolean;
      /** The categories the policy asks for; providers that prompt per category (chat guards) judge only these. */
      categories?: readonly CategoryName[];
    }
  | { contentType: 'image'; image: Uint8Array; categories?: readonly CategoryName[] };

export interface ProviderResult {
  scores: Partial<Record<CategoryName, number>>;
  /** Categories actually judged; the rest are reported `evaluated: false`. */
  evaluated: CategoryName[];
  highlights?: Partial<Record<CategoryName, Highlight[]>>;
  /** The language used, for text. */
  language?: Language;
  modelVersion: string;
  /** USD; 0 for bundled models. */
  cost: number;
}

/** A source of category scores for one or more content types. */
export interface Provider {
  readonly name: string;
  readonly contentTypes: readonly ContentType[];
  /** The categories this provider can judge. */
  readonly categories: readonly CategoryName[];
  readonly modelVersion: string;
  evaluate(input: ProviderInput, signal?: AbortSignal): Promise<ProviderResult>;
  close?(): Promise<void>;
  /** External providers: circuit state, latency, error rate and spend (GET /v1/providers, /readyz). */
  health?(): ProviderHealth;
}

/** Thrown by providers when they fail; rendered as 502 PROVIDER_ERROR. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}
