import { parseCaps } from '../../lists/caps.ts';
import { LIST_NAME_PATTERN, MAX_POLICY_LISTS } from '../../lists/limits.ts';
import type { PolicyListRule } from '../../lists/types.ts';
import { AppError } from '../errors.ts';
import { ACTIONS, type Action } from '../taxonomy.ts';

const RULE_KEYS = new Set(['list', 'action', 'caps']);

type Position = (path: (string | number)[]) => { line?: number; column?: number };

/**
 * The policy's `lists:` list: `[{ list: slurs, action: block }, { list: reclaimed, caps: { hate: warn } }]`. Each list
 * at most once; `action` (block lists) and `caps` (allow lists) override the list's own. Whether each list exists,
 * and is of the kind its keys suit, is checked when the policy is saved. Errors are 422 INVALID_POLICY
 * (INVALID_ACTION for the action) with the position.
 */
export function parsePolicyLists(raw: unknown, at: Position): PolicyListRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > MAX_POLICY_LISTS) {
    throw new AppError('INVALID_POLICY', `\`lists\` must be a list of at most ${MAX_POLICY_LISTS} entries`, {
      field: 'lists',
      ...at([]),
    });
  }
  const seen = new Set<string>();
  return raw.map((entry, index): PolicyListRule => {
    const field = `lists[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new AppError('INVALID_POLICY', `${field} must be a mapping with list (and action or caps)`, {
        field,
        ...at([index]),
      });
    }
    const rule = entry as Record<string, unknown>;
    for (const key of Object.keys(rule)) {
      if (!RULE_KEYS.has(key)) {
        throw new AppError('INVALID_POLICY', `Unknown key "${key}" in ${field}`, {
          field,
          key,
          allowed: [...RULE_KEYS],
          ...at([index, key]),
        });
      }
    }
    if (typeof rule.list !== 'string' || !LIST_NAME_PATTERN.test(rule.list)) {
      throw new AppError(
        'INVALID_POLICY',
        `${field}.list must be a list name (1–64 of A-Z, a-z, 0-9, _ and -)`,
        {
          field: `${field}.list`,
          ...at([index, 'list']),
        },
      );
    }
    if (seen.has(rule.list)) {
      throw new AppError('INVALID_POLICY', `List "${rule.list}" is named twice`, {
        field: `${field}.list`,
        ...at([index, 'list']),
      });
    }
    seen.add(rule.list);
    if (rule.action !== undefined && rule.caps !== undefined) {
      throw new AppError(
        'INVALID_POLICY',
        `${field} has action (block lists) or caps (allow lists), not both`,
        {
          field,
          ...at([index]),
        },
      );
    }
    const result: PolicyListRule = { list: rule.list };
    if (rule.action !== undefined) {
      if (typeof rule.action !== 'string' || !(ACTIONS as readonly string[]).includes(rule.action)) {
        throw new AppError('INVALID_ACTION', `${field}.action must be one of allow, warn, flag, block`, {
          field: `${field}.action`,
          value: rule.action ?? null,
          allowed: [...ACTIONS],
          ...at([index, 'action']),
        });
      }
      result.action = rule.action as Action;
    }
    if (rule.caps !== undefined) {
      result.caps = parseCaps(rule.caps, `${field}.caps`, 'INVALID_POLICY', (key) =>
        at(key ? [index, 'caps', key] : [index, 'caps']),
      );
    }
    return result;
  });
}
