/**
 * PDQ, Meta's 256-bit perceptual image hash, written from the published algorithm (pdqhash-2017-10-09.pdf and the
 * ThreatExchange reference's documented steps): luminance → two-pass Jarosz (tent) blur → decimate to 64×64 →
 * quality from the 64×64 gradients → the 16×16 lowest non-constant DCT coefficients → one bit per coefficient above
 * their median. Arithmetic is rounded to 32-bit floats at each step (`f`) as the reference's float code does, so
 * hashes of the same pixels agree bit for bit rather than "nearly".
 */

const f = Math.fround;

/** Below this size in either dimension an image has no meaningful hash (the reference's minimum). */
export const PDQ_MIN_DIMENSION = 5;

export interface PdqResult {
  /** 256 bits as 32 bytes, most significant first (byte 0 holds bits 255..248), as the hex form prints them. */
  hash: Uint8Array;
  /** 0–100: how much gradient the image has; below ~50 hashes of flat images collide too easily. */
  quality: number;
}

const LUMA_R = f(0.299);
const LUMA_G = f(0.587);
const LUMA_B = f(0.114);

/** Luminance of one RGB pixel, in the reference's float arithmetic. */
export function luma(r: number, g: number, b: number): number {
  return f(f(f(LUMA_R * r) + f(LUMA_G * g)) + f(LUMA_B * b));
}

/** The DCT-II basis rows 1..16 over 64 samples (row 0, the constant term, carries no structure). */
const DCT: Float32Array = (() => {
  const out = new Float32Array(16 * 64);
  const scale = Math.sqrt(2 / 64);
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 64; j++)
      out[i * 64 + j] = scale * Math.cos((Math.PI / 2 / 64) * (i + 1) * (2 * j + 1));
  }
  return out;
})();

/** Box filter window per pass: two passes of half a 64th each cover one output cell, like a tent of its width. */
export function jaroszWindow(oldDimension: number, newDimension: number): number {
  return Math.floor((oldDimension + 2 * newDimension - 1) / (2 * newDimension));
}

/**
 * One 1-D box-filter pass over `length` samples at `stride`: each output is the mean of the window around it,
 * the window shrinking at the edges; a running sum keeps it linear in the length.
 */
function box1d(
  input: Float32Array,
  output: Float32Array,
  start: number,
  length: number,
  stride: number,
  window: number,
): void {
  const half = Math.floor((window + 2) / 2);
  let sum = 0;
  let size = 0;
  let right = start;
  let left = start;
  let out = start;
  for (let i = 0; i < half - 1; i++) {
    sum = f(sum + input[right]!);
    size++;
    right += stride;
  }
  for (let i = 0; i < window - half + 1; i++) {
    sum = f(sum + input[right]!);
    size++;
    output[out] = f(sum / size);
    right += stride;
    out += stride;
  }
  for (let i = 0; i < length - window; i++) {
    sum = f(f(sum + input[right]!) - input[left]!);
    output[out] = f(sum / size);
    left += stride;
    right += stride;
    out += stride;
  }
  for (let i = 0; i < half - 1; i++) {
    sum = f(sum - input[left]!);
    size--;
    output[out] = f(sum / size);
    left += stride;
    out += stride;
  }
}

/** Blurs `a` in place (using `b` as scratch): rows then columns, twice. */
function jaroszFilter(a: Float32Array, b: Float32Array, rows: number, cols: number): void {
  const alongRows = jaroszWindow(cols, 64);
  const alongCols = jaroszWindow(rows, 64);
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < rows; i++) box1d(a, b, i * cols, cols, 1, alongRows);
    for (let j = 0; j < cols; j++) box1d(b, a, j, rows, cols, alongCols);
  }
}

/** Samples the blurred image at the centres of a 64×64 grid. */
function decimate(input: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(64 * 64);
  for (let i = 0; i < 64; i++) {
    const si = Math.floor(((i + 0.5) * rows) / 64);
    for (let j = 0; j < 64; j++) {
      const sj = Math.floor(((j + 0.5) * cols) / 64);
      out[i * 64 + j] = input[si * cols + sj]!;
    }
  }
  return out;
}

/** The reference's heuristic: significant neighbour differences (in percent of full scale), summed and scaled. */
function quality(cells: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < 63; i++) {
    for (let j = 0; j < 64; j++) {
      sum += Math.abs(Math.trunc(f(f(f(cells[i * 64 + j]! - cells[(i + 1) * 64 + j]!) * 100) / 255)));
    }
  }
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 63; j++) {
      sum += Math.abs(Math.trunc(f(f(f(cells[i * 64 + j]! - cells[i * 64 + j + 1]!) * 100) / 255)));
    }
  }
  return Math.min(100, Math.floor(sum / 90));
}

/** B = D · A · Dᵀ for the 16 lowest non-constant frequencies in each direction. */
export function dct64To16(cells: Float32Array): Float32Array {
  const t = new Float32Array(16 * 64);
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 64; j++) {
      let sum = 0;
      for (let k = 0; k < 64; k++) sum = f(sum + f(DCT[i * 64 + k]! * cells[k * 64 + j]!));
      t[i * 64 + j] = sum;
    }
  }
  const out = new Float32Array(16 * 16);
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 16; j++) {
      let sum = 0;
      for (let k = 0; k < 64; k++) sum = f(sum + f(t[i * 64 + k]! * DCT[j * 64 + k]!));
      out[i * 16 + j] = sum;
    }
  }
  return out;
}

/** One bit per coefficient: set when it is above the median (the 128th smallest), bit i*16+j for (i, j). */
export function coefficientsToHash(coefficients: Float32Array): Uint8Array {
  const median = Float32Array.from(coefficients).sort()[127]!;
  const hash = new Uint8Array(32);
  for (let k = 0; k < 256; k++) {
    if (coefficients[k]! > median) hash[31 - (k >> 3)]! |= 1 << (k & 7);
  }
  return hash;
}

/**
 * PDQ of a luminance image (row-major, `rows`×`cols`, values 0–255). `luminance` is blurred in place. An image
 * under 5 pixels in either dimension hashes to all zeros with quality 0, as in the reference.
 */
export function pdqFromLuminance(luminance: Float32Array, rows: number, cols: number): PdqResult {
  if (rows < PDQ_MIN_DIMENSION || cols < PDQ_MIN_DIMENSION) return { hash: new Uint8Array(32), quality: 0 };
  let cells: Float32Array;
  if (rows === 64 && cols === 64) {
    cells = luminance;
  } else {
    jaroszFilter(luminance, new Float32Array(rows * cols), rows, cols);
    cells = decimate(luminance, rows, cols);
  }
  return { hash: coefficientsToHash(dct64To16(cells)), quality: quality(cells) };
}
