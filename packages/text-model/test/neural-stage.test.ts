import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeContextWeights } from '../src/context-model.ts';
import {
  DEFAULT_CONTEXT_WEIGHTS_URL,
  DEFAULT_NEURAL_WEIGHTS_URL,
  loadTextModel,
  TEXT_CATEGORIES,
} from '../src/index.ts';
import {
  contextFingerprint,
  decodeNeuralWeights,
  encodeNeuralWeights,
  type NeuralWeights,
} from '../src/neural-stage.ts';
import { fitNeural, type NeuralData } from '../training/neural-fit.ts';

const HEADS = [0, 1, 2, 3, 4, 5, 6];
const TEXTS = [
  'you are a stupid idiot',
  'I will kill you',
  'message 21',
  'thanks!',
  'they should all be shot',
  'Check out my holiday pics',
  'go back to your country',
];

/** A third stage whose logits are all 0 (bias only), with the given calibration. */
function zeroStage(
  platt: [number, number][],
  plattByLang: NeuralWeights['header']['plattByLang'],
  contextFingerprint?: string,
): NeuralWeights {
  const bits = 4;
  const dim = 4;
  const hidden = 3;
  return {
    header: {
      format: 1,
      bits,
      pairs: true,
      dim,
      hidden,
      heads: HEADS,
      platt,
      plattByLang,
      contextFingerprint,
      training: {},
    },
    emb: new Float32Array((1 << bits) * dim).fill(0.5),
    w1: new Float32Array(hidden * dim).fill(0.25),
    b1: new Float32Array(hidden),
    w2: new Float32Array(HEADS.length * hidden),
    b2: new Float32Array(HEADS.length),
    wz: new Float32Array(0),
  };
}

function synthetic(n: number, seed: number): NeuralData {
  let s = seed;
  const r = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const offsets = [0];
  const feats: number[] = [];
  const z12: number[] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = Math.floor(r() * 64);
    const b = Math.floor(r() * 64);
    feats.push(a, b, (a * 31 + b) % 1024);
    offsets.push(feats.length);
    // an interaction: positive exactly when both features are "odd"
    for (const _ of HEADS) {
      z12.push(0);
      labels.push(a % 2 === 1 && b % 2 === 1 ? 1 : 0);
    }
  }
  return {
    heads: HEADS,
    offsets: Int32Array.from(offsets),
    feats: Int32Array.from(feats),
    z12: Float64Array.from(z12),
    labels: Int8Array.from(labels),
    weights: new Float32Array(n).fill(1),
  };
}

const FIT = {
  bits: 10,
  pairs: true,
  dim: 8,
  hidden: 8,
  epochs: 3,
  lr: 0.05,
  l2: 1e-6,
  seed: 7,
  initScale: 0.1,
};

