import { type CategoryName, TEXT_CATEGORY_NAMES } from '../../src/domain/taxonomy.ts';
import type { Provider, ProviderInput, ProviderResult } from '../../src/providers/provider.ts';

/**
 * Test-only provider with fixed, documented scores: a word like `hate:0.9` in the text sets that category's score.
 * Lets tests pin the policy engine, replay and idempotency to exact numbers; never reachable from production config.
 */
export class KeywordProvider implements Provider {
  readonly name = 'test-keywords';
  readonly contentTypes = ['text'] as const;
  readonly categories: CategoryName[] = [...TEXT_CATEGORY_NAMES];
  readonly modelVersion = 'keywords-1';
  calls = 0;
  failWith: Error | null = null;

  async evaluate(input: ProviderInput): Promise<ProviderResult> {
    this.calls++;
    if (this.failWith) throw this.failWith;
    if (input.contentType !== 'text') throw new Error('text only');
    const scores: Partial<Record<CategoryName, number>> = {};
    for (const c of this.categories) scores[c] = 0.01;
    for (const match of input.text.matchAll(/\b([a-z_]{3,12}):([01](?:\.\d+)?)/g)) {
      if ((this.categories as string[]).includes(match[1]!))
        scores[match[1] as CategoryName] = Number(match[2]);
    }
    return {
      scores,
      evaluated: [...this.categories],
      language: input.language === 'auto' ? 'en' : input.language,
      modelVersion: this.modelVersion,
      cost: 0,
    };
  }
}
