import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HashIndex } from '../src/banks/hash-index.ts';

describe('HashIndex', () => {
  it('finds the nearest PDQ hash within the distance among 100,000, exact digests first (speed: bench/bank-index.ts)', () => {
    const n = 100_000;
    const bytes = randomBytes(n * 32);
    const rows = Array.from({ length: n }, (_, i) => ({
      id: `bki_${i}`,
      pdq: bytes.subarray(i * 32, i * 32 + 32).toString('hex'),
      sha256: i === 7 ? 'e'.repeat(64) : null,
      md5: i === 8 ? 'f'.repeat(32) : null,
      label: null,
    }));
    const index = new HashIndex(rows);
    const near = Buffer.from(rows[54_321]!.pdq, 'hex');
    for (let b = 0; b < 12; b++) near[b * 2]! ^= 0x80;
    const query = { pdq: near.toString('hex'), sha256: '0'.repeat(64), md5: '0'.repeat(32) };
    expect(index.lookup(query, 31)).toMatchObject({
      row: { id: 'bki_54321' },
      matchedOn: 'pdq',
      distance: 12,
    });
    expect(index.lookup(query, 11)).toBeNull();
    expect(index.lookup({ ...query, sha256: 'e'.repeat(64) }, 31)).toMatchObject({
      row: { id: 'bki_7' },
      matchedOn: 'sha256',
      distance: 0,
    });
    expect(index.lookup({ ...query, md5: 'f'.repeat(32) }, 31)?.matchedOn).toBe('md5');
    expect(index.lookup({ ...query, pdq: null }, 31)).toBeNull();
  });
});