describe('third stage (neural)', () => {
  it('weights round-trip through the float16 file; a truncated file is an error', () => {
    const w = fitNeural(synthetic(300, 1), FIT, () => {});
    const bytes = encodeNeuralWeights(w);
    const back = decodeNeuralWeights(bytes);
    expect(back.header.dim).toBe(8);
    expect(back.emb.length).toBe(1024 * 8);
    for (const [a, b] of [
      [w.w1, back.w1],
      [w.w2, back.w2],
    ] as const)
      for (let i = 0; i < a.length; i++)
        expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(2e-3 * Math.max(1, Math.abs(a[i]!)));
    expect(() => decodeNeuralWeights(bytes.subarray(0, bytes.length - 10))).toThrow(/truncated/);
  });

  it('training is deterministic for a seed, and learns an interaction a linear model cannot', () => {
    const data = synthetic(2000, 3);
    const a = fitNeural(data, FIT, () => {});
    const b = fitNeural(data, FIT, () => {});
    expect(encodeNeuralWeights(a)).toEqual(encodeNeuralWeights(b));
    expect(encodeNeuralWeights(fitNeural(data, { ...FIT, seed: 8 }, () => {}))).not.toEqual(
      encodeNeuralWeights(a),
    );
    // held-out synthetic texts: positive iff both tokens are odd (XOR-like over the token pair)
    const w = decodeNeuralWeights(encodeNeuralWeights(fitNeural(data, { ...FIT, epochs: 8 }, () => {})));
    const test = synthetic(400, 99);
    let correct = 0;
    for (let i = 0; i < 400; i++) {
      // the runtime's layers (NeuralStage.window) on the pooled embeddings of the synthetic features
      const f = test.feats.subarray(test.offsets[i]!, test.offsets[i + 1]!);
      const e = new Float64Array(8);
      for (const x of f) for (let d = 0; d < 8; d++) e[d]! += w.emb[x * 8 + d]! / f.length;
      let z = w.b2[0]!;
      for (let j = 0; j < 8; j++) {
        let v = w.b1[j]!;
        for (let d = 0; d < 8; d++) v += w.w1[j * 8 + d]! * e[d]!;
        z += w.w2[j]! * Math.max(0, v);
      }
      if (z > 0 === (test.labels[i * HEADS.length] === 1)) correct++;
    }
    expect(correct / 400).toBeGreaterThan(0.85);
  });

  it('a missing weights file runs the first two stages, as before', () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'verdict-nn-')), 'neural-model.bin');
    const a = loadTextModel({ neuralWeightsPath: missing });
    const b = loadTextModel({ neuralWeightsPath: null });
    for (const t of TEXTS) expect(a.classify(t)).toEqual(b.classify(t));
    expect(a.version).toBe(b.version);
  });

  it('a third stage that adds 0 with the second stage calibration changes no score', () => {
    const ctxBytes = readFileSync(DEFAULT_CONTEXT_WEIGHTS_URL);
    const ctx = decodeContextWeights(new Uint8Array(ctxBytes));
    const sha = contextFingerprint(new Uint8Array(ctxBytes));
    const file = join(mkdtempSync(join(tmpdir(), 'verdict-nn-')), 'neural-model.bin');
    writeFileSync(file, encodeNeuralWeights(zeroStage(ctx.header.platt, ctx.header.plattByLang, sha)));
    const two = loadTextModel({ neuralWeightsPath: null });
    const three = loadTextModel({ neuralWeightsPath: file });
    for (const t of TEXTS)
      for (const language of ['en', 'de', 'ja'] as const) {
        const x = two.classify(t, { language }).scores;
        const y = three.classify(t, { language }).scores;
        for (const c of TEXT_CATEGORIES) expect(y[c]).toBeCloseTo(x[c], 12);
      }
    const counts = (three as any).stageCounts;
    expect(counts.thirdStage).toBe(counts.secondStage);
    expect(counts.thirdStage).toBeGreaterThan(0);
  });

  it('a weights file trained on another second stage, or without one, is an error', () => {
    const ctx = decodeContextWeights(new Uint8Array(readFileSync(DEFAULT_CONTEXT_WEIGHTS_URL)));
    const file = join(mkdtempSync(join(tmpdir(), 'verdict-nn-')), 'neural-model.bin');
    writeFileSync(file, encodeNeuralWeights(zeroStage(ctx.header.platt, undefined, '0'.repeat(64))));
    expect(() => loadTextModel({ neuralWeightsPath: file })).toThrow(/another second stage/);
    expect(() => loadTextModel({ neuralWeightsPath: file, contextWeightsPath: null })).toThrow(
      /needs the second stage/,
    );
    // without naming a third stage, `contextWeightsPath: null` still runs the first stage alone
    const first = loadTextModel({ contextWeightsPath: null });
    first.classify('you are a stupid idiot');
    expect((first as any).stageCounts.secondStage).toBe(0);
  });

  it.runIf(existsSync(fileURLToPath(DEFAULT_NEURAL_WEIGHTS_URL)))(
    'the bundled third stage loads, scores the gated texts and is deterministic',
    () => {
      const a = loadTextModel();
      const b = loadTextModel();
      for (const t of TEXTS) expect(a.classify(t)).toEqual(b.classify(t));
      const counts = (a as any).stageCounts;
      expect(counts.thirdStage).toBeGreaterThan(0);
      expect(counts.thirdStage).toBeLessThanOrEqual(counts.secondStage);
    },
  );
});
