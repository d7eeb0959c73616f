/** 256-bit hashes (PDQ) as 64 hex digits, and their Hamming distance over 32-bit words. */

export const PDQ_HEX = /^[0-9a-f]{64}$/;

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The 8 big-endian 32-bit words of a 64-digit hex hash (the caller validated it). */
export function hexToWords(hex: string): Uint32Array {
  const words = new Uint32Array(8);
  for (let w = 0; w < 8; w++) words[w] = Number.parseInt(hex.slice(w * 8, w * 8 + 8), 16) >>> 0;
  return words;
}

/** Bits set in a 32-bit word (SWAR popcount: no loop, no table). */
export function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

export function hammingDistance(a: string, b: string): number {
  const x = hexToWords(a);
  const y = hexToWords(b);
  let d = 0;
  for (let w = 0; w < 8; w++) d += popcount32((x[w]! ^ y[w]!) >>> 0);
  return d;
}
