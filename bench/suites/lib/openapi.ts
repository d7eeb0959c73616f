// The operations of the service's own /openapi.json, and a valid example value for a JSON schema (the starting
// point that the fuzzer then breaks, so that most hostile requests get past the first check).
import type { Rng } from './prng.ts';

type Schema = Record<string, any>;

export interface Operation {
  method: string;
  /** The path template, e.g. `/v1/decisions/{decisionId}`. */
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  headers: { name: string; schema: Schema }[];
  body: { contentType: string; schema: Schema } | null;
}

export function operations(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const params: any[] = op.parameters ?? [];
      const content = op.requestBody?.content ?? null;
      const contentType = content ? Object.keys(content)[0]! : null;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        headers: params
          .filter((p) => p.in === 'header')
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: contentType ? { contentType, schema: resolve(doc, content[contentType].schema ?? {}) } : null,
      });
    }
  }
  return ops;
}

/** The schema with `$ref`s to components replaced by what they point at (the service's document has no cycles). */
function resolve(doc: any, schema: Schema, depth = 0): Schema {
  if (depth > 20 || !schema || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: any, k: string) => o?.[k], doc);
    return resolve(doc, target ?? {}, depth + 1);
  }
  const out: Schema = Array.isArray(schema) ? [] : {};
  for (const [k, v] of Object.entries(schema))
    out[k] = typeof v === 'object' ? resolve(doc, v, depth + 1) : v;
  return out;
}

/** Values the service accepts for fields of these names, so that a valid example goes deeper than validation. */
export interface Known {
  policyId: string;
  text: string;
}

function exampleString(schema: Schema, name: string, rng: Rng, known: Known): string {
  if (schema.format === 'date-time' || /^(from|to|expiresAt|trialEndsAt)$/.test(name)) {
    return new Date(Date.UTC(2026, rng.int(12), 1 + rng.int(28))).toISOString();
  }
  if (/policyId$/i.test(name)) return known.policyId;
  if (/url$/i.test(name))
    return rng.pick(['https://example.com/hook', 'https://localhost:9/x', 'http://a/b']);
  if (/^(content|text)$/.test(name)) return known.text;
  if (name === 'yamlContent') return 'name: Fuzz\ncategories:\n  hate: { threshold: 0.5, action: block }\n';
  if (name === 'language') return rng.pick(['en', 'fr', 'auto', 'xx']);
  if (name === 'month') return '2026-11';
  if (typeof schema.pattern === 'string' && /\^\[0-9\]/.test(schema.pattern)) return String(rng.int(50));
  const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 12, 12));
  let s = '';
  for (let i = 0; i < length; i++) s += 'abcdefghijklmnopqrstuvwxyz0123456789_-'[rng.int(38)];
  return s;
}

/** A value that satisfies `schema` in the usual cases (required properties, enums, bounds); not a validator. */
export function example(schema: Schema, rng: Rng, known: Known, name = '', depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return example(rng.pick(alternatives), rng, known, name, depth + 1);
  }
  if (Array.isArray(schema.allOf))
    return example(Object.assign({}, ...schema.allOf), rng, known, name, depth + 1);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case 'string':
      return exampleString(schema, name, rng, known);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 100, min + 100);
      const n = min + rng.next() * (max - min);
      return type === 'integer' ? Math.round(n) : Number(n.toFixed(3));
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const count = Math.max(schema.minItems ?? 0, 1 + rng.int(3));
      return Array.from({ length: Math.min(count, schema.maxItems ?? count) }, () =>
        example(schema.items ?? {}, rng, known, name, depth + 1),
      );
    }
    default: {
      if (!schema.properties) return {};
      const out: Record<string, unknown> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties)) {
        if (required.has(key) || rng.chance(0.5)) out[key] = example(sub, rng, known, key, depth + 1);
      }
      return out;
    }
  }
}
