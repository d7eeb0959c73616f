import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { videoTools } from '../../src/media/video/ffmpeg.ts';
import type { TestApp } from './app.ts';

/**
 * Test videos generated with ffmpeg's lavfi sources (licence-clear, deterministic, tiny): `testsrc` patterns or a
 * flat `color`, H.264 in MP4 unless told otherwise.
 */
export function makeVideo(
  dir: string,
  name: string,
  options: {
    seconds?: number;
    size?: string;
    rate?: number;
    source?: 'testsrc' | 'testsrc2' | 'color';
    faststart?: boolean;
    /** An audio track this many seconds long (a container often lasts longer than its video this way). */
    audioSeconds?: number;
  } = {},
): string {
  const file = path.join(dir, name);
  const size = options.size ?? '160x120';
  const rate = options.rate ?? 10;
  const source =
    options.source === 'color'
      ? `color=c=0x3060a0:size=${size}:rate=${rate}`
      : `${options.source ?? 'testsrc'}=size=${size}:rate=${rate}`;
  execFileSync(
    videoTools().ffmpeg,
    [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      ...(options.audioSeconds ? ['-t', String(options.seconds ?? 4)] : []),
      '-i',
      source,
      ...(options.audioSeconds
        ? // input durations (the video's before its -i would be the second input's): the container lasts longer
          ['-f', 'lavfi', '-t', String(options.audioSeconds), '-i', 'anullsrc=r=8000:cl=mono', '-c:a', 'aac']
        : []),
      ...(options.audioSeconds ? ['-map', '0:v', '-map', '1:a'] : ['-t', String(options.seconds ?? 4)]),
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      ...(options.faststart ? ['-movflags', '+faststart'] : []),
      file,
    ],
    { stdio: 'pipe', timeout: 60_000 },
  );
  return file;
}

/** The first `bytes` of a file, as a new file: a download or upload cut short. */
export function truncated(file: string, bytes: number, name: string): string {
  const out = path.join(path.dirname(file), name);
  fs.writeFileSync(out, fs.readFileSync(file).subarray(0, bytes));
  return out;
}

/** A multipart/form-data body (small: fields and a file read into memory). */
export function multipartBody(
  fields: Record<string, string>,
  file?: { name: string; bytes: Buffer; field?: string; type?: string },
): { body: Buffer; contentType: string } {
  const boundary = `----verdict${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'video'}"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type ?? 'video/mp4'}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function waitUntil<T>(
  fn: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `POST /v1/video/upload` through the app, as multipart/form-data. */
export async function uploadVideo(
  app: FastifyInstance,
  key: string,
  fields: Record<string, string>,
  file?: Parameters<typeof multipartBody>[1],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const { body, contentType } = multipartBody(fields, file);
  const r = await app.inject({
    method: 'POST',
    url: '/v1/video/upload',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers },
    payload: body,
  });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
}

/** Polls `GET /v1/video/result/{id}` until the analysis has ended (200). */
export function videoEnded(t: TestApp, key: string, id: string, timeoutMs = 45_000) {
  return waitUntil(
    () => t.request('GET', `/v1/video/result/${id}`, { key }),
    (r) => r.status === 200,
    timeoutMs,
    `video ${id}`,
  );
}
