/**
 * Refits the third stage on data saved by a training run (VERDICT_NN_DATA_OUT=<file> npm run train), for choosing
 * its hyper-parameters without retraining the first two stages:
 *   node --import tsx training/neural-dev.ts <data file> <weights dir of that run> <out dir> ['{"lr": 0.1}']
 * Writes <out dir>/{text-model,context-model,neural-model}.bin (the first two copied) for training/compare.ts.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ContextModel, decodeContextWeights } from '../src/context-model.ts';
import { Scorer } from '../src/model.ts';
import { contextFingerprint, decodeNeuralWeights, encodeNeuralWeights } from '../src/neural-stage.ts';
import { decodeWeights } from '../src/weights.ts';
import { loadExamples } from './data.ts';
import { fitNeural, loadNeuralData } from './neural-fit.ts';
import { calibrateNeural } from './neural-trainer.ts';
import { CONTEXT, NEURAL } from './train.ts';
import { exampleWeight } from './trainer.ts';

const [dataFile, base, out, over] = process.argv.slice(2);
if (!dataFile || !base || !out) throw new Error('usage: neural-dev.ts <data> <weights dir> <out dir> [json]');
const cfg = { ...NEURAL, ...(over ? JSON.parse(over) : {}) };
const log = (s: string) => console.log(s);
log(`config ${JSON.stringify(cfg)}`);
const data = loadNeuralData(dataFile);
if (cfg.sourceWeight) {
  // re-weight by source (and source:group), over the second stage's weights
  const sw = { ...CONTEXT.sourceWeight, ...cfg.sourceWeight };
  const byKey = data.keys!.map((k) => {
    const [source, group] = k.split('\t') as [string, string];
    return exampleWeight(sw, group ? { source, group } : { source });
  });
  data.weights = Float32Array.from(data.keyIdx!, (i) => byKey[i]!);
}
const w = decodeNeuralWeights(encodeNeuralWeights(fitNeural(data, cfg, log)));
const u8 = (p: string) => new Uint8Array(readFileSync(p));
const first = decodeWeights(u8(`${base}/text-model.bin`));
const ctxBytes = u8(`${base}/context-model.bin`);
const ctx = new ContextModel(decodeContextWeights(ctxBytes));
const calib = loadExamples().filter((e) => e.split === 'calib');
calibrateNeural(
  w,
  new Scorer(first),
  ctx,
  Float64Array.from(first.header.platt.flat()),
  calib,
  CONTEXT,
  cfg,
  log,
);
w.header.contextFingerprint = contextFingerprint(ctxBytes);
mkdirSync(out, { recursive: true });
for (const f of ['text-model.bin', 'context-model.bin']) copyFileSync(`${base}/${f}`, `${out}/${f}`);
writeFileSync(`${out}/neural-model.bin`, encodeNeuralWeights(w));
