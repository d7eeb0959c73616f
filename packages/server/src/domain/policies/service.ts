import type { AuditSink } from '../../audit/types.ts';
import type { PolicyRepository } from '../../storage/repositories/policies.ts';
import { AppError } from '../errors.ts';
import { type Principal, requireScope } from '../principal.ts';
import { BUILTIN_POLICY_SOURCES, builtinPolicy } from './builtin.ts';
import { parsePolicyYaml } from './parse.ts';
import { POLICY_ID_PATTERN, type Policy } from './policy.ts';
import { routedProviders } from './routing.ts';

/** The provider names policies may route to (`local` and the operator's). */
export interface ProviderNames {
  names(): string[];
}

export function validatePolicyId(policyId: unknown, field = 'policyId'): string {
  if (policyId === undefined || policyId === null) {
    throw new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { field });
  }
  if (typeof policyId !== 'string' || !POLICY_ID_PATTERN.test(policyId)) {
    throw new AppError('INVALID_POLICY_ID', `${field} must be 1–64 characters of A-Z, a-z, 0-9, _ and -`, {
      field,
      pattern: POLICY_ID_PATTERN.source,
    });
  }
  return policyId;
}

/** Public view of a policy (interface §2.4 plus decisions §2's version fields). */
export function policyView(policy: Policy) {
  return {
    policyId: policy.policyId,
    name: policy.name,
    description: policy.description,
    categories: policy.categories,
    ...(policy.banks && { banks: policy.banks }),
    ...(policy.lists && { lists: policy.lists }),
    ...(policy.routing && { routing: policy.routing }),
    version: policy.version,
    builtin: policy.builtin,
    yamlContent: policy.yaml,
    createdAt: policy.createdAt,
    updatedAt: policy.updatedAt,
  };
}

export class PolicyService {
  private readonly builtins: Map<string, Policy>;

  constructor(
    private readonly policies: PolicyRepository,
    /** Every new version of a policy is an audit entry, with the YAML before and after. */
    private readonly audit: AuditSink,
    private readonly providers: ProviderNames = { names: () => ['local'] },
    /** The names among `names` that are banks of the account: a policy may only name existing banks. */
    private readonly existingBanks: (accountId: string, names: string[]) => Promise<Set<string>> = async () =>
      new Set(),
    /** The kinds of the lists among `names` that the account has: a policy may only name existing lists. */
    private readonly existingLists: (
      accountId: string,
      names: string[],
    ) => Promise<Map<string, { kind: 'block' | 'allow' }>> = async () => new Map(),
  ) {
    this.builtins = new Map(
      Object.entries(BUILTIN_POLICY_SOURCES).map(([id, yaml]) => [
        id,
        builtinPolicy(id, parsePolicyYaml(yaml)),
      ]),
    );
  }

  /** Create or update (decisions §2). Returns whether it was created. */
  async save(
    principal: Principal,
    input: { policyId?: unknown; yamlContent?: unknown },
    options: {
      createOnly: boolean /** the audit entry's action, when not policy.created / policy.updated */;
      auditAction?: string;
    },
  ): Promise<{ created: boolean; unchanged: boolean; policy: Policy }> {
    requireScope(principal, 'policies:write');
    const policyId = validatePolicyId(input.policyId);
    if (input.yamlContent === undefined || input.yamlContent === null || input.yamlContent === '') {
      throw new AppError('MISSING_REQUIRED_FIELD', 'yamlContent is required', { field: 'yamlContent' });
    }
    if (typeof input.yamlContent !== 'string') {
      throw new AppError('INVALID_YAML', 'yamlContent must be a string of YAML', { field: 'yamlContent' });
    }
    const parsed = parsePolicyYaml(input.yamlContent);
    const known = this.providers.names();
    for (const name of routedProviders(parsed.routing)) {
      if (!known.includes(name)) {
        throw new AppError(
          'INVALID_POLICY',
          `Unknown provider "${name}"; the operator configures providers`,
          {
            provider: name,
            allowed: known,
          },
        );
      }
    }
    if (parsed.banks) {
      const names = parsed.banks.map((b) => b.bank);
      const existing = await this.existingBanks(principal.accountId, names);
      const unknown = names.find((n) => !existing.has(n));
      if (unknown !== undefined) {
        throw new AppError(
          'INVALID_POLICY',
          `The policy names bank "${unknown}", which this account does not have`,
          {
            field: 'banks',
            bank: unknown,
            reason: 'unknown_bank',
          },
        );
      }
    }
    if (parsed.lists) await this.checkLists(principal.accountId, parsed.lists);
    if (this.builtins.has(policyId)) {
      throw new AppError('DUPLICATE_POLICY_ID', `"${policyId}" is a built-in policy and cannot be replaced`, {
        policyId,
      });
    }
    const result = await this.policies.save(
      { policyId, accountId: principal.accountId, yaml: input.yamlContent, ...parsed },
      { createOnly: options.createOnly, now: new Date().toISOString() },
    );
    if (result.kind === 'conflict') {
      throw new AppError('DUPLICATE_POLICY_ID', `A policy with ID "${policyId}" already exists`, {
        policyId,
      });
    }
    // the same YAML again changed nothing: no version, no entry
    if (result.kind !== 'unchanged')
      await this.audit.record(
        principal,
        options.auditAction ?? (result.kind === 'created' ? 'policy.created' : 'policy.updated'),
        { type: 'policy', id: policyId, accountId: principal.accountId },
        { before: result.previous && policyView(result.previous), after: policyView(result.policy) },
      );
    return {
      created: result.kind === 'created',
      unchanged: result.kind === 'unchanged',
      policy: result.policy,
    };
  }

