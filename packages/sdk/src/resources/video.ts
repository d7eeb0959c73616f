import type { APIClient, RequestOptions } from '../core.ts';
import { VerdictError } from '../errors.ts';
import type {
  VideoAccepted,
  VideoCheckParams,
  VideoResult,
  VideoResultResponse,
  VideoStatus,
  VideoUploadFields,
} from '../types.ts';

export interface VideoUploadParams extends Omit<VideoUploadFields, 'video'> {
  /** The video bytes, at most 100 MB: a `Blob`/`File`, or raw bytes. */
  video: Blob | Uint8Array | ArrayBuffer;
  /** File name sent with the upload; default `video.mp4` (or the `File`'s name). */
  filename?: string;
  requestId?: string;
}

export interface WaitOptions extends RequestOptions {
  /** Called with the status after every poll while the video is processed. */
  onProgress?: (status: VideoStatus) => void;
  /** Milliseconds between polls; default 1000. */
  pollInterval?: number;
  /** Give up after this many milliseconds (throws `VerdictError` code `WAIT_TIMEOUT`); default no limit. */
  maxWait?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Asynchronous video checks (interface §4.8, decisions §8). */
export class Video {
  constructor(private readonly client: APIClient) {}

  /** Submits a video URL; answers at once (202) with estimates. Poll `status`/`result` or use `waitForResult`. */
  check(params: VideoCheckParams, options?: RequestOptions): Promise<VideoAccepted> {
    return this.client.call('post', '/v1/video/check', { body: params, idempotent: true }, options);
  }

  /** Uploads a video file (multipart/form-data, ≤ 100 MB); answers like `check`. */
  upload(params: VideoUploadParams, options?: RequestOptions): Promise<VideoAccepted> {
    const { video, filename, requestId, ...fields } = params;
    const form = new FormData();
    // Text fields first: the server checks them before it reads the file.
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined && value !== null) form.append(key, String(value));
    }
    const blob =
      video instanceof Blob
        ? video
        : new Blob([video] as unknown as ConstructorParameters<typeof Blob>[0], { type: 'video/mp4' });
    const name = filename ?? (video as { name?: unknown }).name;
    form.append('video', blob, typeof name === 'string' && name ? name : 'video.mp4');
    return this.client.call(
      'post',
      '/v1/video/upload',
      { body: form, idempotent: true },
      { ...options, idempotencyKey: options?.idempotencyKey ?? requestId },
    );
  }

  status(decisionId: string, options?: RequestOptions): Promise<VideoStatus> {
    return this.client.call('get', '/v1/video/status/{decisionId}', { path: { decisionId } }, options);
  }

  /** The final result (`status` completed or failed), or the status body while still processing. */
  result(decisionId: string, options?: RequestOptions): Promise<VideoResultResponse> {
    return this.client.call('get', '/v1/video/result/{decisionId}', { path: { decisionId } }, options);
  }

  /**
   * The JPEG of a frame that triggered, from its evidence URL (or the token at its end), fetched from `baseUrl`.
   * No key is needed for evidence; it expires at `evidence.expiresAt` (then 404).
   */
  evidence(urlOrToken: string, options?: RequestOptions): Promise<Blob> {
    const token = urlOrToken.split('?')[0]!.split('/').pop() ?? '';
    return this.client.request<Blob>(
      { method: 'GET', path: `/v1/evidence/${encodeURIComponent(token)}`, responseType: 'blob' },
      options,
    );
  }

  /** Polls until the video is done, reporting progress; resolves with the final result (completed or failed). */
  async waitForResult(decisionId: string, options: WaitOptions = {}): Promise<VideoResult> {
    const { onProgress, pollInterval = 1000, maxWait, ...requestOptions } = options;
    const deadline = maxWait === undefined ? Number.POSITIVE_INFINITY : Date.now() + maxWait;
    for (;;) {
      const current = await this.result(decisionId, requestOptions);
      if (current.status !== 'processing') return current;
      onProgress?.(current as VideoStatus);
      if (Date.now() + pollInterval > deadline) {
        throw new VerdictError({
          code: 'WAIT_TIMEOUT',
          message: `Video ${decisionId} is still processing after ${maxWait} ms`,
        });
      }
      await sleep(pollInterval, requestOptions.signal);
    }
  }
}
