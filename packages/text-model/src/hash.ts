/** 32-bit hashing helpers shared by the runtime and the trainer (must never change without retraining). */

export const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a over a range of code points. */
export function hashRange(cps: Int32Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ cps[i]!, FNV_PRIME);
  return h | 0;
}

export function hashStep(h: number, cp: number): number {
  return Math.imul(h ^ cp, FNV_PRIME) | 0;
}

/** murmur3 finaliser: spreads FNV output across the high bits used for bucketing. */
export function fmix(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Deterministic PRNG (mulberry32) for training; never Math.random. */
export function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Hash of a JS string's code points (used for lexicon keys built from strings). */
export function hashString(s: string): number {
  let h = FNV_OFFSET;
  for (const ch of s) h = Math.imul(h ^ ch.codePointAt(0)!, FNV_PRIME);
  return h | 0;
}

/** Shuffles `order` in place (Fisher-Yates) with the deterministic PRNG `rnd` (training only). */
export function shuffleInPlace(order: Int32Array, rnd: () => number): void {
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
}
