import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Where ffmpeg and ffprobe live: a system build on PATH when there is one (operators may want their distribution's
 * patched build), else the static builds shipped by the npm packages `@ffmpeg-installer/ffmpeg` and
 * `@ffprobe-installer/ffprobe`, so a plain `npm ci` is enough on any Linux, macOS or Windows machine.
 */
export interface VideoTools {
  ffmpeg: string;
  ffprobe: string;
}

const require = createRequire(import.meta.url);

function onPath(name: string): string | null {
  const exe = process.platform === 'win32' ? `${name}.exe` : name;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, exe);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

function fromPackage(pkg: string): string | null {
  try {
    return (require(pkg) as { path: string }).path;
  } catch {
    return null;
  }
}

let cached: VideoTools | null = null;

export function videoTools(): VideoTools {
  if (cached) return cached;
  const ffmpeg = onPath('ffmpeg') ?? fromPackage('@ffmpeg-installer/ffmpeg');
  const ffprobe = onPath('ffprobe') ?? fromPackage('@ffprobe-installer/ffprobe');
  if (!ffmpeg || !ffprobe) {
    throw new Error('ffmpeg/ffprobe not found: install them on PATH or run npm ci (bundled static builds)');
  }
  cached = { ffmpeg, ffprobe };
  return cached;
}

/**
 * Demuxers ffmpeg/ffprobe may use on our input: real video containers only. Playlists and reference formats (HLS,
 * concat, image sequences, …) are refused: they would make ffmpeg open other files named inside the upload.
 */
export const INPUT_FORMATS = 'mov,matroska,avi,flv,mpegts,mpeg,ogg,asf,h264,hevc,m4v,mpegvideo,obu,ivf';

/** Input options common to every run on untrusted media: local file only, known containers only. */
export function safeInputArgs(protocols: string): string[] {
  return ['-protocol_whitelist', protocols, '-format_whitelist', INPUT_FORMATS];
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

/** Runs a tool to completion with a hard time limit (SIGKILL) and bounded output. */
export function runTool(
  file: string,
  args: string[],
  options: { timeoutMs: number; maxStdout?: number; signal?: AbortSignal },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let timedOut = false;
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > (options.maxStdout ?? 4 * 1024 * 1024)) kill();
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
      resolve({ code, stdout: Buffer.concat(chunks), stderr, timedOut });
    });
  });
}
