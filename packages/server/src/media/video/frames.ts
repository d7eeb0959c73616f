import { spawn } from 'node:child_process';
import { safeInputArgs, videoTools } from './ffmpeg.ts';
import { JpegStreamSplitter } from './jpeg-stream.ts';

export interface FrameSpec {
  /** Seconds between sampled frames (> 0). */
  intervalSeconds: number;
  maxFrames: number;
  /** Only this much of the video is read. */
  maxDurationSeconds: number;
  /** Kill ffmpeg after this long, whatever it is doing. */
  timeoutMs: number;
  /** Longest side of the JPEGs produced; frames are scaled down (never up) to it. Default 640. */
  maxSide?: number;
  signal?: AbortSignal;
}

export interface ExtractedFrame {
  /** 0-based position in the sampled sequence. */
  index: number;
  /** Position in the video, seconds. */
  timestamp: number;
  jpeg: Buffer;
}

export class FrameExtractionError extends Error {
  constructor(
    readonly reason: 'timeout' | 'decode' | 'aborted',
    message: string,
  ) {
    super(message);
    this.name = 'FrameExtractionError';
  }
}

/** A rational for ffmpeg's fps filter: 1 / interval frames per second, to the millisecond. */
function fpsOf(intervalSeconds: number): string {
  return `1000/${Math.max(1, Math.round(intervalSeconds * 1000))}`;
}

/** `firstOnly`: the first frame, without sampling (for clips shorter than half an interval; see extractFrames). */
export function ffmpegFrameArgs(file: string, spec: FrameSpec, firstOnly = false): string[] {
  const side = spec.maxSide ?? 640;
  const scale = `scale='min(${side},iw)':'min(${side},ih)':force_original_aspect_ratio=decrease`;
  return [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    // ffmpeg only ever reads the local file we downloaded or stored, and writes to its stdout pipe.
    ...safeInputArgs('file,pipe'),
    '-t',
    String(spec.maxDurationSeconds),
    '-i',
    file,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    firstOnly ? scale : `fps=${fpsOf(spec.intervalSeconds)},${scale}`,
    '-frames:v',
    String(firstOnly ? 1 : spec.maxFrames),
    '-pix_fmt',
    'yuvj420p',
    '-c:v',
    'mjpeg',
    '-q:v',
    '3',
    '-f',
    'image2pipe',
    'pipe:1',
  ];
}

/**
 * Streams sampled frames of a local video file as JPEGs, as ffmpeg produces them: the consumer's pace is
 * ffmpeg's pace (stdout is paused while the consumer is busy), so extraction overlaps with whatever the consumer does
 * and memory stays bounded. ffmpeg is killed on timeout, on abort, or when the consumer stops early.
 */
export async function* extractFrames(file: string, spec: FrameSpec): AsyncGenerator<ExtractedFrame> {
  let produced = 0;
  for await (const frame of runFfmpeg(file, spec, false)) {
    produced++;
    yield frame;
  }
  // ffmpeg's fps filter rounds a clip shorter than half an interval to no frame at all: judge its first frame
  if (produced === 0) yield* runFfmpeg(file, spec, true);
}

async function* runFfmpeg(file: string, spec: FrameSpec, firstOnly: boolean): AsyncGenerator<ExtractedFrame> {
  const child = spawn(videoTools().ffmpeg, ffmpegFrameArgs(file, spec, firstOnly), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let failure: FrameExtractionError | null = null;
  const kill = (error: FrameExtractionError) => {
    failure ??= error;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(
    () => kill(new FrameExtractionError('timeout', `Frame extraction took longer than ${spec.timeoutMs} ms`)),
    spec.timeoutMs,
  );
  const onAbort = () => kill(new FrameExtractionError('aborted', 'Frame extraction was interrupted'));
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  if (spec.signal?.aborted) onAbort();
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 8192) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.on('error', (error) =>
    kill(new FrameExtractionError('decode', `ffmpeg could not run: ${error.message}`)),
  );
  const splitter = new JpegStreamSplitter();
  let index = 0;
  let finished = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      for (const jpeg of splitter.push(chunk)) {
        const frame = { index, timestamp: round3(index * spec.intervalSeconds), jpeg };
        index++;
        yield frame;
      }
    }
    const code = await exited;
    if (failure) throw failure;
    if (code !== 0 && index === 0) {
      throw new FrameExtractionError('decode', `The video could not be decoded${stderrHint(stderr)}`);
    }
    finished = true;
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
    if (!finished && child.exitCode === null) child.kill('SIGKILL');
  }
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function stderrHint(stderr: string): string {
  const line = stderr.trim().split('\n').pop()?.trim();
  // ffmpeg messages name the input path; keep only the tail after the last colon.
  return line ? `: ${line.split(': ').pop()?.slice(0, 200)}` : '';
}
