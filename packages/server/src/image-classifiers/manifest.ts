import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type CategoryName, POLICY_CATEGORY_NAMES } from '../domain/taxonomy.ts';
import { yaml } from '../lazy-yaml.ts';

/**
 * One operator-supplied image classifier (VERDICT_IMAGE_CLASSIFIERS), validated. Plain data: it is handed to the
 * image worker threads as is.
 */
export interface ImageClassifierSpec {
  name: string;
  /** Absolute path of the .onnx file, whose SHA-256 matched the manifest's at start. */
  modelFile: string;
  sha256: string;
  /** Square input side in pixels; the image is resized to size × size (stretched, like the bundled model). */
  size: number;
  layout: 'nchw' | 'nhwc';
  channels: 'rgb' | 'bgr';
  /** Applied to pixel values scaled to 0–1: (v − mean[c]) / std[c], per channel in the model's channel order. */
  mean: [number, number, number];
  std: [number, number, number];
  /** How the first output's values become probabilities. */
  output: 'softmax' | 'sigmoid' | 'probabilities';
  /** The first output's values, in order. */
  labels: string[];
  /** Verdict category → indexes of its labels; the category's score is the largest of theirs. */
  categories: Partial<Record<CategoryName, number[]>>;
}

export class ClassifierManifestError extends Error {}

/** The model files a manifest may name are read whole to check their digest: bounded. */
export const MAX_MODEL_BYTES = 512 * 1024 * 1024;
const MAX_MANIFESTS = 32;
const MAX_LABELS = 10_000;
const MAX_SIZE = 1024;
const KEYS = new Set(['name', 'model', 'sha256', 'input', 'output', 'labels', 'categories']);
const INPUT_KEYS = new Set(['size', 'layout', 'channels', 'mean', 'std']);

/**
 * VERDICT_IMAGE_CLASSIFIERS: one manifest file (JSON or YAML), or a directory whose `*.json`, `*.yaml` and `*.yml`
 * files are manifests. Every field is checked and every model's SHA-256 verified; any problem throws a
 * ClassifierManifestError naming the file and the field.
 */
export function readClassifierManifests(target: string): ImageClassifierSpec[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch (error) {
    throw new ClassifierManifestError(`cannot read ${target} (${(error as NodeJS.ErrnoException).code})`);
  }
  const files = stat.isDirectory()
    ? fs
        .readdirSync(target)
        .filter((name) => /\.(json|ya?ml)$/i.test(name))
        .sort()
        .map((name) => path.join(target, name))
    : [target];
  if (files.length === 0) throw new ClassifierManifestError(`${target} holds no manifest (*.json, *.yaml)`);
  if (files.length > MAX_MANIFESTS)
    throw new ClassifierManifestError(`${target} holds ${files.length} manifests; at most ${MAX_MANIFESTS}`);
  const specs = files.map(readManifest);
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.name)) throw new ClassifierManifestError(`two manifests are named "${spec.name}"`);
    seen.add(spec.name);
  }
  return specs;
}

function readManifest(file: string): ImageClassifierSpec {
  let data: unknown;
  try {
    data = yaml().parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ClassifierManifestError(`${file}: ${(error as Error).message}`);
  }
  const fail = (field: string, message: string): never => {
    throw new ClassifierManifestError(`${file}: ${field}: ${message}`);
  };
  if (!isObject(data)) return fail('(top level)', 'expected a mapping');
  for (const key of Object.keys(data)) if (!KEYS.has(key)) fail(key, 'unknown field');

  const name = data.name;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(name))
    fail('name', 'expected 1–63 characters of a-z, 0-9, _ and -, starting with a letter or digit');

  if (typeof data.model !== 'string' || data.model.trim() === '')
    fail('model', 'expected the .onnx file path');
  const modelFile = path.resolve(path.dirname(file), data.model as string);

  const sha256 = typeof data.sha256 === 'string' ? data.sha256.toLowerCase() : '';
  if (!/^[0-9a-f]{64}$/.test(sha256)) fail('sha256', 'expected 64 hexadecimal digits');
  const actual = fileDigest(modelFile, fail);
  if (actual !== sha256)
    fail('sha256', `${modelFile} has SHA-256 ${actual}, not ${sha256}: refusing to run a model that changed`);

  const input = data.input;
  if (!isObject(input)) return fail('input', 'expected a mapping with at least size');
  for (const key of Object.keys(input)) if (!INPUT_KEYS.has(key)) fail(`input.${key}`, 'unknown field');
  const size = input.size;
  if (!Number.isInteger(size) || (size as number) < 1 || (size as number) > MAX_SIZE)
    fail('input.size', `expected an integer from 1 to ${MAX_SIZE}`);
  const layout = choice(input.layout ?? 'nchw', ['nchw', 'nhwc'] as const, 'input.layout', fail);
  const channels = choice(input.channels ?? 'rgb', ['rgb', 'bgr'] as const, 'input.channels', fail);
  const mean = triple(input.mean ?? [0, 0, 0], 'input.mean', false, fail);
  const std = triple(input.std ?? [1, 1, 1], 'input.std', true, fail);

  const output = choice(data.output, ['softmax', 'sigmoid', 'probabilities'] as const, 'output', fail);

  const labels = data.labels;
  if (
    !Array.isArray(labels) ||
    labels.length === 0 ||
    labels.length > MAX_LABELS ||
    labels.some((l) => typeof l !== 'string' || l === '')
  )
    fail('labels', `expected a list of 1–${MAX_LABELS} label names, in the order of the model's output`);
  const labelList = labels as string[];
  if (new Set(labelList).size !== labelList.length) fail('labels', 'a label is listed twice');

  if (!isObject(data.categories) || Object.keys(data.categories).length === 0)
    return fail('categories', 'expected a mapping of Verdict categories to lists of labels');
  const categories: Partial<Record<CategoryName, number[]>> = {};
  for (const [category, names] of Object.entries(data.categories)) {
    if (!(POLICY_CATEGORY_NAMES as readonly string[]).includes(category))
      fail(`categories.${category}`, `not a Verdict category (${POLICY_CATEGORY_NAMES.join(', ')})`);
    const list = typeof names === 'string' ? [names] : names;
    if (!Array.isArray(list) || list.length === 0)
      fail(`categories.${category}`, 'expected a label or a list of labels');
    categories[category as CategoryName] = (list as unknown[]).map((label) => {
      const at = labelList.indexOf(label as string);
      if (at < 0) fail(`categories.${category}`, `"${String(label)}" is not one of labels`);
      return at;
    });
  }

  return {
    name: name as string,
    modelFile,
    sha256,
    size: size as number,
    layout,
    channels,
    mean,
    std,
    output,
    labels: labelList,
    categories,
  };
}

function fileDigest(file: string, fail: (field: string, message: string) => never): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    return fail('model', `cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!stat.isFile()) fail('model', `${file} is not a file`);
  if (stat.size > MAX_MODEL_BYTES)
    fail('model', `${file} is larger than ${MAX_MODEL_BYTES / 1024 / 1024} MB`);
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function choice<T extends string>(
  value: unknown,
  choices: readonly T[],
  field: string,
  fail: (field: string, message: string) => never,
): T {
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value))
    fail(field, `expected ${choices.join(', ')}`);
  return value as T;
}

function triple(
  value: unknown,
  field: string,
  positive: boolean,
  fail: (field: string, message: string) => never,
): [number, number, number] {
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    value.some((v) => typeof v !== 'number' || !Number.isFinite(v) || (positive && v <= 0))
  )
    fail(field, `expected three ${positive ? 'positive ' : ''}numbers, one per channel`);
  return value as [number, number, number];
}
