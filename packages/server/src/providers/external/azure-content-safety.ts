import type { CategoryName } from '../../domain/taxonomy.ts';
import { ProviderError } from '../provider.ts';
import { ExternalProvider, isObject, type Judgement, malformed } from './external-provider.ts';

const AZURE_CATEGORY: Partial<Record<CategoryName, string>> = {
  hate: 'Hate',
  self_harm: 'SelfHarm',
  sexual: 'Sexual',
  violence: 'Violence',
};
/** Azure Content Safety's limits for text:analyze and image:analyze. */
const MAX_CHARS = 10_000;
const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
const API_VERSION = '2024-09-01';

/**
 * `kind: azure-content-safety`: text:analyze with four severity levels (0, 2, 4, 6), mapped to severity / 6, so a
 * 0.5 threshold triggers at "medium" (4), the level Azure's own filters block by default.
 */
export class AzureContentSafetyProvider extends ExternalProvider {
  override readonly contentTypes = ['text', 'image'] as const;
  private readonly endpoint = new URL(
    `/contentsafety/text:analyze?api-version=${API_VERSION}`,
    this.config.url,
  ).toString();
  private readonly imageEndpoint = new URL(
    `/contentsafety/image:analyze?api-version=${API_VERSION}`,
    this.config.url,
  ).toString();

  protected async judge(text: string, categories: CategoryName[], signal?: AbortSignal): Promise<Judgement> {
    if (text.length > MAX_CHARS)
      throw new ProviderError(this.name, `Azure Content Safety analyzes at most ${MAX_CHARS} characters`);
    const body = {
      text,
      categories: categories.map((c) => AZURE_CATEGORY[c]),
      outputType: 'FourSeverityLevels',
    };
    return this.analyze(this.endpoint, body, categories, signal);
  }

  /** image:analyze takes the image as base64; JPEG, PNG, GIF, BMP, TIFF or WebP up to 4 MB. */
  protected override async judgeImage(
    image: Uint8Array,
    categories: CategoryName[],
    signal?: AbortSignal,
  ): Promise<Judgement> {
    if (image.byteLength > MAX_IMAGE_BYTES)
      throw new ProviderError(this.name, 'Azure Content Safety analyzes images of at most 4 MB');
    const body = {
      image: { content: Buffer.from(image).toString('base64') },
      categories: categories.map((c) => AZURE_CATEGORY[c]),
      outputType: 'FourSeverityLevels',
    };
    return this.analyze(this.imageEndpoint, body, categories, signal);
  }

  private async analyze(
    url: string,
    body: unknown,
    categories: CategoryName[],
    signal?: AbortSignal,
  ): Promise<Judgement> {
    const answer = await this.http.postJson(
      url,
      body,
      { 'ocp-apim-subscription-key': this.apiKey ?? '' },
      signal,
    );
    if (!isObject(answer) || !Array.isArray(answer.categoriesAnalysis))
      throw malformed(this.name, 'expected `categoriesAnalysis`');
    const scores: Partial<Record<CategoryName, number>> = {};
    for (const category of categories) {
      const entry = answer.categoriesAnalysis.find(
        (a) => isObject(a) && a.category === AZURE_CATEGORY[category],
      );
      if (!isObject(entry)) throw malformed(this.name, `no severity for ${AZURE_CATEGORY[category]}`);
      const severity = entry.severity;
      if (typeof severity !== 'number' || !Number.isInteger(severity) || severity < 0 || severity > 7)
        throw malformed(this.name, `severity of ${AZURE_CATEGORY[category]} is not 0–7`);
      scores[category] = Math.min(1, severity / 6);
    }
    return { scores, calls: 1 };
  }
}
