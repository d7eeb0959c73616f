import { AppError, type ErrorCode } from '../domain/errors.ts';
import { ACTIONS, type Action, type CategoryName, POLICY_CATEGORY_NAMES } from '../domain/taxonomy.ts';
import type { ListCaps } from './types.ts';

/**
 * Validates an allow list's caps: `{ category: action | score }` with known categories, an action of allow, warn,
 * flag or block, or a score from 0 to 1. `code` is the error code (INVALID_PARAMETER from the API, INVALID_POLICY
 * from policy YAML); `at` adds the position of a policy document.
 */
export function parseCaps(
  raw: unknown,
  field: string,
  code: ErrorCode,
  at: (key?: string) => Record<string, unknown> = () => ({}),
): ListCaps {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || Object.keys(raw).length === 0) {
    throw new AppError(code, `${field} must be a mapping of category → action or score, with at least one`, {
      field,
      ...at(),
    });
  }
  const caps: ListCaps = {};
  for (const [category, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!(POLICY_CATEGORY_NAMES as readonly string[]).includes(category)) {
      throw new AppError(code, `Unknown category "${category}" in ${field}`, {
        field: `${field}.${category}`,
        allowed: [...POLICY_CATEGORY_NAMES],
        ...at(category),
      });
    }
    const isAction = typeof value === 'string' && (ACTIONS as readonly string[]).includes(value);
    const isScore = typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1;
    if (!isAction && !isScore) {
      throw new AppError(
        code,
        `${field}.${category} must be an action (allow, warn, flag, block) or a score from 0 to 1`,
        {
          field: `${field}.${category}`,
          value: value ?? null,
          ...at(category),
        },
      );
    }
    caps[category as CategoryName] = value as Action | number;
  }
  return caps;
}
