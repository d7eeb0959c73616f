import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { jsonHasNul, nulRefused } from './nul-guard.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Most JSON values (containers and elements) a body of this route may hold; JSON_MAX_VALUES if unset. */
    maxJsonValues?: number;
  }
}

/**
 * Values a JSON body may hold unless its route allows more: a check is one item with at most 8 KB of metadata
 * (≤ ~4,100 values), plus its few fields.
 */
export const JSON_MAX_VALUES = 10_000;
/** Deeper bodies are refused: recursive walks (measuring metadata, storing a request) overflow the stack. */
export const JSON_MAX_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * What is wrong with the shape of a JSON text, without parsing it: more than `maxValues` values (every `{`, `[`
 * and `,` outside strings starts one) or containers nested deeper than `maxDepth`. Strings are skipped with
 * `indexOf`, so a body that is mostly one long string (a base64 image) costs little. Not a validator: malformed
 * JSON is left to the parser.
 */
export function jsonShapeProblem(
  body: string,
  maxValues: number,
  maxDepth: number,
): 'json_values' | 'json_depth' | null {
  let values = 0;
  let depth = 0;
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body.charCodeAt(i);
    if (c === QUOTE) {
      // the closing quote: the next one not escaped by an odd run of backslashes
      let j = i;
      for (;;) {
        j = body.indexOf('"', j + 1);
        if (j < 0) return null;
        let k = j - 1;
        while (body.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'json_depth';
      if (++values > maxValues) return 'json_values';
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      if (++values > maxValues) return 'json_values';
    }
  }
  return null;
}

/**
 * JSON bodies: Fastify's parser (with its prototype-poisoning checks), after a check of the body's shape. Within the
 * byte limit alone, 28 MB of `{},` held the event loop for 5 s and took 860 MB once parsed.
 */
export function registerJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const maxValues = request.routeOptions.config.maxJsonValues ?? JSON_MAX_VALUES;
    const problem = jsonShapeProblem(text, maxValues, JSON_MAX_DEPTH);
    if (problem === null && jsonHasNul(text)) done(nulRefused('body'), undefined);
    else if (problem === null) parse(request, text, done);
    else if (problem === 'json_values') {
      const message = `The request body holds more than ${maxValues} JSON values`;
      done(new AppError('CONTENT_TOO_LARGE', message, { reason: problem, maxValues }), undefined);
    } else {
      const message = `The request body nests deeper than ${JSON_MAX_DEPTH} levels`;
      done(
        new AppError('CONTENT_TOO_LARGE', message, { reason: problem, maxDepth: JSON_MAX_DEPTH }),
        undefined,
      );
    }
  });
}
