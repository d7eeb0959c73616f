import { beforeAll, describe, expect, it } from 'vitest';
import { loadTextModel, type TextModel } from '../src/index.ts';
import { countFlagged } from '../training/spot-checks.ts';

// The spot checks of training/experiments/ (team-written, in no training file), under the `default` policy's
// thresholds. They hold what text models v7.2–v7.5 fixed against a retraining that undoes it: v7.1 flagged 43 of the
// 62 short benign mentions of groups and 27 of the 50 compliments; v7.2–v7.5 flag 19–30 and 7–12 across trials.
let model: TextModel;
beforeAll(() => {
  model = loadTextModel();
});

/** Flags of one check file, which must hold `n` texts, within [min, max]. */
function expectFlagged(file: string, n: number, bounds: { min?: number; max?: number }): void {
  const counted = countFlagged(model, file);
  expect(counted.n, file).toBe(n);
  expect(counted.flagged, file).toBeGreaterThanOrEqual(bounds.min ?? 0);
  expect(counted.flagged, file).toBeLessThanOrEqual(bounds.max ?? n);
}

describe('spot checks', () => {
  it('short benign mentions of groups are mostly not flagged', () => {
    expectFlagged('identity-terms-check.tsv', 62, { max: 30 });
  });

  it('plain compliments are mostly not flagged; harassment that opens like one still is', () => {
    expectFlagged('compliments-check.tsv', 50, { max: 15 });
    expectFlagged('compliment-harassment-check.tsv', 25, { min: 22 });
  });

  it('stereotypes without slurs and casual requests for methods are mostly flagged; talk about them mostly not', () => {
    // v7.1–v7.4 flagged 26–30 of the 36 and 4–5 of the 23 contrasts across trials
    expectFlagged('stereotypes-check.tsv', 36, { min: 24 });
    expectFlagged('stereotype-contrasts-check.tsv', 23, { max: 7 });
  });
});
