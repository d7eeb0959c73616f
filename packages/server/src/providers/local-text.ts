import { loadTextModel, type TextModel } from '@verdict/text-model';
import { TEXT_CATEGORY_NAMES } from '../domain/taxonomy.ts';
import { type Provider, ProviderError, type ProviderInput, type ProviderResult } from './provider.ts';

/**
 * The `local` text provider: the bundled text model, run in-process. A classification of the largest allowed
 * text (32 KB) takes a few milliseconds, so it runs on the event loop rather than paying a thread hop.
 */
export class LocalTextProvider implements Provider {
  readonly name = 'local';
  readonly contentTypes = ['text'] as const;
  readonly categories = TEXT_CATEGORY_NAMES;
  private readonly model: TextModel;

  constructor(model: TextModel = loadTextModel()) {
    this.model = model;
  }

  /** Milliseconds the model's JIT warm-up took (null: not warmed up). */
  warmUpMs: number | null = null;

  /** Runs the model's warm-up (see TextModel.warmUp); before serving, so no request waits behind it. */
  warmUp(): void {
    if (this.model.warmUp) this.warmUpMs = this.model.warmUp();
  }

  get modelVersion(): string {
    return this.model.version;
  }

  async evaluate(input: ProviderInput): Promise<ProviderResult> {
    if (input.contentType !== 'text')
      throw new ProviderError(this.name, 'the local text provider judges text only');
    const result = this.model.classify(input.text, {
      language: input.language,
      declared: input.languageDeclared !== false,
    });
    return {
      scores: result.scores,
      evaluated: [...TEXT_CATEGORY_NAMES],
      highlights: result.highlights,
      language: result.language,
      modelVersion: this.model.version,
      cost: 0,
    };
  }
}
