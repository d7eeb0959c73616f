import { describe, expect, it } from 'vitest';
import { type LabelledScore, qualityReport, thresholdFor, wilson } from '../src/quality/report.ts';

const label = (score: number, actual: boolean, threshold = 0.5): LabelledScore => ({
  category: 'hate',
  score,
  predicted: score >= threshold,
  actual,
});

describe('the quality report arithmetic', () => {
  it('counts precision and recall of the automated decision against the reviewers', () => {
    const labels = [
      label(0.9, true),
      label(0.8, true),
      label(0.7, false), // false positive
      label(0.4, true), // false negative
      label(0.1, false),
    ];
    const [hate] = qualityReport(labels, 0.9);
    expect(hate).toMatchObject({
      category: 'hate',
      labelled: 5,
      positives: 3,
      truePositives: 2,
      falsePositives: 1,
      falseNegatives: 1,
      precision: 0.6667,
      recall: 0.6667,
    });
    expect(hate!.precisionInterval![0]).toBeLessThan(0.6667);
    expect(hate!.precisionInterval![1]).toBeGreaterThan(0.6667);
  });

  it('suggests the lowest threshold that meets the target precision, never splitting equal scores', () => {
    // above 0.75 every label is right; 0.7 and below mixes in wrong ones
    const labels = [
      ...[0.95, 0.9, 0.85, 0.8, 0.78, 0.76].map((s) => label(s, true)),
      label(0.7, false),
      label(0.7, true),
      label(0.6, false),
      label(0.55, false),
      label(0.3, true),
    ];
    expect(thresholdFor(labels, 1)).toEqual({ threshold: 0.76, precision: 1, recall: 0.75, support: 6 });
    // 0.875 precision allows the pair at 0.7 (7 of 8) but not 0.6 (7 of 9)
    expect(thresholdFor(labels, 0.85)).toEqual({
      threshold: 0.7,
      precision: 0.875,
      recall: 0.875,
      support: 8,
    });
    // too few triggered decisions to trust: no suggestion
    expect(thresholdFor(labels.slice(0, 3), 1)).toBeNull();
    // nothing a reviewer confirmed: nothing to suggest
    expect(thresholdFor([label(0.9, false), label(0.8, false)], 0.5)).toBeNull();
  });

  it('gives Wilson intervals that narrow with more labels', () => {
    const few = wilson(8, 10)!;
    const many = wilson(800, 1000)!;
    expect(few[1] - few[0]).toBeGreaterThan(many[1] - many[0]);
    expect(many[0]).toBeLessThan(0.8);
    expect(many[1]).toBeGreaterThan(0.8);
    expect(wilson(0, 0)).toBeNull();
  });
});
