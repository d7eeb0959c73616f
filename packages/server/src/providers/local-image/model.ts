import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import type * as tfTypes from '@tensorflow/tfjs-core';
import type { ClassifierOutput } from '../../image-classifiers/runner.ts';

/**
 * The bundled image model: nsfwjs' MobileNetV2 (224×224 input, five softmax classes), read straight from the
 * files shipped inside the `nsfwjs` package and built from memory. nsfwjs' own loader converts the base64 weights
 * byte by byte through a binary string, which takes seconds and hundreds of MB; `Buffer.from(base64)` does not.
 */
export const MODEL_NAME = 'mobilenet_v2';
export const INPUT_SIZE = 224;
/** Output order of the model (nsfwjs `NSFW_CLASSES`). */
export const CLASSES = ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'] as const;

const require = createRequire(import.meta.url);

function nsfwjsDir(): string {
  // `main` is dist/cjs/index.js; the models live in dist/models.
  return path.resolve(path.dirname(require.resolve('nsfwjs')), '..', 'models', MODEL_NAME);
}

export function nsfwjsVersion(): string {
  const pkg = path.resolve(path.dirname(require.resolve('nsfwjs')), '..', '..', 'package.json');
  return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
}

export const MODEL_VERSION = `nsfwjs-${nsfwjsVersion()}/${MODEL_NAME}`;

/**
 * The model files are browserify bundles whose only module does `module.exports = <object literal | base64>`.
 * They come from the installed package (trusted code), and run in an empty context with no access to Node.
 */
function evalBundle(file: string): unknown {
  const sandbox = { module: { exports: {} as unknown }, exports: {} };
  vm.runInNewContext(fs.readFileSync(file, 'utf8'), sandbox, { filename: file });
  const value = sandbox.module.exports;
  // Re-create objects in this realm: tfjs checks arrays with iterators that differ across vm contexts.
  return typeof value === 'string' ? value : JSON.parse(JSON.stringify(value));
}

interface ModelJson {
  modelTopology: object;
  weightsManifest: Array<{ paths: string[]; weights: tfTypes.io.WeightsManifestEntry[] }>;
  format?: string;
  generatedBy?: string;
  convertedBy?: string;
}

/** Reads the model topology and weights from the nsfwjs package into tfjs model artifacts. */
export function readModelArtifacts(): tfTypes.io.ModelArtifacts {
  const dir = nsfwjsDir();
  const json = evalBundle(path.join(dir, 'model.min.js')) as ModelJson;
  const shards: Buffer[] = [];
  const weightSpecs: tfTypes.io.WeightsManifestEntry[] = [];
  for (const group of json.weightsManifest) {
    for (const shard of group.paths) {
      const base64 = evalBundle(path.join(dir, `${shard}.min.js`));
      if (typeof base64 !== 'string') throw new Error(`weight shard ${shard} is not base64`);
      shards.push(Buffer.from(base64, 'base64'));
    }
    weightSpecs.push(...group.weights);
  }
  const weights = Buffer.concat(shards);
  return {
    modelTopology: json.modelTopology,
    format: json.format,
    generatedBy: json.generatedBy,
    convertedBy: json.convertedBy,
    weightSpecs,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
}

export interface ClassScores {
  /** P(explicit) = P(Porn) + P(Hentai): the classes are mutually exclusive, so the sum is itself a probability. */
  sexual: number;
  /** P(Sexy): revealing but not explicit. */
  suggestive: number;
  /** Every class probability as the model gave it. */
  raw: Record<string, number>;
  /** The operator's ONNX classifiers' scores, when any are configured. */
  classifiers?: ClassifierOutput;
}

export function scoresFromProbabilities(probabilities: ArrayLike<number>): ClassScores {
  const raw: Record<string, number> = {};
  CLASSES.forEach((name, i) => {
    raw[name] = Math.round((probabilities[i] ?? 0) * 1e6) / 1e6;
  });
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  return {
    sexual: clamp((raw.Porn ?? 0) + (raw.Hentai ?? 0)),
    suggestive: clamp(raw.Sexy ?? 0),
    raw,
  };
}
