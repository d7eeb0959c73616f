/** Evaluation metrics (ROC-AUC by rank statistic, precision/recall/F1, macro-F1, reliability bins). */

export function rocAuc(scores: number[], labels: number[]): number {
  const idx = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let rankSum = 0;
  let nPos = 0;
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1]!] === scores[idx[i]!]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++)
      if (labels[idx[k]!] === 1) {
        rankSum += avgRank;
        nPos++;
      }
    i = j + 1;
  }
  const nNeg = labels.length - nPos;
  if (nPos === 0 || nNeg === 0) return Number.NaN;
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
  macroF1: number;
  accuracy: number;
}

export function prf(scores: number[], labels: number[], threshold = 0.5): Prf {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (let i = 0; i < scores.length; i++) {
    const p = scores[i]! >= threshold;
    const y = labels[i] === 1;
    if (p && y) tp++;
    else if (p) fp++;
    else if (y) fn++;
    else tn++;
  }
  const f = (a: number, b: number, c: number) => {
    const prec = a + b === 0 ? 0 : a / (a + b);
    const rec = a + c === 0 ? 0 : a / (a + c);
    return { prec, rec, f1: prec + rec === 0 ? 0 : (2 * prec * rec) / (prec + rec) };
  };
  const pos = f(tp, fp, fn);
  const neg = f(tn, fn, fp);
  return {
    precision: pos.prec,
    recall: pos.rec,
    f1: pos.f1,
    macroF1: (pos.f1 + neg.f1) / 2,
    accuracy: (tp + tn) / Math.max(1, scores.length),
  };
}

/** Threshold maximising macro-F1 (searched on a validation split only). */
export function bestThreshold(
  scores: number[],
  labels: number[],
  metric: 'macroF1' | 'f1' = 'macroF1',
): number {
  let best = 0.5;
  let bestV = -1;
  for (let t = 0.05; t <= 0.951; t += 0.01) {
    const v = prf(scores, labels, t)[metric];
    if (v > bestV) {
      bestV = v;
      best = Math.round(t * 100) / 100;
    }
  }
  return best;
}

export function reliability(
  scores: number[],
  labels: number[],
  bins = 10,
): { lo: number; hi: number; n: number; meanP: number; rate: number }[] {
  const out = [];
  for (let b = 0; b < bins; b++) {
    const lo = b / bins;
    const hi = (b + 1) / bins;
    let n = 0;
    let sp = 0;
    let sy = 0;
    for (let i = 0; i < scores.length; i++) {
      const s = scores[i]!;
      if (s >= lo && (s < hi || (b === bins - 1 && s <= hi))) {
        n++;
        sp += s;
        sy += labels[i]!;
      }
    }
    out.push({ lo, hi, n, meanP: n ? sp / n : Number.NaN, rate: n ? sy / n : Number.NaN });
  }
  return out;
}

export function ece(scores: number[], labels: number[], bins = 10): number {
  let e = 0;
  for (const b of reliability(scores, labels, bins))
    if (b.n > 0) e += (b.n / scores.length) * Math.abs(b.meanP - b.rate);
  return e;
}

/** Area under the precision-recall curve (average precision: precision at each positive, in score order). */
export function auprc(scores: number[], labels: number[]): number {
  const idx = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  const nPos = labels.filter((y) => y === 1).length;
  if (nPos === 0) return Number.NaN;
  let tp = 0;
  let sum = 0;
  idx.forEach((i, rank) => {
    if (labels[i] === 1) {
      tp++;
      sum += tp / (rank + 1);
    }
  });
  return sum / nPos;
}
