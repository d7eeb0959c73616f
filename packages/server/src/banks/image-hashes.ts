import { createHash } from 'node:crypto';
import { MIN_PDQ_QUALITY } from './limits.ts';
import { pdqOfImage } from './pdq-image.ts';
import type { ImageHashes } from './types.ts';

/**
 * The exact digests and the PDQ hash of an image's bytes. A PDQ of quality under 50 (a flat or nearly blank
 * image) is dropped: such hashes collide across unrelated images, so only the exact digests are used.
 */
export async function hashImage(bytes: Uint8Array, maxPixels: number): Promise<ImageHashes> {
  const { pdq, quality } = await pdqOfImage(bytes, maxPixels);
  return {
    pdq: quality >= MIN_PDQ_QUALITY ? pdq : null,
    quality,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    md5: createHash('md5').update(bytes).digest('hex'),
  };
}
