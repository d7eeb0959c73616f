import { createHash } from 'node:crypto';
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import type { CategoryName } from '../domain/taxonomy.ts';
import type { ImageClassifierSpec } from './manifest.ts';

/** What the operator's classifiers said about one image. */
export interface ClassifierOutput {
  /** Per Verdict category: the largest probability among the labels mapped to it, over every classifier. */
  scores: Partial<Record<CategoryName, number>>;
  /** Per classifier, per label: the probability as computed from the model's output. */
  labels: Record<string, Record<string, number>>;
}

/** RGB pixels, 3 bytes per pixel, row by row, of a size × size image. */
export type PixelsAt = (size: number) => Promise<Uint8Array>;

interface Loaded {
  spec: ImageClassifierSpec;
  session: ort.InferenceSession;
  inputName: string;
  outputName: string;
}

/**
 * The operator's ONNX image classifiers, loaded by one image worker thread (onnxruntime-node, CPU). Each session
 * uses one thread: the pool already runs one worker per core, and more threads per session would only contend.
 */
export class ClassifierSet {
  private constructor(private readonly loaded: Loaded[]) {}

  static async load(specs: readonly ImageClassifierSpec[]): Promise<ClassifierSet> {
    const loaded: Loaded[] = [];
    for (const spec of specs) {
      // The digest again, on the very bytes loaded: a worker started later (or replaced) must not run a file that
      // changed since the start-up check.
      const bytes = fs.readFileSync(spec.modelFile);
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (digest !== spec.sha256)
        throw new Error(
          `image classifier "${spec.name}": ${spec.modelFile} has SHA-256 ${digest}, not ${spec.sha256}`,
        );
      let session: ort.InferenceSession;
      try {
        session = await ort.InferenceSession.create(bytes, {
          intraOpNumThreads: 1,
          interOpNumThreads: 1,
          executionMode: 'sequential',
          graphOptimizationLevel: 'all',
        });
      } catch (error) {
        throw new Error(
          `image classifier "${spec.name}": ${spec.modelFile} is not a loadable ONNX model: ${message(error)}`,
        );
      }
      const item: Loaded = {
        spec,
        session,
        inputName: session.inputNames[0]!,
        outputName: session.outputNames[0]!,
      };
      // A first run on a blank image checks that the input size and the labels agree with the model (and warms it).
      const values = await runOne(item, new Uint8Array(spec.size * spec.size * 3)).catch((error) => {
        throw new Error(
          `image classifier "${spec.name}": the model does not take a ${inputShape(spec).join('×')} input: ${message(error)}`,
        );
      });
      if (values.length !== spec.labels.length)
        throw new Error(
          `image classifier "${spec.name}": the model gives ${values.length} outputs, the manifest lists ${spec.labels.length} labels`,
        );
      loaded.push(item);
    }
    return new ClassifierSet(loaded);
  }

  /** The input sizes the classifiers need. */
  sizes(): number[] {
    return [...new Set(this.loaded.map((l) => l.spec.size))];
  }

  async run(pixelsAt: PixelsAt): Promise<ClassifierOutput> {
    const out: ClassifierOutput = { scores: {}, labels: {} };
    for (const item of this.loaded) {
      const probabilities = toProbabilities(
        await runOne(item, await pixelsAt(item.spec.size)),
        item.spec.output,
      );
      const byLabel: Record<string, number> = {};
      item.spec.labels.forEach((label, i) => {
        byLabel[label] = round(probabilities[i]!);
      });
      out.labels[item.spec.name] = byLabel;
      for (const [category, indexes] of Object.entries(item.spec.categories) as [CategoryName, number[]][]) {
        const score = Math.max(...indexes.map((i) => round(probabilities[i]!)));
        out.scores[category] = Math.max(out.scores[category] ?? 0, score);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.loaded.map((l) => l.session.release()));
  }
}

function inputShape(spec: ImageClassifierSpec): number[] {
  return spec.layout === 'nchw' ? [1, 3, spec.size, spec.size] : [1, spec.size, spec.size, 3];
}

/** Scales, normalises and lays out the pixels as the manifest says, runs the model, returns its first output. */
async function runOne(item: Loaded, rgb: Uint8Array): Promise<Float32Array> {
  const { spec } = item;
  const area = spec.size * spec.size;
  const data = new Float32Array(area * 3);
  for (let c = 0; c < 3; c++) {
    // the model's channel c is which of the RGB bytes
    const source = spec.channels === 'rgb' ? c : 2 - c;
    const mean = spec.mean[c]!;
    const std = spec.std[c]!;
    for (let p = 0; p < area; p++) {
      const value = (rgb[p * 3 + source]! / 255 - mean) / std;
      data[spec.layout === 'nchw' ? c * area + p : p * 3 + c] = value;
    }
  }
  const results = await item.session.run({
    [item.inputName]: new ort.Tensor('float32', data, inputShape(spec)),
  });
  const output = results[item.outputName]!;
  try {
    if (output.type !== 'float32') throw new Error(`the output is ${output.type}, not float32`);
    // a copy: the tensor's memory goes with dispose()
    return Float32Array.from(output.data as Float32Array);
  } finally {
    for (const tensor of Object.values(results)) tensor.dispose();
  }
}

export function toProbabilities(values: ArrayLike<number>, kind: ImageClassifierSpec['output']): number[] {
  const list = Array.from(values);
  if (kind === 'sigmoid') return list.map((v) => 1 / (1 + Math.exp(-v)));
  if (kind === 'probabilities')
    return list.map((v) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0));
  const max = Math.max(...list);
  const exps = list.map((v) => Math.exp(v - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

const round = (v: number) => Math.round((Number.isFinite(v) ? v : 0) * 1e6) / 1e6;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
