import type { PolicyOutcome } from '../domain/engine.ts';
import { mostSevere } from '../domain/taxonomy.ts';
import type { BankMatch } from './types.ts';

/**
 * A bank match acts like a triggered rule: the decision's action is the more severe of the bank rule's and the
 * categories' (which, as no model ran, are all `evaluated: false`); `flagged` unless the rule's action is allow
 * (an allow-list bank lets known-good images through without a model run).
 */
export function applyBankMatch(outcome: PolicyOutcome, match: BankMatch): PolicyOutcome {
  const action = mostSevere([outcome.action, match.action]);
  return {
    ...outcome,
    flagged: outcome.flagged || match.action !== 'allow',
    action,
    safe: action === 'allow',
  };
}
