// One hostile request for an operation: a valid example (from the OpenAPI schema) broken in one to three ways —
// wrong types, huge and deep values, NUL and lone surrogates, prototype keys, bad base64, invalid UTF-8 bytes,
// truncated JSON and multipart, wrong content types, odd headers, and path and query parameters made of raw bytes.
import { example, type Known, type Operation } from './openapi.ts';
import type { Rng } from './prng.ts';
import type { RawRequest } from './raw-http.ts';

export interface FuzzKnown extends Known {
  /** An admin key of the service: most requests carry it, so that their bodies are read at all. */
  adminKey: string;
  /** Real IDs of the service (a decision, a webhook…) used now and then as a path parameter. */
  ids: string[];
}

/** Percent-encodes every byte (never encodeURIComponent: it throws on a lone surrogate). */
export function percentEncode(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9_~.-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const INVALID_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xed, 0xa0, 0x80]), // a surrogate encoded as UTF-8
  Buffer.from([0xf4, 0x90, 0x80, 0x80]), // past U+10FFFF
  Buffer.from([0xe2, 0x82]), // truncated sequence
  Buffer.from([0xc0, 0xaf]), // overlong "/"
];

function deep(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? '['.repeat(depth) + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A hostile JSON value, as JSON text (some are not expressible as JS values: deep nesting, lone surrogates). */
function hostileValueText(rng: Rng): string {
  switch (rng.int(16)) {
    case 0:
      return rng.pick([
        '0',
        '-1',
        '1.5',
        '1e308',
        '-1e400',
        '12345678901234567890',
        '9007199254740993',
        '1e-320',
      ]);
    case 1:
      return rng.pick(['true', 'false', 'null']);
    case 2:
      return rng.pick(['[]', '{}', '[1,"a",null]', '{"x":{"y":[]}}']);
    case 3:
      return JSON.stringify('x'.repeat(rng.pick([33_000, 200_000, 900_000])));
    case 4:
      return deep(rng.pick([100, 2_000, 50_000]), rng.pick(['array', 'object'] as const));
    case 5:
      return JSON.stringify(`a\u0000b${'\u0000'.repeat(rng.int(10))}`);
    case 6:
      return rng.pick(['"\\ud800"', '"\\udfff x \\ud83d"', '"\\u0000"', '"\\uffff\\ufffe"']);
    case 7:
      return rng.pick([
        '{"__proto__":{"admin":true,"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"__proto__":null}',
        '{"toString":1,"valueOf":"x","hasOwnProperty":null}',
      ]);
    case 8:
      return JSON.stringify(
        rng.pick(['!!!!', 'data:image/png;base64,@@@@', 'data:;base64,', '====', 'iVBORw0KGgo=']),
      );
    case 9:
      return JSON.stringify(
        `data:image/jpeg;base64,${rng.bytes(rng.pick([3, 1000, 60_000])).toString('base64')}`,
      );
    case 10:
      return JSON.stringify(rng.bytes(64).toString('latin1'));
    case 11:
      return `[${Array.from({ length: rng.pick([101, 1000, 20_000]) }, (_, i) => `{"id":"${i}","content":"x"}`).join(',')}]`;
    case 12:
      return `{${Array.from({ length: rng.pick([100, 5000, 40_000]) }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    case 13:
      return JSON.stringify(
        rng.pick(['', ' ', '\t\n', '../../etc/passwd', '%00', '$' + '{jndi:x}', "'; DROP TABLE x;--"]),
      );
    case 14:
      return JSON.stringify('\u202e\u200b\ufeff😀'.repeat(rng.pick([1, 5000])));
    default:
      return JSON.stringify(
        rng.pick(['https://127.0.0.1/x', 'file:///etc/passwd', 'https://[::1]:0/', 'http://']),
      );
  }
}

/** The JSON text of `value` with one property (at any depth) replaced, removed, or many added. */
function breakObject(value: unknown, rng: Rng): string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return hostileValueText(rng);
  const marker = `__fuzz_${rng.int(1e9)}__`;
  const target = pickObject(value as Record<string, unknown>, rng);
  const keys = Object.keys(target);
  const action = rng.int(10);
  if (action === 0 && keys.length > 0) delete target[rng.pick(keys)];
  else if (action === 1)
    target[rng.pick(['__proto__x', 'constructor', 'prototype', 'unknownField'])] = marker;
  else target[keys.length > 0 && rng.chance(0.8) ? rng.pick(keys) : 'extra'] = marker;
  const text = JSON.stringify(value);
  const replacement = action === 1 ? hostileValueText(rng) : hostileValueText(rng);
  return text.replace(JSON.stringify(marker), replacement).replace('"__proto__x"', '"__proto__"');
}

function pickObject(value: Record<string, unknown>, rng: Rng): Record<string, unknown> {
  const nested = Object.values(value).filter((v) => v && typeof v === 'object' && !Array.isArray(v));
  if (nested.length > 0 && rng.chance(0.3))
    return pickObject(rng.pick(nested) as Record<string, unknown>, rng);
  return value;
}

function corruptBytes(body: Buffer, rng: Rng): Buffer {
  switch (rng.int(5)) {
    case 0: // truncated
      return body.subarray(0, rng.int(Math.max(1, body.length)));
    case 1: {
      const at = rng.int(body.length + 1);
      return Buffer.concat([body.subarray(0, at), rng.pick(INVALID_UTF8), body.subarray(at)]);
    }
    case 2:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    case 3:
      return Buffer.concat([body, Buffer.from(rng.pick(['}', ' garbage', '\u0000', ']]]']))]);
    default:
      return rng.bytes(rng.pick([0, 1, 100, 5000]));
  }
}

function hostileSegment(rng: Rng, known: FuzzKnown): string {
  switch (rng.int(8)) {
    case 0:
      return percentEncode(rng.bytes(1 + rng.int(40)));
    case 1:
      return percentEncode(Buffer.concat([Buffer.from('dec_'), rng.pick(INVALID_UTF8)]));
    case 2:
      return 'x'.repeat(rng.pick([300, 9000]));
    case 3:
      return rng.pick(['..', '%2E%2E%2F', '%00', '%ZZ', '%', '%E0%A4%A', '__proto__', 'constructor', '%20']);
    case 4:
      return percentEncode(Buffer.from(rng.pick(['dec_ü', 'abc def', 'a/b', 'a?b', 'a#b'])));
    default:
      return known.ids.length > 0 && rng.chance(0.7) ? rng.pick(known.ids) : `id_${rng.int(1e6)}`;
  }
}

function queryString(op: Operation, rng: Rng, known: FuzzKnown, hostile: boolean): string {
  const parts: string[] = [];
  for (const q of op.query) {
    if (!rng.chance(0.5)) continue;
    let value = percentEncode(Buffer.from(String(example(q.schema, rng, known, q.name) ?? '')));
    if (hostile && rng.chance(0.5)) {
      value = rng.pick([
        'abc',
        '-1',
        '1e99',
        '99999999999999999999999',
        '1.5',
        '',
        '%FF%FE',
        '%00',
        'x'.repeat(5000),
        percentEncode(rng.bytes(20)),
      ]);
    }
    parts.push(`${q.name}=${value}`);
    if (hostile && rng.chance(0.1)) parts.push(`${q.name}=${value}`); // repeated: an array to the parser
  }
  if (hostile && rng.chance(0.1))
    parts.push(rng.pick(['__proto__[x]=1', 'constructor=1', '&&&', '=', 'a[b][c]=1']));
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function multipart(op: Operation, rng: Rng, known: FuzzKnown): { body: Buffer; contentType: string } {
  const boundary = `----fuzz${rng.int(1e9)}`;
  const fields = example(op.body!.schema, rng, known) as Record<string, unknown>;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields ?? {})) {
    const file = op.body!.schema.properties?.[name]?.format === 'binary';
    const head = file
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="v.mp4"\r\nContent-Type: video/mp4\r\n\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`;
    chunks.push(Buffer.from(head), file ? rng.bytes(rng.pick([0, 10, 5000])) : Buffer.from(String(value)));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  let body: Buffer = Buffer.concat(chunks);
  let contentType = `multipart/form-data; boundary=${boundary}`;
  switch (rng.int(7)) {
    case 0: // truncated: no closing boundary
      body = body.subarray(
        0,
        Math.max(0, body.length - boundary.length - 6 - rng.int(Math.min(body.length, 200))),
      );
      break;
    case 1:
      contentType = 'multipart/form-data';
      break;
    case 2:
      contentType = `multipart/form-data; boundary=${boundary}x`;
      break;
    case 3: {
      // a huge field name once, or a short one in 2,000 parts
      const long = rng.chance(0.5);
      const part = `--${boundary}\r\nContent-Disposition: form-data; name="${'n'.repeat(long ? 100_000 : 10)}"\r\n\r\nx\r\n`;
      body = Buffer.from(`${part.repeat(long ? 1 : 2000)}--${boundary}--\r\n`);
      break;
    }
    case 4:
      body = corruptBytes(body, rng);
      break;
    default: // as generated: a garbage file, a valid form
  }
  return { body, contentType };
}

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json, text/plain',
  ';;;',
  'application/octet-stream',
  'APPLICATION/JSON',
];

/** A hostile variant of `op`. `hostility` picks from the families; each request breaks one to three things. */
export function hostileRequest(op: Operation, rng: Rng, known: FuzzKnown): RawRequest {
  const headers: Record<string, string | Buffer> = {};
  const auth = rng.int(20);
  if (auth < 16) headers.authorization = `Bearer ${known.adminKey}`;
  else if (auth === 16)
    headers.authorization = rng.pick(['Bearer', 'Basic Zm9vOmJhcg==', 'Bearer vk_', 'bearer  x']);
  else if (auth === 17) headers.authorization = `Bearer vk_${'a'.repeat(rng.pick([10, 4000]))}`;
  else if (auth === 18)
    headers.authorization = Buffer.concat([Buffer.from('Bearer vk_'), rng.pick(INVALID_UTF8)]);

  const breaks = 1 + rng.int(3);
  const hostileQuery = rng.chance(0.3);
  let path = op.path.replace(/\{([^}]+)\}/g, () =>
    rng.chance(0.4) ? hostileSegment(rng, known) : known.ids.length > 0 ? rng.pick(known.ids) : 'id_1',
  );
  path += queryString(op, rng, known, hostileQuery);

  for (const h of op.headers) {
    if (rng.chance(0.5)) {
      headers[h.name] = rng.chance(0.5)
        ? `k-${rng.int(1e9)}`
        : rng.pick([
            'x'.repeat(rng.pick([256, 8000])),
            Buffer.concat([Buffer.from('k'), rng.pick(INVALID_UTF8)]),
            '',
            ' ',
          ]);
    }
  }

  let body: Buffer | undefined;
  if (op.body?.contentType.startsWith('multipart/')) {
    const form = multipart(op, rng, known);
    body = form.body;
    headers['content-type'] = form.contentType;
  } else if (op.body || rng.chance(0.1)) {
    const valid = op.body ? example(op.body.schema, rng, known) : {};
    let text = JSON.stringify(valid);
    for (let i = 0; i < breaks; i++) {
      try {
        text = breakObject(JSON.parse(text), rng);
      } catch {
        break; // already not JSON (a hostile value text that JSON.parse refuses): keep it
      }
    }
    body = Buffer.from(text);
    if (rng.chance(0.15)) body = corruptBytes(body, rng);
    headers['content-type'] = rng.chance(0.85) ? 'application/json' : rng.pick(CONTENT_TYPES);
    if (rng.chance(0.03)) delete headers['content-type'];
  }
  if (rng.chance(0.05)) headers['content-encoding'] = rng.pick(['gzip', 'br', 'identity', 'x-unknown']);
  if (rng.chance(0.03)) headers.accept = rng.pick(['*/*', 'text/html', '', 'application/json;q=0']);
  if (body) headers['content-length'] = String(body.length);
  const method = rng.chance(0.03)
    ? rng.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'])
    : op.method;
  return { method, path, headers, body };
}
