import sharp from 'sharp';

/** Width the presence test looks at: enough for caption-sized letters, cheap to scan (~2 ms per image). */
const WIDTH = 320;

export type Polarity = 'light' | 'dark';

/**
 * Whether an image may carry readable text, and of which polarity, before paying for OCR (~0.1–1 s). Text is
 * strokes: rows that cross many short runs of a near-white (light text, meme captions) or near-black (dark text,
 * screenshots) tone. A photo without text rarely has such rows in quantity. Returns the polarities worth reading.
 */
export async function textPolarities(bytes: Uint8Array, maxPixels: number): Promise<Polarity[]> {
  const { data, info } = await sharp(bytes, { limitInputPixels: maxPixels, pages: 1 })
    .greyscale()
    .resize({ width: WIDTH, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const out: Polarity[] = [];
  if (strokeRows(data, info.width, info.height, (v) => v >= 200)) out.push('light');
  if (strokeRows(data, info.width, info.height, (v) => v <= 60)) out.push('dark');
  return out;
}

/** True when at least 3 % of rows (and 4 rows) cross ≥ 8 short runs (≤ 12 % of the width) of the tone. */
function strokeRows(data: Buffer, width: number, height: number, on: (v: number) => boolean): boolean {
  const maxRun = Math.max(3, Math.round(width * 0.12));
  let rows = 0;
  for (let y = 0; y < height; y++) {
    let runs = 0;
    let run = 0;
    for (let x = 0; x < width; x++) {
      if (on(data[y * width + x]!)) run++;
      else {
        if (run > 0 && run <= maxRun) runs++;
        run = 0;
      }
    }
    if (runs >= 8) rows++;
  }
  return rows >= 4 && rows >= height * 0.03;
}
