import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import sharp from 'sharp';
import { INPUT_SIZE, readModelArtifacts, scoresFromProbabilities } from './model.ts';

/**
 * One image model worker: its own tfjs wasm backend and model. Messages: `{ id, image }` (encoded bytes) →
 * `{ id, scores }` or `{ id, error, kind }`. Decoding and resizing use sharp here, off the main thread.
 */
export interface WorkerRequest {
  id: number;
  image: Uint8Array;
}
export type WorkerResponse =
  | { id: number; scores: ReturnType<typeof scoresFromProbabilities> }
  | { id: number; error: string; kind: 'decode' | 'model' }
  | { ready: true }
  | { fatal: string };

const port = parentPort!;
const { maxPixels, nice } = workerData as { maxPixels: number; nice: number };

// Inference is throughput work; the event loop (HTTP, storage) is latency work. On Linux the nice value is per
// thread, so lowering this thread's priority lets the main thread run first whenever both want a core.
if (nice > 0) {
  try {
    os.setPriority(nice);
  } catch {
    // Not permitted here: run at normal priority.
  }
}

async function loadModel() {
  // tfjs greets Node users on import with advice to install tfjs-node (which cannot install offline); mute it.
  const warn = console.warn;
  console.warn = () => {};
  try {
    const tf = await import('@tensorflow/tfjs');
    await import('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
    await tf.ready();
    const model = await tf.loadLayersModel(tf.io.fromMemory(readModelArtifacts()));
    // Warm-up: the first prediction compiles kernels.
    tf.tidy(() =>
      (
        model.predict(tf.zeros([1, INPUT_SIZE, INPUT_SIZE, 3])) as import('@tensorflow/tfjs').Tensor
      ).dataSync(),
    );
    return { tf, model };
  } finally {
    console.warn = warn;
  }
}

async function decode(image: Uint8Array): Promise<Float32Array> {
  const pixels = await sharp(image, { limitInputPixels: maxPixels, pages: 1, failOn: 'error' })
    .rotate()
    .flatten({ background: '#ffffff' })
    .resize(INPUT_SIZE, INPUT_SIZE, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  const input = new Float32Array(pixels.length);
  for (let i = 0; i < pixels.length; i++) input[i] = pixels[i]! / 255;
  return input;
}

try {
  const { tf, model } = await loadModel();
  port.on('message', async ({ id, image }: WorkerRequest) => {
    let input: Float32Array;
    try {
      input = await decode(image);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message, kind: 'decode' } satisfies WorkerResponse);
      return;
    }
    try {
      const probabilities = tf.tidy(() =>
        (
          model.predict(
            tf.tensor4d(input, [1, INPUT_SIZE, INPUT_SIZE, 3]),
          ) as import('@tensorflow/tfjs').Tensor
        ).dataSync(),
      );
      port.postMessage({ id, scores: scoresFromProbabilities(probabilities) } satisfies WorkerResponse);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message, kind: 'model' } satisfies WorkerResponse);
    }
  });
  port.postMessage({ ready: true } satisfies WorkerResponse);
} catch (error) {
  port.postMessage({ fatal: (error as Error).stack ?? String(error) } satisfies WorkerResponse);
}
