import sharp from 'sharp';

/**
 * `count` distinct 640×480 JPEGs of smooth random texture with shapes: photo-like sizes (~30–60 KB) and decode cost,
 * and no text. `rect` adds a rectangle beside the circle.
 */
export async function makePhotos(count: number, options: { rect: boolean }): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const noise = await sharp({
      create: {
        width: 640,
        height: 480,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 110 + i * 5, sigma: 60 },
      },
    })
      .blur(2.5)
      .png()
      .toBuffer();
    const rect = options.rect
      ? `<rect x="${380 - i * 10}" y="100" width="180" height="220" fill="#365" opacity="0.7"/>`
      : '';
    const shapes = Buffer.from(
      `<svg width="640" height="480"><circle cx="${100 + i * 25}" cy="240" r="${60 + i * 4}" fill="#c86" opacity="0.8"/>` +
        `${rect}</svg>`,
    );
    out.push(
      await sharp(noise)
        .composite([{ input: shapes }])
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
  }
  return out;
}
