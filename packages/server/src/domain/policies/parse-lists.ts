import { parseCaps } from '../../lists/caps.ts';
import { LIST_NAME_PATTERN, MAX_POLICY_LISTS } from '../../lists/limits.ts';
import type { PolicyListRule } from '../../lists/types.ts';
import { AppError } from '../errors.ts';
import { ACTIONS, type Action } from '../taxonomy.ts';
import { type Position, parseNamedRules } from './named-rules.ts';

const RULE_KEYS = new Set(['list', 'action', 'caps']);

/**
 * The policy's `lists:` list: `[{ list: slurs, action: block }, { list: reclaimed, caps: { hate: warn } }]`. Each list
 * at most once; `action` (block lists) and `caps` (allow lists) override the list's own. Whether each list exists,
 * and is of the kind its keys suit, is checked when the policy is saved. Errors are 422 INVALID_POLICY
 * (INVALID_ACTION for the action) with the position.
 */
export function parsePolicyLists(raw: unknown, at: Position): PolicyListRule[] {
  const rules = parseNamedRules(raw, at, {
    key: 'lists',
    nameKey: 'list',
    keys: RULE_KEYS,
    pattern: LIST_NAME_PATTERN,
    max: MAX_POLICY_LISTS,
    holds: 'list (and action or caps)',
  });
  return rules.map(({ rule, index, field, name }): PolicyListRule => {
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
    const result: PolicyListRule = { list: name };
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
