// Run by test/ocr.test.ts under no-network.cjs: reads a meme caption with the OCR engine and prints the result.
import sharp from 'sharp';
import { OcrEngine } from '../../src/ocr/engine.ts';

const photo = await sharp({
  create: {
    width: 640,
    height: 480,
    channels: 3,
    background: '#000',
    noise: { type: 'gaussian', mean: 120, sigma: 50 },
  },
})
  .blur(3)
  .png()
  .toBuffer();
const svg =
  '<svg width="640" height="480"><text x="320" y="90" font-family="DejaVu Sans" font-weight="bold" font-size="54" fill="white" stroke="black" stroke-width="3" text-anchor="middle">I WILL KILL YOU</text></svg>';
const image = await sharp(photo)
  .composite([{ input: Buffer.from(svg) }])
  .jpeg()
  .toBuffer();
const engine = new OcrEngine({ timeoutMs: 20_000, maxPixels: 100_000_000 });
const result = await engine.read(image);
await engine.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
