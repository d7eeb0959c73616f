import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../domain/errors.ts';
import { fetchMedia, type MediaFetchOptions, type MediaKind } from '../fetch-media.ts';

/** Uploads and downloaded videos, at most (interface §8). */
export const MAX_VIDEO_BYTES = 100 * 1024 * 1024;
export const MAX_VIDEO_URL_LENGTH = 8192;

export type VideoFetchOptions = MediaFetchOptions;

const VIDEO: MediaKind = {
  noun: 'video',
  maxBytes: MAX_VIDEO_BYTES,
  sizeLabel: '100 MB',
  totalTimeoutMs: 120_000,
  accept: 'video/*, application/octet-stream;q=0.5, */*;q=0.1',
  invalidCode: 'INVALID_VIDEO_URL',
};

/** Validates a video URL's form (no network): https, or http when the operator allows it. */
export function parseVideoUrl(value: unknown, field: string, options: { allowHttp: boolean }): string {
  if (value === undefined || value === null) {
    throw new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { field });
  }
  const invalid = (message: string, reason: string) =>
    new AppError('INVALID_VIDEO_URL', message, { field, reason });
  if (typeof value !== 'string' || value.trim() === '')
    throw invalid(`${field} must be a URL`, 'invalid_url');
  const text = value.trim();
  if (text.length > MAX_VIDEO_URL_LENGTH) {
    throw invalid(`${field} is longer than ${MAX_VIDEO_URL_LENGTH} characters`, 'invalid_url');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${field} is not a valid URL`, 'invalid_url');
  }
  if (url.protocol !== 'https:' && !(options.allowHttp && url.protocol === 'http:')) {
    throw invalid(
      `${field} must be ${options.allowHttp ? 'an http or https URL' : 'an https URL'}`,
      'protocol',
    );
  }
  return text;
}

/**
 * Downloads a video URL through the SSRF-safe fetcher into `file`. Anything not public, failing, redirecting more
 * than 3 times or over 100 MB is refused with INVALID_VIDEO_URL / CONTENT_TOO_LARGE. Returns the SHA-256 and size.
 */
export async function downloadVideo(
  url: string,
  file: string,
  field: string,
  options: VideoFetchOptions,
): Promise<{ sha256: string; bytes: number }> {
  const body = await fetchMedia(url, field, VIDEO, options);
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await fs.promises.writeFile(file, body, { mode: 0o600 });
  return { sha256: createHash('sha256').update(body).digest('hex'), bytes: body.length };
}

export class VideoTooLargeError extends Error {
  constructor() {
    super(`The video is larger than ${MAX_VIDEO_BYTES} bytes`);
    this.name = 'VideoTooLargeError';
  }
}

/**
 * Streams an upload to `file` (never held in memory), hashing it on the way; over `maxBytes` the partial file is
 * removed and VideoTooLargeError thrown.
 */
export async function writeUpload(
  stream: NodeJS.ReadableStream,
  file: string,
  maxBytes = MAX_VIDEO_BYTES,
): Promise<{ sha256: string; bytes: number }> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const hash = createHash('sha256');
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        callback(new VideoTooLargeError());
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(stream, meter, fs.createWriteStream(file, { mode: 0o600 }));
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    const code = (error as { code?: string }).code;
    if (error instanceof VideoTooLargeError || code === 'FST_REQ_FILE_TOO_LARGE')
      throw new VideoTooLargeError();
    throw error;
  }
  return { sha256: hash.digest('hex'), bytes };
}
