// A short `npm run chaos` (bench/suites/chaos.ts): the compiled service killed with SIGKILL twice under a load of
// checks and asynchronous batches whose events go to an HTTPS receiver, restarted on the same data each time.
// PostgreSQL + Redis: `npm run chaos -- --db postgres` (it empties its Redis database, so not run here beside
// other test files).
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../../bench/suites/lib/chaos.ts';

describe('chaos: SIGKILL under load (SQLite)', () => {
  it('after 2 kills, every 200 has its decision, every batch completes, every event arrives under one ID', async () => {
    const s = await runChaos({
      db: 'sqlite',
      kills: 2,
      seed: 42,
      minUpMs: 1000,
      maxUpMs: 2500,
      concurrency: 4,
      settleMs: 60_000,
    });
    expect(s.missingDecisions).toEqual([]);
    expect(s.incompleteBatches).toEqual([]);
    expect(s.missingEvents).toEqual([]);
    expect(s.splitEvents).toEqual([]);
    expect(s.checksOk).toBeGreaterThan(0);
    expect(s.batchesAccepted).toBeGreaterThan(0);
    expect(s.deliveries).toBeGreaterThanOrEqual(s.checksOk);
    expect(s.lost).toBe(0);
  }, 180_000);
});
