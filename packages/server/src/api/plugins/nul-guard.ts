import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';

/**
 * A NUL character (U+0000) in a request's strings is refused with 422 INVALID_PARAMETER, on every store alike:
 * PostgreSQL cannot hold one in text or jsonb ("invalid byte sequence for encoding UTF8: 0x00"), so a NUL in an ID,
 * a query parameter, an idempotency key or the content was a 500 there (found by `npm run fuzz -- --db postgres`).
 */
export const nulRefused = (where: string) =>
  new AppError('INVALID_PARAMETER', `The ${where} holds a NUL character (U+0000), which is not accepted`, {
    field: where,
    reason: 'nul_character',
  });

/** `\u0000` escapes in a JSON text (an escaped backslash followed by "u0000" is not one). */
const JSON_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

export function jsonHasNul(text: string): boolean {
  return text.includes('\\u0000') && JSON_NUL.test(text);
}

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value && typeof value === 'object')
    return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v));
  return false;
}

/** Path and query parameters with a NUL are refused before any handler (the JSON body is checked by its parser). */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (hasNul(request.params)) throw nulRefused('path');
    if (hasNul(request.query)) throw nulRefused('query');
  });
}
