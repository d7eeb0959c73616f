import { createHash, webcrypto } from 'node:crypto';
import sharp from 'sharp';
import { AppError, type ErrorCode } from '../domain/errors.ts';
import type { MediaRef } from '../domain/media.ts';
import { fetchMedia, type MediaFetchOptions, type MediaKind } from './fetch-media.ts';

/** Decoded bytes of one image, at most (interface §8, decisions §3). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/**
 * Width × height, at most. Checked from the header before anything is decompressed, so a small file that claims
 * 50000×50000 pixels (a decompression bomb) is refused without allocating its pixels. 100 MP admits every camera.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;
export const MAX_IMAGE_URL_LENGTH = 8192;

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif';
export const IMAGE_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp', 'gif'];

/** An image as submitted: a URL still to fetch, or inline bytes (base64 or data URI) already decoded. */
export type ImageInput = { kind: 'url'; url: string } | { kind: 'inline'; bytes: Buffer; sha256: string };

export type { MediaRef };

export type ImageFetchOptions = MediaFetchOptions;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** WebCrypto hashes on the thread pool: 20 MB take ~25 ms that the event loop should not spend. */
const sha256Async = async (bytes: Uint8Array) =>
  Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');

/** The format named by the file's magic number; the declared type (header, data URI) is never trusted. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  const b = bytes;
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (
    b.length >= 8 &&
    b[0] === 0x89 &&
    b[1] === 0x50 &&
    b[2] === 0x4e &&
    b[3] === 0x47 &&
    b[4] === 0x0d &&
    b[5] === 0x0a &&
    b[6] === 0x1a &&
    b[7] === 0x0a
  ) {
    return 'png';
  }
  const ascii = (from: number, to: number) => Buffer.from(b.subarray(from, to)).toString('latin1');
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}

const BASE64_ALPHABET = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Decodes when `text` is exactly base64 (either alphabet, optional padding); null otherwise. */
function decodeExact(text: string): Buffer | null {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (padding > 0 ? text.length % 4 !== 0 : text.length % 4 === 1) return null;
  // Node's decoder skips characters outside the alphabet (and stops at inner padding); any such character makes
  // the output shorter than the length implied by the input, so an exact length proves every character valid.
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === Math.floor(((text.length - padding) * 3) / 4) ? bytes : null;
}

/**
 * Strict base64 (standard or URL-safe alphabet, optional padding, line breaks tolerated) → bytes. One pass of
 * Node's decoder validates and decodes; only input with whitespace or errors takes the slower regex path.
 */
function decodeBase64(text: string, field: string): Buffer {
  const tooLarge = (bytes: number) =>
    new AppError('CONTENT_TOO_LARGE', `${field} is larger than 20 MB once decoded`, {
      field,
      maxBytes: MAX_IMAGE_BYTES,
      bytes,
    });
  // Size first, before decoding: a string far over the limit is refused without more work (10 % slack for
  // line breaks, which do not decode to bytes).
  const estimate = Math.floor((text.length * 3) / 4);
  if (estimate > MAX_IMAGE_BYTES * 1.1) throw tooLarge(estimate);
  let bytes = decodeExact(text);
  if (bytes === null) {
    const compact = text.replace(/\s+/g, '');
    bytes = BASE64_ALPHABET.test(compact) ? decodeExact(compact) : null;
    if (bytes === null) throw new AppError('INVALID_BASE64', `${field} is not valid base64`, { field });
  }
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge(bytes.length);
  return bytes;
}

function notAnImage(field: string, code: ErrorCode = 'INVALID_CONTENT', reason?: string): AppError {
  const message =
    code === 'INVALID_IMAGE_URL'
      ? `${field} does not point to a supported image (JPEG, PNG, WebP or GIF)`
      : `${field} is not a supported image (JPEG, PNG, WebP or GIF)`;
  return new AppError(code, message, { field, ...(reason && { reason }) });
}

/**
 * Validates an image as submitted (decisions §3): raw base64, a `data:image/...;base64,` URI, or an https URL
 * (http too when the operator allows it). Synchronous and without network access, so a request with several
 * images can validate all of them before evaluating any. Inline bytes are decoded and sniffed here.
 */
