import { AppError } from '../domain/errors.ts';
import { type Resolver, safeFetch, UnsafeUrlError } from './safe-fetch.ts';

/** How media URLs may be fetched: operator switches, plus a resolver and address rule for tests. */
export interface MediaFetchOptions {
  allowPrivate: boolean;
  allowHttp: boolean;
  ca?: string | Buffer | Array<string | Buffer>;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** DNS resolver for the fetch (tests). */
  lookup?: Resolver;
  /** Which addresses count as public (tests); see SafeFetchOptions. */
  isAllowedAddress?: (address: string) => boolean;
}

/** What differs between kinds of media: limits, the Accept header and the error for an unusable URL. */
export interface MediaKind {
  noun: 'image' | 'video';
  maxBytes: number;
  sizeLabel: string;
  totalTimeoutMs: number;
  accept: string;
  invalidCode: 'INVALID_IMAGE_URL' | 'INVALID_VIDEO_URL';
}

/**
 * Fetches a media URL through the SSRF-safe fetcher (https only unless allowed, public addresses only, at most 3
 * redirects, size and time limits). Over the size limit → CONTENT_TOO_LARGE; anything else that fails → the
 * kind's invalid-URL code with `details.reason`.
 */
export async function fetchMedia(
  url: string,
  field: string,
  kind: MediaKind,
  options: MediaFetchOptions,
): Promise<Buffer> {
  try {
    const response = await safeFetch(url, {
      allowPrivate: options.allowPrivate,
      allowHttp: options.allowHttp,
      maxBytes: kind.maxBytes,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      totalTimeoutMs: options.totalTimeoutMs ?? kind.totalTimeoutMs,
      maxRedirects: 3,
      throwOnHttpError: true,
      headers: { accept: kind.accept },
      ...(options.ca !== undefined && { ca: options.ca }),
      ...(options.lookup && { lookup: options.lookup }),
      ...(options.isAllowedAddress && { isAllowedAddress: options.isAllowedAddress }),
    });
    return response.body;
  } catch (error) {
    if (!(error instanceof UnsafeUrlError)) throw error;
    if (error.reason === 'too_large') {
      throw new AppError(
        'CONTENT_TOO_LARGE',
        `The ${kind.noun} at ${field} is larger than ${kind.sizeLabel}`,
        {
          field,
          maxBytes: kind.maxBytes,
        },
      );
    }
    throw new AppError(kind.invalidCode, `${field} is not accessible: ${error.message}`, {
      field,
      reason: error.reason,
    });
  }
}
