import { MAX_VIDEO_BYTES } from '../media/video/source.ts';

/**
 * Where evidence frames and (scaled out) uploaded videos live: files under the data directory, PostgreSQL, or an
 * S3-compatible bucket (see `createBlobStore`). Keys are `/`-separated names of `[A-Za-z0-9_.-]`.
 */
export interface BlobStore {
  readonly kind: 'file' | 'postgres' | 's3';
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when there is no such blob. Small blobs only (evidence frames): read into memory. */
  get(key: string): Promise<Buffer | null>;
  /** Streams a file into the store (never held in memory whole); returns its size. Replaces an existing blob. */
  putFile(key: string, file: string): Promise<number>;
  /** Streams a blob into `file` (written atomically); false when there is no such blob. */
  getToFile(key: string, file: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Keys under `prefix` written before `before`, at most `limit` of them. */
  list(prefix: string, before: Date, limit?: number): Promise<string[]>;
  /** Deletes blobs under `prefix` written before `before`; returns how many. */
  deleteOlderThan(prefix: string, before: Date): Promise<number>;
}

/** The largest blob a store accepts or hands out: an uploaded video (interface §8). */
export const MAX_BLOB_BYTES = MAX_VIDEO_BYTES;

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The blob is larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

/** Refuses keys outside the allowed form (and `.`/`..` segments): keys become file paths and URLs. */
export function checkKey(key: string): void {
  if (key.length > 512 || !KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error('Invalid blob key');
  }
}

/** A temporary name next to `file`, renamed over it once complete. */
export function tempName(file: string): string {
  return `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
}
