import { loadTextModel, type TextModel } from '../src/index.ts';

/**
 * The model whose weights files (text-model.bin, context-model.bin and, when trained, neural-model.bin) are in `dir`,
 * as training writes them.
 */
export function loadWeightsDir(dir: string): TextModel {
  return loadTextModel({
    weightsPath: `${dir}/text-model.bin`,
    contextWeightsPath: `${dir}/context-model.bin`,
    neuralWeightsPath: `${dir}/neural-model.bin`,
  });
}