export function parseImageInput(value: unknown, field: string, options: { allowHttp: boolean }): ImageInput {
  if (typeof value !== 'string') {
    throw new AppError('INVALID_CONTENT', `${field} must be a string: base64, a data URI or a URL`, {
      field,
    });
  }
  const text = value.trim();
  if (text === '') throw new AppError('INVALID_CONTENT', `${field} is empty`, { field });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    if (text.length > MAX_IMAGE_URL_LENGTH) {
      throw new AppError('INVALID_IMAGE_URL', `${field} is longer than ${MAX_IMAGE_URL_LENGTH} characters`, {
        field,
        reason: 'invalid_url',
      });
    }
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new AppError('INVALID_IMAGE_URL', `${field} is not a valid URL`, {
        field,
        reason: 'invalid_url',
      });
    }
    if (url.protocol !== 'https:' && !(options.allowHttp && url.protocol === 'http:')) {
      const allowed = options.allowHttp ? 'an http or https URL' : 'an https URL';
      throw new AppError('INVALID_IMAGE_URL', `${field} must be ${allowed}`, { field, reason: 'protocol' });
    }
    return { kind: 'url', url: text };
  }
  let payload = text;
  if (/^data:/i.test(text)) {
    // The header is short; never scan megabytes of payload looking for it.
    const match = /^data:([^;,]*)((?:;[^;,]*)*),/i.exec(text.slice(0, 256));
    if (!match) throw new AppError('INVALID_CONTENT', `${field} is not a valid data URI`, { field });
    if (!/^image\//i.test(match[1]!) || !/;base64$/i.test(match[2]!)) {
      throw new AppError('INVALID_CONTENT', `${field} must be a data:image/...;base64, URI`, { field });
    }
    payload = text.slice(match[0].length);
  }
  const bytes = decodeBase64(payload, field);
  if (bytes.length === 0) throw new AppError('INVALID_CONTENT', `${field} is an empty file`, { field });
  if (sniffImageFormat(bytes) === null) throw notAnImage(field);
  return { kind: 'inline', bytes, sha256: sha256(bytes) };
}

/** The reference a decision stores for an image: its URL, or `sha256:<hex>` of inline bytes. */
export function imageRef(input: ImageInput): string {
  return input.kind === 'url' ? input.url : `sha256:${input.sha256}`;
}

const IMAGE: MediaKind = {
  noun: 'image',
  maxBytes: MAX_IMAGE_BYTES,
  sizeLabel: '20 MB',
  totalTimeoutMs: 15_000,
  accept: 'image/jpeg, image/png, image/webp, image/gif;q=0.9, */*;q=0.1',
  invalidCode: 'INVALID_IMAGE_URL',
};

/** Fetches an image URL through the SSRF-safe fetcher: INVALID_IMAGE_URL for anything not public or failing. */
export function fetchImage(url: string, field: string, options: ImageFetchOptions): Promise<Buffer> {
  return fetchMedia(url, field, IMAGE, options);
}

/**
 * Checks decoded bytes and fingerprints them: the sniffed format must be one we accept and agree with what the
 * decoder sees; the header's dimensions must be within the pixel limit; the whole image must decode (truncated
 * files fail here). `code` is the error for "not an image" (INVALID_CONTENT, or INVALID_IMAGE_URL for fetched bytes).
 */
export async function describeImage(
  bytes: Buffer,
  ref: string,
  field: string,
  code: ErrorCode = 'INVALID_CONTENT',
  /** The bytes' SHA-256 when already known (inline images are hashed when parsed). */
  knownSha256?: string,
): Promise<MediaRef> {
  if (bytes.length === 0) throw notAnImage(field, code, 'empty');
  const sniffed = sniffImageFormat(bytes);
  if (sniffed === null) throw notAnImage(field, code, 'format');
  const options = { limitInputPixels: MAX_IMAGE_PIXELS, pages: 1, failOn: 'error' } as const;
  let metadata: sharp.Metadata;
  try {
    // Header only: the pixel limit is checked below, with the dimensions in the error.
    metadata = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw notAnImage(field, code, 'header');
  }
  if (metadata.format !== sniffed) {
    throw notAnImage(field, code, 'format');
  }
  const storedWidth = metadata.width ?? 0;
  const storedHeight = metadata.pageHeight ?? metadata.height ?? 0;
  // EXIF orientations 5–8 are quarter turns: report the upright dimensions.
  const turned = (metadata.orientation ?? 1) >= 5;
  const [width, height] = turned ? [storedHeight, storedWidth] : [storedWidth, storedHeight];
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new AppError(code, `${field} has more than ${MAX_IMAGE_PIXELS} pixels`, {
      field,
      reason: 'too_many_pixels',
      width,
      height,
      maxPixels: MAX_IMAGE_PIXELS,
    });
  }
  let phash: string;
  try {
    phash = await differenceHash(bytes);
  } catch {
    throw notAnImage(field, code, 'decode');
  }
  return {
    ref,
    sha256: knownSha256 ?? (await sha256Async(bytes)),
    bytes: bytes.length,
    format: sniffed,
    width,
    height,
    phash,
  };
}

/**
 * dHash: the image, upright (EXIF), in greyscale at 9×8; each bit says whether a pixel is brighter than its right
 * neighbour. Robust to scaling and re-encoding; compare two with the Hamming distance (≤ 10 of 64: same picture).
 */
export async function differenceHash(bytes: Uint8Array): Promise<string> {
  const pixels = await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, pages: 1, failOn: 'error' })
    .rotate()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(9, 8, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  let hash = 0n;
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const bit = pixels[row * 9 + col]! > pixels[row * 9 + col + 1]! ? 1n : 0n;
      hash = (hash << 1n) | bit;
    }
  }
  return hash.toString(16).padStart(16, '0');
}

/** Hamming distance between two 64-bit hashes in hex. */
export function hashDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (x > 0n) {
    count += Number(x & 1n);
    x >>= 1n;
  }
  return count;
}
