import type { CategoryName, ContentType } from '../../domain/taxonomy.ts';
import {
  type Provider,
  ProviderError,
  type ProviderHealth,
  type ProviderInput,
  type ProviderResult,
} from '../provider.ts';
import type { ExternalProviderConfig } from './config-file.ts';
import type { ProviderHttp } from './http.ts';
import { round6 } from './stats.ts';

/** What a kind's adapter returns: scores of the categories it judged, and how many HTTP calls that took. */
export interface Judgement {
  scores: Partial<Record<CategoryName, number>>;
  calls: number;
  modelVersion?: string;
}

/** An operator-configured provider of scores behind an HTTP API; each kind supplies `judge` (and `judgeImage`). */
export abstract class ExternalProvider implements Provider {
  readonly contentTypes: readonly ContentType[] = ['text'];
  readonly categories: readonly CategoryName[];
  readonly name: string;

  constructor(
    readonly config: ExternalProviderConfig,
    readonly http: ProviderHttp,
    protected readonly apiKey: string | null,
  ) {
    this.name = config.name;
    this.categories = config.categories;
  }

  get modelVersion(): string {
    return `${this.config.kind}:${this.config.model ?? 'default'}`;
  }

  async close(): Promise<void> {
    this.http.close();
  }

  health(): ProviderHealth {
    return {
      name: this.name,
      kind: this.config.kind,
      state: this.http.breaker.state,
      ...this.http.stats.snapshot(),
    };
  }

  protected abstract judge(
    text: string,
    categories: CategoryName[],
    signal?: AbortSignal,
  ): Promise<Judgement>;

  /** Kinds that judge images too list 'image' in `contentTypes` and implement this. */
  protected judgeImage?(
    image: Uint8Array,
    categories: CategoryName[],
    signal?: AbortSignal,
  ): Promise<Judgement>;

  async evaluate(input: ProviderInput, signal?: AbortSignal): Promise<ProviderResult> {
    if (!this.contentTypes.includes(input.contentType) || (input.contentType === 'image' && !this.judgeImage))
      throw new ProviderError(this.name, `${this.name} does not judge ${input.contentType}s`);
    const wanted = input.categories;
    const asked = wanted ? this.categories.filter((c) => wanted.includes(c)) : [...this.categories];
    const categories = asked.length > 0 ? asked : [...this.categories];
    const judgement =
      input.contentType === 'text'
        ? await this.judge(input.text, categories, signal)
        : await this.judgeImage!(input.image, categories, signal);
    const evaluated = categories.filter((c) => judgement.scores[c] !== undefined);
    const chars = input.contentType === 'text' ? input.text.length : 0;
    const cost = round6(
      this.config.costPerCall * judgement.calls + (this.config.costPer1kChars * chars) / 1000,
    );
    return {
      scores: judgement.scores,
      evaluated,
      modelVersion: judgement.modelVersion ?? this.modelVersion,
      cost,
    };
  }
}

/** A malformed answer: the provider said something its documented API does not. */
export function malformed(provider: string, what: string): ProviderError {
  return new ProviderError(provider, `the provider answer is malformed: ${what}`);
}

export function probability(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const bearer = (key: string | null): Record<string, string> =>
  key ? { authorization: `Bearer ${key}` } : {};
