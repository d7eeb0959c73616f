import { runTool, safeInputArgs, videoTools } from './ffmpeg.ts';

export interface VideoInfo {
  /** Seconds; from the container, else the video stream. */
  durationSeconds: number;
  width: number;
  height: number;
  codec: string;
  /** Average frames per second (the stream's, else frames ÷ duration); null when ffprobe cannot tell. */
  framesPerSecond: number | null;
  /** Container format names as ffprobe reports them, e.g. "mov,mp4,m4a,3gp,3g2,mj2". */
  format: string;
}

export class NotAVideoError extends Error {
  constructor(
    readonly reason: 'unreadable' | 'no_video_stream' | 'no_duration' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'NotAVideoError';
  }
}

/** Container formats ffprobe may call a video but that are single images; we want moving pictures. */
const IMAGE_FORMATS = /^(image2|png_pipe|jpeg_pipe|webp_pipe|gif|bmp_pipe|tiff_pipe|svg_pipe|.*_pipe)$/;

/**
 * Reads a local file's container and first video stream with ffprobe: only the `file` protocol is allowed, so a
 * playlist or reference file inside an upload cannot make ffprobe open other files or the network.
 */
export async function probeVideo(
  file: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<VideoInfo> {
  const result = await runTool(
    videoTools().ffprobe,
    [
      '-v',
      'error',
      ...safeInputArgs('file'),
      '-print_format',
      'json',
      '-show_format',
      '-show_streams',
      '-select_streams',
      'v:0',
      file,
    ],
    { timeoutMs: options.timeoutMs ?? 15_000, ...(options.signal && { signal: options.signal }) },
  );
  if (result.timedOut) throw new NotAVideoError('timeout', 'Reading the video took too long');
  if (result.code !== 0) throw new NotAVideoError('unreadable', 'The file is not a readable video');
  let parsed: {
    format?: { duration?: string; format_name?: string };
    streams?: Array<{
      codec_type?: string;
      codec_name?: string;
      width?: number;
      height?: number;
      duration?: string;
      avg_frame_rate?: string;
      nb_frames?: string;
    }>;
  };
  try {
    parsed = JSON.parse(result.stdout.toString('utf8'));
  } catch {
    throw new NotAVideoError('unreadable', 'The file is not a readable video');
  }
  const stream = parsed.streams?.find((s) => s.codec_type === 'video');
  const format = parsed.format?.format_name ?? '';
  if (!stream?.width || !stream.height || IMAGE_FORMATS.test(format)) {
    throw new NotAVideoError('no_video_stream', 'The file has no video stream');
  }
  // the video stream's own duration where the container states it: an audio track often runs longer, and frames are
  // sampled from the video alone
  const streamDuration = Number(stream.duration);
  const duration =
    Number.isFinite(streamDuration) && streamDuration > 0 ? streamDuration : Number(parsed.format?.duration);
  if (!Number.isFinite(duration) || duration <= 0) {
    throw new NotAVideoError('no_duration', 'The video has no known duration');
  }
  const frames = Number(stream.nb_frames);
  return {
    durationSeconds: duration,
    width: stream.width,
    height: stream.height,
    codec: stream.codec_name ?? 'unknown',
    framesPerSecond:
      rational(stream.avg_frame_rate) ?? (Number.isFinite(frames) && frames > 0 ? frames / duration : null),
    format,
  };
}

/** ffprobe's "30000/1001"; null for "0/0", a missing value or anything not a positive finite number. */
function rational(value: string | undefined): number | null {
  const [num, den] = (value ?? '').split('/').map(Number);
  const v = den === undefined ? num : num! / den;
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : null;
}
