import type { Config } from '../../config.ts';
import { verifyClassifiers } from '../../image-classifiers/verify.ts';
import { MAX_IMAGE_PIXELS } from '../../media/image.ts';
import { ImageModelPool } from './pool.ts';

/**
 * The bundled image model's worker pool as configured (VERDICT_IMAGE_WORKERS, VERDICT_IMAGE_CLASSIFIERS, whose
 * models are verified first: a mismatch is a ConfigError), loading in the background when VERDICT_IMAGE_PRELOAD
 * is on (/readyz waits for it), else on the first image. `verdict serve` calls this before it loads the rest of
 * the service, so that the model loads on another core meanwhile.
 */
export async function startImageModel(config: Config): Promise<ImageModelPool> {
  const classifiers = config.imageClassifiers?.classifiers ?? [];
  await verifyClassifiers(classifiers);
  const pool = new ImageModelPool({
    size: config.imageWorkers,
    maxPixels: MAX_IMAGE_PIXELS,
    ...(classifiers.length > 0 && { classifiers, timeoutMs: config.imageClassifiers!.timeoutMs }),
  });
  // failures are the pool's state (failed), which /readyz and every image check report
  if (config.imagePreload) pool.start().catch(() => {});
  return pool;
}
