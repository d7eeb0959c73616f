import { BANK_NAME_PATTERN, DEFAULT_MAX_DISTANCE, MAX_POLICY_BANKS } from '../../banks/limits.ts';
import type { PolicyBankRule } from '../../banks/types.ts';
import { AppError } from '../errors.ts';
import { ACTIONS, type Action } from '../taxonomy.ts';
import { type Position, parseNamedRules } from './named-rules.ts';

const RULE_KEYS = new Set(['bank', 'action', 'maxDistance']);

/**
 * The policy's `banks:` list: `[{ bank: known-abuse, action: block, maxDistance: 31 }]`. Each bank at most once;
 * `maxDistance` (PDQ bits of 256) defaults to 31, PDQ's usual match threshold. Errors are 422 INVALID_POLICY
 * (INVALID_ACTION for the action) with the position.
 */
export function parsePolicyBanks(raw: unknown, at: Position): PolicyBankRule[] {
  const rules = parseNamedRules(raw, at, {
    key: 'banks',
    nameKey: 'bank',
    keys: RULE_KEYS,
    pattern: BANK_NAME_PATTERN,
    max: MAX_POLICY_BANKS,
    holds: 'bank and action',
  });
  return rules.map(({ rule, index, field, name }): PolicyBankRule => {
    if (typeof rule.action !== 'string' || !(ACTIONS as readonly string[]).includes(rule.action)) {
      throw new AppError('INVALID_ACTION', `${field}.action must be one of allow, warn, flag, block`, {
        field: `${field}.action`,
        value: rule.action ?? null,
        allowed: [...ACTIONS],
        ...at([index, 'action']),
      });
    }
    const maxDistance = rule.maxDistance ?? DEFAULT_MAX_DISTANCE;
    if (
      typeof maxDistance !== 'number' ||
      !Number.isInteger(maxDistance) ||
      maxDistance < 0 ||
      maxDistance > 64
    ) {
      throw new AppError(
        'INVALID_POLICY',
        `${field}.maxDistance must be a whole number of bits from 0 to 64`,
        {
          field: `${field}.maxDistance`,
          value: maxDistance,
          ...at([index, 'maxDistance']),
        },
      );
    }
    return { bank: name, action: rule.action as Action, maxDistance };
  });
}
