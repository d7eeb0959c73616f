import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Tensor } from '@tensorflow/tfjs-core';
import sharp from 'sharp';
import type { ImageClassifierSpec } from '../../image-classifiers/manifest.ts';
import { SquarePixels } from '../../image-classifiers/pixels.ts';
import type { ClassifierSet } from '../../image-classifiers/runner.ts';
import { type ClassScores, INPUT_SIZE, readModelArtifacts, scoresFromProbabilities } from './model.ts';

/**
 * One image model worker: its own tfjs wasm backend and model. Messages: `{ id, image }` (encoded bytes) →
 * `{ id, scores }` or `{ id, error, kind }`. Decoding and resizing use sharp here, off the main thread.
 */
export type WorkerRequest =
  | { id: number; image: Uint8Array }
  /** finish the images in hand, release the ONNX sessions, exit (see ImageModelPool.close) */
  | { close: true };
export type WorkerResponse =
  | { id: number; scores: ClassScores }
  | { id: number; error: string; kind: 'decode' | 'model' }
  | { ready: true }
  | { fatal: string };

const port = parentPort!;
const { maxPixels, nice, niceAfterLoad, classifiers } = workerData as {
  maxPixels: number;
  nice: number;
  /** Load the model at normal priority and lower it only then (a worker the service waits for to be ready). */
  niceAfterLoad: boolean;
  /** The operator's ONNX classifiers (VERDICT_IMAGE_CLASSIFIERS), run on the same decoded pixels. */
  classifiers: ImageClassifierSpec[];
};

// Inference is throughput work; the event loop (HTTP, storage) is latency work. On Linux the nice value is per
// thread, so lowering this thread's priority lets the main thread run first whenever both want a core.
function lowerPriority(): void {
  if (nice <= 0) return;
  try {
    os.setPriority(nice);
  } catch {
    // Not permitted here: run at normal priority.
  }
}
if (!niceAfterLoad) lowerPriority();

async function loadModel() {
  // tfjs greets Node users on import with advice to install tfjs-node (which cannot install offline); mute it.
  const warn = console.warn;
  console.warn = () => {};
  try {
    // tfjs-core and tfjs-layers, not the whole of @tensorflow/tfjs (its converter, data API and CPU and WebGL
    // backends are of no use here): a third of the worker's start
    const [tf, layers] = await Promise.all([
      import('@tensorflow/tfjs-core'),
      import('@tensorflow/tfjs-layers'),
      import('@tensorflow/tfjs-backend-wasm'),
    ]);
    await tf.setBackend('wasm');
    await tf.ready();
    const model = await layers.loadLayersModel(tf.io.fromMemory(readModelArtifacts()));
    // Warm-up: the first prediction compiles kernels.
    tf.tidy(() => (model.predict(tf.zeros([1, INPUT_SIZE, INPUT_SIZE, 3])) as Tensor).dataSync());
    return { tf, model };
  } finally {
    console.warn = warn;
  }
}

/** Decodes once, at the largest input size of the bundled model and the classifiers (see SquarePixels). */
async function decode(image: Uint8Array, largest: number): Promise<SquarePixels> {
  const pixels = await sharp(image, { limitInputPixels: maxPixels, pages: 1, failOn: 'error' })
    .rotate()
    .flatten({ background: '#ffffff' })
    .resize(largest, largest, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  return new SquarePixels(largest, pixels);
}

async function modelInput(pixels: SquarePixels): Promise<Float32Array> {
  const bytes = await pixels.at(INPUT_SIZE);
  const input = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) input[i] = bytes[i]! / 255;
  return input;
}

async function loadClassifiers(): Promise<ClassifierSet | null> {
  if (!classifiers || classifiers.length === 0) return null;
  // onnxruntime-node is loaded only when the operator configured classifiers
  const { ClassifierSet } = await import('../../image-classifiers/runner.ts');
  return ClassifierSet.load(classifiers);
}

try {
  const { tf, model } = await loadModel();
  const extra = await loadClassifiers();
  const largest = Math.max(INPUT_SIZE, ...(extra?.sizes() ?? []));
  if (niceAfterLoad) lowerPriority();
  // images in hand, so that a close waits for them: onnxruntime's native sessions must not be torn down under a run
  const running = new Set<Promise<void>>();
  port.on('message', (request: WorkerRequest) => {
    if ('close' in request) {
      // Terminating a thread that holds ONNX sessions could abort the whole process from native code ("terminate
      // called after throwing an instance of 'Napi::Error'"): release them first, then end the thread.
      void Promise.allSettled(running)
        .then(() => extra?.close())
        .catch(() => {})
        .finally(() => process.exit(0));
      return;
    }
    const job = classify(request.id, request.image);
    running.add(job);
    void job.finally(() => running.delete(job));
  });
  async function classify(id: number, image: Uint8Array): Promise<void> {
    let pixels: SquarePixels;
    let input: Float32Array;
    try {
      pixels = await decode(image, largest);
      input = await modelInput(pixels);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message, kind: 'decode' } satisfies WorkerResponse);
      return;
    }
    try {
      const probabilities = tf.tidy(() =>
        (model.predict(tf.tensor4d(input, [1, INPUT_SIZE, INPUT_SIZE, 3])) as Tensor).dataSync(),
      );
      const scores: ClassScores = scoresFromProbabilities(probabilities);
      if (extra) scores.classifiers = await extra.run((size) => pixels.at(size));
      port.postMessage({ id, scores } satisfies WorkerResponse);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message, kind: 'model' } satisfies WorkerResponse);
    }
  }
  port.postMessage({ ready: true } satisfies WorkerResponse);
} catch (error) {
  port.postMessage({ fatal: (error as Error).stack ?? String(error) } satisfies WorkerResponse);
}
