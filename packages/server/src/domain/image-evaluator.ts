import type { BankMatch } from '../banks/types.ts';
import {
  describeImage,
  fetchImage,
  type ImageFetchOptions,
  type ImageInput,
  imageRef,
  type MediaRef,
  parseImageInput,
} from '../media/image.ts';
import { type ImageTextReader, judgeImageText, mergeWithText } from '../ocr/judge.ts';
import { ImageDecodeError } from '../providers/local-image/pool.ts';
import type { Provider } from '../providers/provider.ts';
import { AppError } from './errors.ts';
import {
  type ContentEvaluator,
  type EvaluateOptions,
  type Evaluation,
  type PreparedContent,
  preparedFromStoredUrl,
} from './evaluators.ts';
import { type NamedProviders, routeContent } from './routing.ts';

/** An evaluation that a bank match decided: no model ran, so nothing is judged (every category evaluated: false). */
export function bankDecided(bankMatch: BankMatch, media: MediaRef): Evaluation {
  return {
    provider: 'banks',
    result: { scores: {}, evaluated: [], modelVersion: 'pdq', cost: 0 },
    media: [media],
    bankMatch,
  };
}

interface ImagePayload {
  input: ImageInput;
  field: string;
}

/**
 * Images (decisions §3): base64, data URI or https URL. `prepare` validates the form and decodes inline bytes
 * (no network); `evaluate` fetches URLs through the SSRF-safe fetcher, checks and fingerprints the image, and asks
 * the image provider for scores. Decisions keep the URL or `sha256:<hex>` and the fingerprints, never the bytes.
 */
export class ImageEvaluator implements ContentEvaluator {
  readonly contentType = 'image' as const;

  constructor(
    private readonly provider: Provider,
    private readonly fetchOptions: ImageFetchOptions,
    /** Reads text in images and judges it with the text model; null leaves text categories unjudged. */
    private readonly textReader: ImageTextReader | null = null,
    /** The operator's providers, for policies that route images (e.g. to Azure Content Safety). */
    private readonly providers?: NamedProviders,
  ) {}

  prepare(content: unknown, field: string): PreparedContent {
    const input = parseImageInput(content, field, { allowHttp: this.fetchOptions.allowHttp });
    return {
      contentType: 'image',
      stored: imageRef(input),
      payload: { input, field } satisfies ImagePayload,
    };
  }

  async evaluate(prepared: PreparedContent, options: Partial<EvaluateOptions> = {}): Promise<Evaluation> {
    const { input, field } = prepared.payload as ImagePayload;
    const fetched = input.kind === 'url';
    const bytes = fetched ? await fetchImage(input.url, field, this.fetchOptions) : input.bytes;
    // Bytes behind a URL that are not an image make the URL the problem (decisions §3).
    const notImage = fetched ? 'INVALID_IMAGE_URL' : 'INVALID_CONTENT';
    const media = await describeImage(
      bytes,
      imageRef(input),
      field,
      notImage,
      input.kind === 'inline' ? input.sha256 : undefined,
    );
    // A known image is decided by its bank before any model runs (issue 20).
    const bankMatch = options.banks ? await options.banks.screen(bytes, media.ref) : null;
    if (bankMatch) return bankDecided(bankMatch, media);
    try {
      // the image model (or the policy's routed providers) and OCR (its own worker thread) run side by side
      const [image, text] = await Promise.all([
        this.judgeImage(bytes, options),
        this.textReader
          ? judgeImageText(this.textReader, bytes, options.language ?? 'auto', options.signal)
          : null,
      ]);
      if (!text) return { ...image, media: [media] };
      return {
        ...image,
        result: mergeWithText(image.result, text.result),
        media: [media],
        ocr: text.ocr,
      };
    } catch (error) {
      if (error instanceof ImageDecodeError) {
        throw new AppError(notImage, `${field} could not be decoded as an image`, {
          field,
          reason: 'decode',
        });
      }
      throw error;
    }
  }

  /** The image's own scores: the bundled image model, or the providers the policy routes images to. */
  private async judgeImage(
    bytes: Uint8Array,
    options: Partial<EvaluateOptions>,
  ): Promise<Omit<Evaluation, 'media' | 'ocr'>> {
    if (!this.providers || !options.policy?.routing) {
      const result = await this.provider.evaluate({ contentType: 'image', image: bytes }, options.signal);
      return { provider: this.provider.name, result };
    }
    const routed = await routeContent(
      this.providers,
      { contentType: 'image', image: bytes },
      options.policy,
      options.signal ? { signal: options.signal } : {},
    );
    return {
      provider: routed.provider,
      result: routed.result,
      ...(routed.perProvider && {
        routing: { attempts: routed.attempts, perProvider: routed.perProvider },
      }),
    };
  }

  /** URLs can be fetched again for a replay; inline bytes were never stored. */
  fromStored(stored: string): PreparedContent | null {
    return preparedFromStoredUrl(this, stored);
  }
}
