import { ConfigError } from '../config.ts';
import type { ImageClassifierSpec } from './manifest.ts';

/**
 * Loads each classifier once and runs it on a blank image, so that a model that does not match its manifest
 * (input size or layout, number of labels, not ONNX at all) stops the start with a clear message instead of
 * failing every image later. onnxruntime-node is imported only when classifiers are configured.
 */
export async function verifyClassifiers(specs: readonly ImageClassifierSpec[]): Promise<void> {
  if (specs.length === 0) return;
  const { ClassifierSet } = await import('./runner.ts');
  try {
    const set = await ClassifierSet.load(specs);
    await set.close();
  } catch (error) {
    throw new ConfigError('VERDICT_IMAGE_CLASSIFIERS', (error as Error).message);
  }
}
