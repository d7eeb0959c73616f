/**
 * Hash-bank lookups: the time of one PDQ lookup (nearest within 31 bits, plus the exact-digest maps) in banks of
 * 10^4 … 10^6 random hashes on one core, against a baseline measured in the same run: the same scan with BigInt
 * XOR and bit counting (what a straightforward implementation would do).
 *   node --import tsx bench/bank-index.ts [lookups]
 * Target (issue 20): < 20 ms per lookup at 1,000,000 hashes.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { HashIndex } from '../packages/server/src/banks/hash-index.ts';
import type { IndexRow } from '../packages/server/src/storage/repositories/banks.ts';

const lookups = Number(process.argv[2] ?? 50);

function rows(n: number): IndexRow[] {
  const out: IndexRow[] = new Array(n);
  const bytes = randomBytes(n * 32);
  for (let i = 0; i < n; i++) {
    const pdq = bytes.subarray(i * 32, i * 32 + 32).toString('hex');
    out[i] = { id: `bki_${i}`, pdq, sha256: null, md5: null, label: null };
  }
  return out;
}

function bigintScan(hashes: bigint[], q: bigint, max: number): number {
  let best = max + 1;
  for (const h of hashes) {
    let x = h ^ q;
    let d = 0;
    while (x > 0n) {
      x &= x - 1n;
      d++;
    }
    if (d < best) best = d;
  }
  return best;
}

for (const n of [10_000, 100_000, 1_000_000]) {
  const data = rows(n);
  const built = performance.now();
  const index = new HashIndex(data);
  const buildMs = performance.now() - built;
  const queries = Array.from({ length: lookups }, () => ({
    pdq: randomBytes(32).toString('hex'),
    sha256: randomBytes(32).toString('hex'),
    md5: randomBytes(16).toString('hex'),
  }));
  // a planted near-duplicate: the last item with 10 bits flipped must be found
  const planted = Buffer.from(data[n - 1]!.pdq!, 'hex');
  for (let b = 0; b < 10; b++) planted[b * 3]! ^= 1;
  const hit = index.lookup({ pdq: planted.toString('hex'), sha256: '', md5: '' }, 31);
  if (hit?.row.id !== `bki_${n - 1}` || hit.distance !== 10)
    throw new Error('planted near-duplicate not found');
  const t0 = performance.now();
  for (const q of queries) index.lookup(q, 31);
  const perLookup = (performance.now() - t0) / lookups;
  const big = data.map((r) => BigInt(`0x${r.pdq}`));
  const baseLookups = Math.max(3, Math.floor(lookups / 10));
  const t1 = performance.now();
  for (let i = 0; i < baseLookups; i++) bigintScan(big, BigInt(`0x${queries[i]!.pdq}`), 31);
  const perBase = (performance.now() - t1) / baseLookups;
  console.log(
    `${n.toLocaleString('en')} hashes: ${perLookup.toFixed(2)} ms per lookup (index built in ${buildMs.toFixed(0)} ms); ` +
      `BigInt baseline ${perBase.toFixed(1)} ms; ${(perBase / perLookup).toFixed(1)}× faster`,
  );
}
