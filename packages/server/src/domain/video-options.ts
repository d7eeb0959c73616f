import { AppError } from './errors.ts';

/** decisions §8: frame interval in seconds (default 1, minimum 0.1); frames default 60, at most 600. */
export const VIDEO_DEFAULTS = {
  frameInterval: 1,
  minFrameInterval: 0.1,
  maxFrameInterval: 3600,
  maxFrames: 60,
  maxFramesLimit: 600,
  maxDurationSeconds: 300,
  maxDurationLimit: 3600,
} as const;

export interface VideoOptions {
  frameInterval: number;
  maxFrames: number;
  maxDurationSeconds: number;
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Numbers arrive as JSON numbers, or as strings from multipart form fields. */
function numeric(value: unknown, field: string, allowStrings: boolean): number {
  const n = typeof value === 'string' && allowStrings && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw new AppError('INVALID_PARAMETER', `${field} must be a number`, { field });
  }
  return n;
}

function inRange(n: number, field: string, min: number, max: number, integer: boolean): number {
  if ((integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new AppError(
      'INVALID_PARAMETER',
      `${field} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
      { field, min, max },
    );
  }
  return n;
}

/**
 * Parses `extractionStrategy` (`frameInterval`, `maxFrames`) and `maxDurationSeconds`. `fromForm`: values may be
 * strings (multipart fields).
 */
export function parseVideoOptions(
  input: { frameInterval?: unknown; maxFrames?: unknown; maxDurationSeconds?: unknown },
  options: { fromForm?: boolean; prefix?: string } = {},
): VideoOptions {
  const form = options.fromForm ?? false;
  const prefix = options.prefix ?? '';
  const d = VIDEO_DEFAULTS;
  return {
    frameInterval: present(input.frameInterval)
      ? inRange(
          numeric(input.frameInterval, `${prefix}frameInterval`, form),
          `${prefix}frameInterval`,
          d.minFrameInterval,
          d.maxFrameInterval,
          false,
        )
      : d.frameInterval,
    maxFrames: present(input.maxFrames)
      ? inRange(
          numeric(input.maxFrames, `${prefix}maxFrames`, form),
          `${prefix}maxFrames`,
          1,
          d.maxFramesLimit,
          true,
        )
      : d.maxFrames,
    maxDurationSeconds: present(input.maxDurationSeconds)
      ? inRange(
          numeric(input.maxDurationSeconds, 'maxDurationSeconds', form),
          'maxDurationSeconds',
          1,
          d.maxDurationLimit,
          false,
        )
      : d.maxDurationSeconds,
  };
}

/**
 * Seconds between sampled frames: `frameInterval`, widened when the video is longer than maxFrames intervals so that
 * the maxFrames frames are spread over the whole video (sampling only its beginning would judge a 5-minute video
 * on its first minute).
 */
export function samplingInterval(durationSeconds: number, options: VideoOptions): number {
  const covered = Math.min(durationSeconds, options.maxDurationSeconds);
  return Math.max(options.frameInterval, covered / options.maxFrames);
}

/**
 * Frames sampled at 0, interval, 2 × interval, … within the duration (see samplingInterval), at most maxFrames:
 * exactly what ffmpeg's fps filter yields, which gives the frame nearest each sampling time and so a last frame
 * only when the video lasts at least half an interval past that time (a 5.2 s clip at 1 s gives 5 frames, 5.5 s
 * gives 6). The plan reserves quota and reports progress; it must not promise a frame that never comes.
 */
export function plannedFrames(durationSeconds: number, options: VideoOptions): number {
  const covered = Math.min(durationSeconds, options.maxDurationSeconds);
  const interval = samplingInterval(durationSeconds, options);
  return Math.max(1, Math.min(options.maxFrames, Math.floor(covered / interval + 0.5 + 1e-9)));
}

/**
 * What a video may cost to decode. ffmpeg decodes every frame of the covered duration whatever the sampling, so a
 * small file of a large or fast picture (4K at 1,000 fps) could hold a worker for minutes while costing a few
 * frames of quota. Within these: 8K at 30 fps, 4K at 120, 1080p at 240.
 */
export const VIDEO_DECODE_LIMITS = {
  maxSide: 8192,
  maxPixels: 8192 * 4320,
  maxFramesPerSecond: 240,
  maxPixelsPerSecond: 8192 * 4320 * 30,
} as const;

/** 422 CONTENT_TOO_LARGE for a probed video beyond VIDEO_DECODE_LIMITS (an unknown frame rate is not judged). */
export function checkDecodeCost(
  info: { width: number; height: number; framesPerSecond: number | null },
  field: string,
): void {
  const L = VIDEO_DECODE_LIMITS;
  const { width, height } = info;
  if (width > L.maxSide || height > L.maxSide || width * height > L.maxPixels) {
    throw new AppError(
      'CONTENT_TOO_LARGE',
      `The video's frames are ${width}×${height}; at most ${L.maxSide} pixels a side and ${L.maxPixels} pixels`,
      { field, reason: 'resolution', width, height, maxSide: L.maxSide, maxPixels: L.maxPixels },
    );
  }
  const fps = info.framesPerSecond;
  if (fps === null) return;
  const framesPerSecond = Math.round(fps * 100) / 100;
  if (fps > L.maxFramesPerSecond) {
    throw new AppError(
      'CONTENT_TOO_LARGE',
      `The video has ${framesPerSecond} frames per second; at most ${L.maxFramesPerSecond}`,
      { field, reason: 'frame_rate', framesPerSecond, maxFramesPerSecond: L.maxFramesPerSecond },
    );
  }
  const pixelsPerSecond = Math.round(width * height * fps);
  if (pixelsPerSecond > L.maxPixelsPerSecond) {
    throw new AppError(
      'CONTENT_TOO_LARGE',
      `The video has ${pixelsPerSecond} pixels per second (${width}×${height} at ${framesPerSecond} fps); at most ${L.maxPixelsPerSecond}`,
      { field, reason: 'pixel_rate', pixelsPerSecond, maxPixelsPerSecond: L.maxPixelsPerSecond },
    );
  }
}
