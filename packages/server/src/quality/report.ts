import type { CategoryName } from '../domain/taxonomy.ts';

/**
 * One human label of one category of one reviewed decision: the model's score and whether the automated decision
 * triggered the category, against whether the reviewer said the category applies.
 */
export interface LabelledScore {
  category: CategoryName;
  score: number;
  /** The automated decision triggered the category (score ≥ the policy's threshold at the time). */
  predicted: boolean;
  /** The reviewer said the category applies. */
  actual: boolean;
}

export interface CategoryQuality {
  category: CategoryName;
  /** Reviewed decisions that carry a label for this category. */
  labelled: number;
  /** Of them, the reviewer said it applies. */
  positives: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  /** TP / (TP + FP); null when the automated decision never triggered the category. */
  precision: number | null;
  /** TP / (TP + FN); null when the reviewers never said the category applies. */
  recall: number | null;
  /** 95 % Wilson intervals: with few labels they are wide, and the report says so rather than a bare ratio. */
  precisionInterval: [number, number] | null;
  recallInterval: [number, number] | null;
  /**
   * The lowest threshold at which the decisions scoring at or above it would have met the target precision, with
   * the precision and recall it would have had on these labels; null when no threshold meets it.
   */
  suggestedThreshold: { threshold: number; precision: number; recall: number; support: number } | null;
}

/** The 95 % Wilson score interval of `hits` successes in `n` trials. */
export function wilson(hits: number, n: number, z = 1.96): [number, number] | null {
  if (n === 0) return null;
  const p = hits / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/**
 * Walks the labels from the highest score down; at each distinct score, the decisions at or above it are what a
 * threshold there would trigger. Returns the lowest such threshold whose precision meets `target` (the lowest
 * keeps the most recall), requiring at least `minSupport` triggered decisions so one lucky label cannot set it.
 */
export function thresholdFor(
  labels: readonly LabelledScore[],
  target: number,
  minSupport = 5,
): CategoryQuality['suggestedThreshold'] {
  const sorted = [...labels].sort((a, b) => b.score - a.score);
  const positives = sorted.filter((l) => l.actual).length;
  if (positives === 0) return null;
  let tp = 0;
  let n = 0;
  let best: CategoryQuality['suggestedThreshold'] = null;
  for (let i = 0; i < sorted.length; i++) {
    const label = sorted[i]!;
    n++;
    if (label.actual) tp++;
    // only at the last label of a run of equal scores: a threshold cannot split equal scores
    if (i + 1 < sorted.length && sorted[i + 1]!.score === label.score) continue;
    const precision = tp / n;
    if (n >= minSupport && precision >= target) {
      best = {
        threshold: Math.round(label.score * 10_000) / 10_000,
        precision: Math.round(precision * 10_000) / 10_000,
        recall: Math.round((tp / positives) * 10_000) / 10_000,
        support: n,
      };
    }
  }
  return best;
}

/** Per category, the automated decision against the reviewers: "the model on your data". */
export function qualityReport(labels: readonly LabelledScore[], targetPrecision: number): CategoryQuality[] {
  const byCategory = new Map<CategoryName, LabelledScore[]>();
  for (const label of labels) {
    const list = byCategory.get(label.category) ?? [];
    list.push(label);
    byCategory.set(label.category, list);
  }
  const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 10_000) / 10_000);
  return [...byCategory.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, list]) => {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (const l of list) {
        if (l.predicted && l.actual) tp++;
        else if (l.predicted) fp++;
        else if (l.actual) fn++;
      }
      return {
        category,
        labelled: list.length,
        positives: tp + fn,
        truePositives: tp,
        falsePositives: fp,
        falseNegatives: fn,
        precision: ratio(tp, tp + fp),
        recall: ratio(tp, tp + fn),
        precisionInterval: wilson(tp, tp + fp),
        recallInterval: wilson(tp, tp + fn),
        suggestedThreshold: thresholdFor(list, targetPrecision),
      };
    });
}
