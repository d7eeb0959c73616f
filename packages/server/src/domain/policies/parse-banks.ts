import { BANK_NAME_PATTERN, DEFAULT_MAX_DISTANCE, MAX_POLICY_BANKS } from '../../banks/limits.ts';
import type { PolicyBankRule } from '../../banks/types.ts';
import { AppError } from '../errors.ts';
import { ACTIONS, type Action } from '../taxonomy.ts';

const RULE_KEYS = new Set(['bank', 'action', 'maxDistance']);

type Position = (path: (string | number)[]) => { line?: number; column?: number };

/**
 * The policy's `banks:` list: `[{ bank: known-abuse, action: block, maxDistance: 31 }]`. Each bank at most once;
 * `maxDistance` (PDQ bits of 256) defaults to 31, PDQ's usual match threshold. Errors are 422 INVALID_POLICY
 * (INVALID_ACTION for the action) with the position.
 */
export function parsePolicyBanks(raw: unknown, at: Position): PolicyBankRule[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > MAX_POLICY_BANKS) {
    throw new AppError('INVALID_POLICY', `\`banks\` must be a list of at most ${MAX_POLICY_BANKS} entries`, {
      field: 'banks',
      ...at([]),
    });
  }
  const seen = new Set<string>();
  return raw.map((entry, index): PolicyBankRule => {
    const field = `banks[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new AppError('INVALID_POLICY', `${field} must be a mapping with bank and action`, {
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
    if (typeof rule.bank !== 'string' || !BANK_NAME_PATTERN.test(rule.bank)) {
      throw new AppError(
        'INVALID_POLICY',
        `${field}.bank must be a bank name (1–64 of A-Z, a-z, 0-9, _ and -)`,
        {
          field: `${field}.bank`,
          ...at([index, 'bank']),
        },
      );
    }
    if (seen.has(rule.bank)) {
      throw new AppError('INVALID_POLICY', `Bank "${rule.bank}" is listed twice`, {
        field: `${field}.bank`,
        ...at([index, 'bank']),
      });
    }
    seen.add(rule.bank);
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
    return { bank: rule.bank, action: rule.action as Action, maxDistance };
  });
}
