import { type Provider, ProviderError, type ProviderInput, type ProviderResult } from '../provider.ts';
import { MODEL_VERSION } from './model.ts';
import type { ImageModelPool } from './pool.ts';

/**
 * The `local` image provider: the bundled nsfwjs model in a worker pool. It judges `sexual` (Porn + Hentai) and
 * `suggestive` (Sexy) only; every other policy category on an image is reported `evaluated: false`.
 */
export class LocalImageProvider implements Provider {
  readonly name = 'local';
  readonly contentTypes = ['image'] as const;
  readonly categories = ['sexual', 'suggestive'] as const;
  readonly modelVersion = MODEL_VERSION;

  constructor(readonly pool: ImageModelPool) {}

  async evaluate(input: ProviderInput, signal?: AbortSignal): Promise<ProviderResult> {
    if (input.contentType !== 'image')
      throw new ProviderError(this.name, 'the local image provider judges images only');
    const scores = await this.pool.classify(input.image, signal);
    return {
      scores: { sexual: scores.sexual, suggestive: scores.suggestive },
      evaluated: ['sexual', 'suggestive'],
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
