import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { videoTools } from '../../server/src/media/video/ffmpeg.ts';

/**
 * Media for the evidence pages (browser tests and screenshots), generated here: licence-clear and deterministic.
 * A "meme" is a photo-like texture with a caption in white letters outlined in black, which the service reads (OCR)
 * and judges as text; a plain texture has nothing to read.
 */
export async function meme(caption: string | null, width = 640, height = 480): Promise<Buffer> {
  const texture = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 120, sigma: 50 },
    },
  })
    .blur(3)
    .png()
    .toBuffer();
  if (caption === null) return sharp(texture).jpeg().toBuffer();
  const svg = `<svg width="${width}" height="${height}"><text x="${width / 2}" y="90" font-family="DejaVu Sans" font-weight="bold" font-size="54" fill="white" stroke="black" stroke-width="3" text-anchor="middle">${caption}</text></svg>`;
  return sharp(texture)
    .composite([{ input: Buffer.from(svg) }])
    .jpeg()
    .toBuffer();
}

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
