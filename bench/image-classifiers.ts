/**
 * The cost of an operator ONNX image classifier (VERDICT_IMAGE_CLASSIFIERS): the image worker pool with the bundled
 * model alone against the same pool with one small classifier (a two-layer convolutional net at 224 px, written by
 * the test helpers), on the same photos, in one run: milliseconds per image one at a time, and images per second
 * with every worker busy. Rounds alternate between the two pools so that other load on the machine hits both.
 *   node --import tsx bench/image-classifiers.ts [seconds per round] [rounds]
 * With VERDICT_IMAGE_CLASSIFIERS set, your own classifiers are measured instead.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../packages/server/src/config.ts';
import { MAX_IMAGE_PIXELS } from '../packages/server/src/media/image.ts';
import { ImageModelPool } from '../packages/server/src/providers/local-image/pool.ts';
import { tempDir } from '../packages/server/test/helpers/databases.ts';
import { smallConvModel, writeClassifier } from '../packages/server/test/helpers/onnx.ts';
import { makePhotos } from './lib/images.ts';

const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 2);
const size = os.availableParallelism();

const dir = tempDir('verdict-bench-classifiers-');
writeClassifier(dir, 'small-conv', smallConvModel(224, 4), {
  input: { size: 224, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
  output: 'softmax',
  labels: ['neutral', 'a', 'b', 'c'],
  categories: { violence: ['a', 'b'], hate: 'c' },
});
const { config } = loadConfig({
  VERDICT_IMAGE_CLASSIFIERS: process.env.VERDICT_IMAGE_CLASSIFIERS ?? path.join(dir, 'small-conv.json'),
});

const pools = {
  none: new ImageModelPool({ size, maxPixels: MAX_IMAGE_PIXELS }),
  one: new ImageModelPool({
    size,
    maxPixels: MAX_IMAGE_PIXELS,
    classifiers: config.imageClassifiers!.classifiers,
    // the cost is measured here, not the bound: a busy machine must not fail the images
    timeoutMs: 600_000,
  }),
};
const images = await makePhotos(16, { rect: true });
for (const [name, pool] of Object.entries(pools)) {
  const started = performance.now();
  await pool.start();
  console.log(`${name}: ${size} workers loaded in ${Math.round(performance.now() - started)} ms`);
  for (const image of images) await pool.classify(image); // warm-up
}

/** Keeps `concurrency` images in flight for `secs` seconds; returns images/s and the mean latency. */
async function measure(pool: ImageModelPool, secs: number, concurrency: number) {
  let done = 0;
  let next = 0;
  let latency = 0;
  const deadline = performance.now() + secs * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await pool.classify(images[next++ % images.length]!);
        latency += performance.now() - t;
        done++;
      }
    }),
  );
  return { perSecond: done / ((performance.now() - started) / 1000), msPerImage: latency / done };
}

/** The classifier alone, in this thread, on ready pixels: its own inference cost without the pool around it. */
async function classifierAlone(runs: number): Promise<{ median: number; p10: number }> {
  const { ClassifierSet } = await import('../packages/server/src/image-classifiers/runner.ts');
  const set = await ClassifierSet.load(config.imageClassifiers!.classifiers);
  const ready = new Map(
    set.sizes().map((size) => [size, new Uint8Array(size * size * 3).map((_, i) => (i * 37) % 256)]),
  );
  const pixels = (size: number) => ready.get(size)!;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await set.run(async (size) => pixels(size));
    times.push(performance.now() - t);
  }
  await set.close();
  times.sort((a, b) => a - b);
  // on a shared machine the fastest runs are the closest to the uncontended cost
  return { median: times[Math.floor(runs / 2)]!, p10: times[Math.floor(runs / 10)]! };
}

const totals = { none: { ms: 0, ips: 0 }, one: { ms: 0, ips: 0 } };
for (let round = 1; round <= rounds; round++) {
  for (const name of ['none', 'one'] as const) {
    const single = await measure(pools[name], seconds, 1);
    const busy = await measure(pools[name], seconds, size * 2);
    totals[name].ms += single.msPerImage / rounds;
    totals[name].ips += busy.perSecond / rounds;
    console.log(
      `round ${round} ${name}: ${single.msPerImage.toFixed(1)} ms/image alone, ${busy.perSecond.toFixed(1)} images/s busy`,
    );
  }
}
const check = (await pools.one.classify(images[0]!)).classifiers;
console.log(`classifier output on a photo: ${JSON.stringify(check)}`);
console.log(
  `bundled model alone: ${totals.none.ms.toFixed(1)} ms/image, ${totals.none.ips.toFixed(1)} images/s; ` +
    `+ one small classifier: ${totals.one.ms.toFixed(1)} ms/image (+${(totals.one.ms - totals.none.ms).toFixed(1)} ms), ` +
    `${totals.one.ips.toFixed(1)} images/s (ratio ${(totals.one.ips / totals.none.ips).toFixed(2)})`,
);
await Promise.all(Object.values(pools).map((pool) => pool.close()));
const alone = await classifierAlone(100);
console.log(
  `the classifiers alone (one thread, pixels ready): ${alone.median.toFixed(1)} ms per image (median), ${alone.p10.toFixed(1)} ms (p10)`,
);
