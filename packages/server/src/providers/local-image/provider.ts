import type { CategoryName } from '../../domain/taxonomy.ts';
import { type Provider, ProviderError, type ProviderInput, type ProviderResult } from '../provider.ts';
import type { ImageModelPool } from './pool.ts';

/**
 * The `local` image provider: the bundled nsfwjs model in a worker pool. It judges `sexual` (Porn + Hentai) and
 * `suggestive` (Sexy), plus the categories of the operator's ONNX classifiers (VERDICT_IMAGE_CLASSIFIERS), which
 * run in the same workers; every other policy category on an image is reported `evaluated: false`. A category
 * judged by both the bundled model and a classifier takes the larger score.
 */
export class LocalImageProvider implements Provider {
  readonly name = 'local';
  readonly contentTypes = ['image'] as const;
  readonly categories: readonly CategoryName[];
  readonly modelVersion: string;

  constructor(readonly pool: ImageModelPool) {
    this.modelVersion = pool.modelVersion;
    const extra = pool.classifiers.flatMap((c) => Object.keys(c.categories) as CategoryName[]);
    this.categories = [...new Set<CategoryName>(['sexual', 'suggestive', ...extra])];
  }

  async evaluate(input: ProviderInput, signal?: AbortSignal): Promise<ProviderResult> {
    if (input.contentType !== 'image')
      throw new ProviderError(this.name, 'the local image provider judges images only');
    const scores = await this.pool.classify(input.image, signal);
    const judged: Partial<Record<CategoryName, number>> = {
      sexual: scores.sexual,
      suggestive: scores.suggestive,
    };
    for (const [category, score] of Object.entries(scores.classifiers?.scores ?? {}) as [
      CategoryName,
      number,
    ][])
      judged[category] = Math.max(judged[category] ?? 0, score);
    return {
      scores: judged,
      evaluated: Object.keys(judged) as CategoryName[],
      modelVersion: this.modelVersion,
      cost: 0,
    };
  }

  isReady(): boolean {
    return this.pool.isReady();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
