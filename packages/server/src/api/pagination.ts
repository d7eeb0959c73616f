import { AppError } from '../domain/errors.ts';

/** `limit` (default 20, max 100) and `offset` (default 0) of decisions §4; anything else is 422 INVALID_PARAMETER. */
export function parsePagination(
  query: { limit?: unknown; offset?: unknown },
  defaults = { limit: 20, max: 100 },
): { limit: number; offset: number } {
  const parse = (value: unknown, field: string, fallback: number, min: number, max: number) => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new AppError('INVALID_PARAMETER', `${field} must be an integer from ${min} to ${max}`, { field });
    }
    return Number(value);
  };
  return {
    limit: parse(query.limit, 'limit', defaults.limit, 1, defaults.max),
    offset: parse(query.offset, 'offset', 0, 0, 1_000_000_000),
  };
}