  /** Each named list exists in the account, and a rule's `action` / `caps` suit its kind (block / allow). */
  private async checkLists(accountId: string, rules: NonNullable<Policy['lists']>): Promise<void> {
    const lists = await this.existingLists(
      accountId,
      rules.map((r) => r.list),
    );
    for (const [index, rule] of rules.entries()) {
      const list = lists.get(rule.list);
      if (!list) {
        throw new AppError(
          'INVALID_POLICY',
          `The policy names list "${rule.list}", which this account does not have`,
          {
            field: `lists[${index}].list`,
            list: rule.list,
            reason: 'unknown_list',
          },
        );
      }
      const misplaced = list.kind === 'block' ? rule.caps && 'caps' : rule.action && 'action';
      if (misplaced) {
        throw new AppError(
          'INVALID_POLICY',
          `List "${rule.list}" is a ${list.kind} list: ${misplaced} does not apply`,
          {
            field: `lists[${index}].${misplaced}`,
            list: rule.list,
            reason: 'wrong_list_kind',
          },
        );
      }
    }
  }

  /**
   * Validates policy YAML without saving it (the console's editor checks as you type): the same errors, with
   * line and column, that saving would give.
   */
  validate(principal: Principal, yamlContent: unknown) {
    requireScope(principal, 'policies:write');
    if (yamlContent === undefined || yamlContent === null || yamlContent === '') {
      throw new AppError('MISSING_REQUIRED_FIELD', 'yamlContent is required', { field: 'yamlContent' });
    }
    if (typeof yamlContent !== 'string') {
      throw new AppError('INVALID_YAML', 'yamlContent must be a string of YAML', { field: 'yamlContent' });
    }
    return parsePolicyYaml(yamlContent);
  }

  /** A policy the caller may use; 404 when it exists nowhere, 403 when it is another account's. */
  async resolve(principal: Principal, policyId: unknown): Promise<Policy> {
    const id = validatePolicyId(policyId);
    const builtin = this.builtins.get(id);
    if (builtin) return builtin;
    const policy = await this.policies.get(id);
    if (!policy) throw new AppError('POLICY_NOT_FOUND', `Policy "${id}" does not exist`, { policyId: id });
    if (policy.accountId !== principal.accountId) {
      throw new AppError('POLICY_NOT_ACCESSIBLE', `Policy "${id}" belongs to another account`, {
        policyId: id,
      });
    }
    return policy;
  }

  async get(principal: Principal, policyId: unknown): Promise<Policy> {
    requireScope(principal, 'policies:read');
    return this.resolve(principal, policyId);
  }

  async list(principal: Principal): Promise<Policy[]> {
    requireScope(principal, 'policies:read');
    return [...this.builtins.values(), ...(await this.policies.listForAccount(principal.accountId))];
  }
}
