import sharp from 'sharp';
import { toHex } from './hash256.ts';
import { luma, pdqFromLuminance } from './pdq.ts';

/** The reference tool first brings images over 512 px on a side to 512×512 (the blur is costly on large images). */
const DOWNSAMPLE = 512;
/**
 * Past this many pixels the image is first reduced by libvips (within 2048×2048), so that a 100 MP upload does not
 * decode to 300 MB of RGB here; the 512×512 sampling below then reads the reduced image. Ordinary photos never get
 * here, and hashes of such large images may differ from the reference by a few bits.
 */
const PRE_REDUCE_PIXELS = 16_000_000;

export interface ImagePdq {
  /** 64 hex digits. */
  pdq: string;
  quality: number;
}

/**
 * PDQ of encoded image bytes (JPEG, PNG, WebP, GIF first frame). Matches the C++ reference tool's input handling:
 * stored orientation (EXIF is not applied, as the reference and HMA do not), alpha dropped, images over 512 px on
 * a side sampled by nearest neighbour onto 512×512, then luminance. Throws when sharp cannot decode the bytes.
 */
export async function pdqOfImage(bytes: Uint8Array, maxPixels: number): Promise<ImagePdq> {
  let pipeline = sharp(bytes, { limitInputPixels: maxPixels, pages: 1, failOn: 'error' });
  const meta = await pipeline.metadata();
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  if (pixels > PRE_REDUCE_PIXELS) {
    pipeline = pipeline.resize(2048, 2048, { fit: 'inside', withoutEnlargement: true });
  }
  const { data, info } = await pipeline
    .removeAlpha()
    .toColourspace(meta.channels === 1 || meta.space === 'b-w' ? 'b-w' : 'srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const large = width > DOWNSAMPLE || height > DOWNSAMPLE;
  const cols = large ? DOWNSAMPLE : width;
  const rows = large ? DOWNSAMPLE : height;
  const luminance = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    // Nearest neighbour as CImg samples it: output cell x reads source floor(x · width / 512).
    const si = large ? Math.floor((i * height) / rows) : i;
    for (let j = 0; j < cols; j++) {
      const sj = large ? Math.floor((j * width) / cols) : j;
      const p = (si * width + sj) * channels;
      luminance[i * cols + j] = channels >= 3 ? luma(data[p]!, data[p + 1]!, data[p + 2]!) : data[p]!;
    }
  }
  const { hash, quality } = pdqFromLuminance(luminance, rows, cols);
  return { pdq: toHex(hash), quality };
}
