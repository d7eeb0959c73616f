import { randomBytes } from 'node:crypto';

export type IdPrefix =
  | 'dec'
  | 'bat'
  | 'whk'
  | 'evt'
  | 'dlv'
  | 'key'
  | 'acc'
  | 'req'
  | 'job'
  | 'vid'
  | 'bnk'
  | 'bki'
  | 'aud'
  | 'bkt'
  | 'shd'
  | 'lst'
  | 'lse'
  | 'rvi'
  | 'rvw'
  | 'apl';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32, as ULID
const pool = { bytes: randomBytes(4096), offset: 4096 };

function randomByte(): number {
  if (pool.offset >= pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.offset = 0;
  }
  return pool.bytes[pool.offset++]!;
}

let lastTime = -1;
const lastRandom = new Uint8Array(16); // 16 base32 digits = 80 bits

/**
 * ULID-compatible IDs: 48-bit millisecond time then 80 random bits, in Crockford base32, so IDs sort by creation
 * time. Within one millisecond the random part is incremented (monotonic), as ULID's monotonic factory does. The
 * randomness comes from a pooled CSPRNG buffer: one syscall per ~250 IDs instead of one per character.
 */
export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    // Same (or a backwards) millisecond: increment the random part, carrying over base32 digits.
    for (let i = 15; i >= 0; i--) {
      if (lastRandom[i]! < 31) {
        lastRandom[i]!++;
        break;
      }
      lastRandom[i] = 0;
    }
  } else {
    lastTime = now;
    for (let i = 0; i < 16; i++) lastRandom[i] = randomByte() & 31;
  }
  let time = '';
  let t = lastTime;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  let random = '';
  for (let i = 0; i < 16; i++) random += ALPHABET[lastRandom[i]!];
  return time + random;
}

/** Opaque, time-sortable IDs with a type prefix (decisions §4): `dec_01J…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
