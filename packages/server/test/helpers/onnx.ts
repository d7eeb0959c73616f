import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Tiny ONNX models written by the tests themselves: a minimal protobuf encoder for the few ONNX messages a graph
 * needs (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto), field numbers from
 * onnx/onnx.proto. Nothing is downloaded and no ONNX tooling is needed.
 */

// protobuf wire format
function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, value: number) => Buffer.from([...key(field, 0), ...varint(value)]);
const bytes = (field: number, data: Buffer) =>
  Buffer.concat([Buffer.from([...key(field, 2), ...varint(data.length)]), data]);
const str = (field: number, text: string) => bytes(field, Buffer.from(text, 'utf8'));
const float32 = (field: number, value: number) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(value);
  return Buffer.concat([Buffer.from(key(field, 5)), b]);
};
const msg = (field: number, parts: Buffer[]) => bytes(field, Buffer.concat(parts));

const FLOAT = 1; // TensorProto.DataType.FLOAT

export type Attribute = number | number[] | { float: number };

function attribute(name: string, value: Attribute): Buffer[] {
  // AttributeProto: name 1, f 2, i 3, ints 8, type 20 (FLOAT 1, INT 2, INTS 7)
  if (Array.isArray(value))
    return [str(1, name), bytes(8, Buffer.from(value.flatMap((v) => varint(v)))), int(20, 7)];
  if (typeof value === 'object') return [str(1, name), float32(2, value.float), int(20, 1)];
  return [str(1, name), int(3, value), int(20, 2)];
}

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, Attribute>;
}

export interface OnnxGraph {
  input: { name: string; shape: number[] };
  output: { name: string; shape: number[] };
  nodes: OnnxNode[];
  /** Float32 constants by name. */
  initializers: Record<string, { dims: number[]; values: number[] }>;
  opset?: number;
}

function valueInfo(field: number, name: string, shape: number[]): Buffer {
  // ValueInfoProto{name 1, type 2: TypeProto{tensor_type 1: {elem_type 1, shape 2: {dim 1: {dim_value 1}}}}}
  const dims = shape.map((d) => msg(1, [int(1, d)]));
  return msg(field, [str(1, name), msg(2, [msg(1, [int(1, FLOAT), msg(2, dims)])])]);
}

/** Encodes a float32 graph as an ONNX model (IR version 8). */
export function encodeOnnx(graph: OnnxGraph): Buffer {
  const nodes = graph.nodes.map((node, i) =>
    // NodeProto: input 1, output 2, name 3, op_type 4, attribute 5
    msg(1, [
      ...node.inputs.map((n) => str(1, n)),
      ...node.outputs.map((n) => str(2, n)),
      str(3, `n${i}`),
      str(4, node.op),
      ...Object.entries(node.attributes ?? {}).map(([name, value]) => msg(5, attribute(name, value))),
    ]),
  );
  const initializers = Object.entries(graph.initializers).map(([name, { dims, values }]) => {
    const raw = Buffer.alloc(values.length * 4);
    for (const [i, v] of values.entries()) raw.writeFloatLE(v, i * 4);
    // TensorProto: dims 1, data_type 2, name 8, raw_data 9
    return msg(5, [...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytes(9, raw)]);
  });
  // GraphProto: node 1, name 2, initializer 5, input 11, output 12
  const body = msg(7, [
    ...nodes,
    str(2, 'test'),
    ...initializers,
    valueInfo(11, graph.input.name, graph.input.shape),
    valueInfo(12, graph.output.name, graph.output.shape),
  ]);
  // ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 {domain 1, version 2}
  return Buffer.concat([
    int(1, 8),
    str(2, 'verdict-tests'),
    body,
    msg(8, [str(1, ''), int(2, graph.opset ?? 13)]),
  ]);
}

/**
 * A one-layer "colour" classifier: the mean of each channel (ReduceMean over the image), then a linear layer to
 * two logits, `red` = k·(R − B) and `blue` = k·(B − R). After softmax, a red image scores near 1 for `red` and a
 * blue one near 0: a classifier whose answer depends on the pixels, so a test of it can fail.
 */
export function colourModel(size: number, layout: 'nchw' | 'nhwc' = 'nchw', k = 8): Buffer {
  const shape = layout === 'nchw' ? [1, 3, size, size] : [1, size, size, 3];
  return encodeOnnx({
    input: { name: 'pixels', shape },
    output: { name: 'logits', shape: [1, 2] },
    nodes: [
      {
        op: 'ReduceMean',
        inputs: ['pixels'],
        outputs: ['mean'],
        attributes: { axes: layout === 'nchw' ? [2, 3] : [1, 2], keepdims: 0 },
      },
      { op: 'MatMul', inputs: ['mean', 'w'], outputs: ['mw'] },
      { op: 'Add', inputs: ['mw', 'b'], outputs: ['logits'] },
    ],
    initializers: {
      // rows: R, G, B; columns: red, blue
      w: { dims: [3, 2], values: [k, -k, 0, 0, -k, k] },
      b: { dims: [2], values: [0, 0] },
    },
  });
}

/**
 * A small convolutional classifier with fixed pseudo-random weights (Conv 3→16 3×3 stride 2, Relu, Conv 16→32
 * 3×3 stride 2, Relu, global average pool, a linear layer to `labels` outputs): a stand-in for the cost of a
 * small real model, for benchmarks.
 */
export function smallConvModel(size: number, labels: number): Buffer {
  let seed = 42;
  const random = (n: number, scale: number) =>
    Array.from({ length: n }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed / 2 ** 31 - 0.5) * 2 * scale;
    });
  return encodeOnnx({
    input: { name: 'pixels', shape: [1, 3, size, size] },
    output: { name: 'logits', shape: [1, labels] },
    nodes: [
      {
        op: 'Conv',
        inputs: ['pixels', 'w1', 'b1'],
        outputs: ['c1'],
        attributes: { strides: [2, 2], pads: [1, 1, 1, 1] },
      },
      { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
      {
        op: 'Conv',
        inputs: ['r1', 'w2', 'b2'],
        outputs: ['c2'],
        attributes: { strides: [2, 2], pads: [1, 1, 1, 1] },
      },
      { op: 'Relu', inputs: ['c2'], outputs: ['r2'] },
      { op: 'GlobalAveragePool', inputs: ['r2'], outputs: ['pooled'] },
      { op: 'Flatten', inputs: ['pooled'], outputs: ['flat'] },
      { op: 'Gemm', inputs: ['flat', 'w3', 'b3'], outputs: ['logits'] },
    ],
    initializers: {
      w1: { dims: [16, 3, 3, 3], values: random(16 * 27, 0.3) },
      b1: { dims: [16], values: random(16, 0.1) },
      w2: { dims: [32, 16, 3, 3], values: random(32 * 144, 0.1) },
      b2: { dims: [32], values: random(32, 0.1) },
      w3: { dims: [32, labels], values: random(32 * labels, 0.3) },
      b3: { dims: [labels], values: random(labels, 0.1) },
    },
  });
}

/** Writes a model and its manifest into `dir`; returns the manifest's path. `manifest` overrides any field. */
export function writeClassifier(
  dir: string,
  name: string,
  model: Buffer,
  manifest: Record<string, unknown>,
): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.onnx`), model);
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        name,
        model: `${name}.onnx`,
        sha256: createHash('sha256').update(model).digest('hex'),
        ...manifest,
      },
      null,
      2,
    ),
  );
  return file;
}
