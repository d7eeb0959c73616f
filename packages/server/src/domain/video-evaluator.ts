import fs from 'node:fs';
import path from 'node:path';
import { ConcurrencyGate } from '../limits/concurrency.ts';
import { NotAVideoError, probeVideo, type VideoInfo } from '../media/video/probe.ts';
import { downloadVideo, parseVideoUrl, type VideoFetchOptions } from '../media/video/source.ts';
import type { ImageTextReader } from '../ocr/judge.ts';
import type { Provider } from '../providers/provider.ts';
import { AppError } from './errors.ts';
import {
  type ContentEvaluator,
  type EvaluateOptions,
  type Evaluation,
  type PreparedContent,
  preparedFromStoredUrl,
} from './evaluators.ts';
import { newId } from './ids.ts';
import type { Policy } from './policies/policy.ts';
import { analyzeVideoFile, type FrameResult } from './video-analysis.ts';
import { checkDecodeCost } from './video-options.ts';

export type { FrameResult };

/** Frames judged by a synchronous video check (decisions §3): spread evenly over the video. */
export const SYNC_VIDEO_FRAMES = 10;
/** Longest video a synchronous check reads; longer ones belong to /v1/video/*. */
export const SYNC_VIDEO_MAX_SECONDS = 300;

interface VideoPayload {
  url: string;
  field: string;
}

/** A video evaluation also carries its frames (multi-modal results show them and count one unit each). */
export interface VideoEvaluation extends Evaluation {
  frames: FrameResult[];
}

/**
 * `video` content in `/v1/check` and `/v1/check/multimodal`: a video URL judged synchronously on a bounded frame
 * budget. The video is downloaded through the SSRF-safe fetcher into the data directory, probed, sampled at
 * SYNC_VIDEO_FRAMES points and deleted; scores per category are the highest over the frames.
 */
export class VideoEvaluator implements ContentEvaluator {
  readonly contentType = 'video' as const;
  /** Each check runs ffprobe and ffmpeg: `concurrency` at once, four times as many waiting, later ones 503. */
  private readonly gate: ConcurrencyGate;

  constructor(
    private readonly provider: Provider,
    private readonly fetchOptions: VideoFetchOptions,
    private readonly options: {
      dataDir: string;
      maxInFlight: number;
      concurrency: number;
      /** Reads text in frames (OCR) for the text categories. */
      textReader?: ImageTextReader | null;
    },
  ) {
    this.gate = new ConcurrencyGate(options.concurrency, options.concurrency * 4, 'synchronous video checks');
  }

  prepare(content: unknown, field: string): PreparedContent {
    const url = parseVideoUrl(content, field, { allowHttp: this.fetchOptions.allowHttp });
    return { contentType: 'video', stored: url, payload: { url, field } satisfies VideoPayload };
  }

  evaluate(prepared: PreparedContent, options: Partial<EvaluateOptions> = {}): Promise<VideoEvaluation> {
    return this.gate.run(() => this.evaluateNow(prepared, options));
  }

  private async evaluateNow(
    prepared: PreparedContent,
    options: Partial<EvaluateOptions>,
  ): Promise<VideoEvaluation> {
    const { url, field } = prepared.payload as VideoPayload;
    const file = path.join(this.options.dataDir, 'uploads', `${newId('req')}.video`);
    try {
      await downloadVideo(url, file, field, this.fetchOptions);
      let info: VideoInfo;
      try {
        info = await probeVideo(file, options.signal ? { signal: options.signal } : {});
      } catch (error) {
        if (!(error instanceof NotAVideoError)) throw error;
        throw new AppError('INVALID_CONTENT', `${field} is not a decodable video`, {
          field,
          reason: error.reason,
        });
      }
      checkDecodeCost(info, field);
      const duration = info.durationSeconds;
      if (duration > SYNC_VIDEO_MAX_SECONDS) {
        throw new AppError(
          'CONTENT_TOO_LARGE',
          `${field} is longer than ${SYNC_VIDEO_MAX_SECONDS} s; use /v1/video/check for long videos`,
          {
            field,
            reason: 'duration',
            durationSeconds: duration,
            maxDurationSeconds: SYNC_VIDEO_MAX_SECONDS,
          },
        );
      }
      // Every category the provider judges is scored; the policy is applied by the caller to the combined scores.
      const judgeAll: Policy = {
        policyId: '',
        name: '',
        description: null,
        categories: Object.fromEntries(
          [
            ...this.provider.categories,
            ...(this.options.textReader ? this.options.textReader.text.categories : []),
          ].map((c) => [c, { threshold: 1, action: 'allow' }]),
        ),
        version: 0,
        builtin: true,
        accountId: null,
        yaml: '',
        createdAt: '',
        updatedAt: '',
      };
      const analysis = await analyzeVideoFile(file, this.provider, judgeAll, {
        intervalSeconds: Math.max(0.001, duration / SYNC_VIDEO_FRAMES),
        maxFrames: SYNC_VIDEO_FRAMES,
        maxDurationSeconds: SYNC_VIDEO_MAX_SECONDS,
        timeoutMs: 60_000,
        maxInFlight: this.options.maxInFlight,
        ...(options.signal && { signal: options.signal }),
        banks: options.banks ?? null,
        textReader: this.options.textReader ?? null,
      });
      return {
        provider: analysis.provider,
        result: {
          scores: analysis.scores,
          evaluated: analysis.evaluated,
          modelVersion: analysis.modelVersion,
          cost: analysis.cost,
        },
        frames: analysis.frames,
        ...(analysis.bankMatch && { bankMatch: analysis.bankMatch }),
      };
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  /** Video URLs can be fetched again for a replay. */
  fromStored(stored: string): PreparedContent | null {
    return preparedFromStoredUrl(this, stored);
  }
}
