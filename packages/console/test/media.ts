import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { videoTools } from '../../server/src/media/video/ffmpeg.ts';

/** Media for the evidence pages (browser tests and screenshots), generated here: licence-clear and deterministic. */
export { meme } from '../../server/test/helpers/images.ts';

/** An H.264 MP4 showing each image for one second, in order. */
export function slideshow(images: Buffer[]): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-slides-'));
  try {
    for (const [i, image] of images.entries()) fs.writeFileSync(path.join(dir, `slide${i}.jpg`), image);
    const out = path.join(dir, 'slides.mp4');
    execFileSync(
      videoTools().ffmpeg,
      ['-v', 'error', '-y', '-framerate', '1', '-i', path.join(dir, 'slide%d.jpg'), '-r', '5'].concat([
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        out,
      ]),
      { stdio: 'pipe', timeout: 60_000 },
    );
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
