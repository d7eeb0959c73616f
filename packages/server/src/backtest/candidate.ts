import { AppError } from '../domain/errors.ts';
import type { PolicyLifecycle } from '../domain/policies/lifecycle.ts';
import { parseVersion } from '../domain/policies/lifecycle.ts';
import { parsePolicyYaml } from '../domain/policies/parse.ts';
import type { Policy } from '../domain/policies/policy.ts';
import type { PolicyService } from '../domain/policies/service.ts';
import type { Principal } from '../domain/principal.ts';

/** Where a candidate policy came from: YAML sent with the request, a version of the policy, or another policy. */
export type CandidateSource = 'yaml' | 'version' | 'policy';

export interface CandidateInput {
  yamlContent?: unknown;
  version?: unknown;
  /** another policy (its latest version), for shadows */
  shadowPolicyId?: unknown;
}

/**
 * The candidate a backtest or shadow applies, frozen at request time: YAML is parsed with the same rules as saving
 * (422 with line and column), a version must exist, a policy must be one the caller may use.
 */
export async function resolveCandidate(
  principal: Principal,
  live: Policy,
  input: CandidateInput,
  deps: { policies: PolicyService; lifecycle: PolicyLifecycle },
  allowPolicy = false,
): Promise<{ policy: Policy; source: CandidateSource }> {
  const given = (['yamlContent', 'version', ...(allowPolicy ? ['shadowPolicyId'] : [])] as const).filter(
    (k) => input[k as keyof CandidateInput] !== undefined && input[k as keyof CandidateInput] !== null,
  );
  if (given.length === 0) {
    const fields = allowPolicy ? 'yamlContent, version or shadowPolicyId' : 'yamlContent or version';
    throw new AppError('MISSING_REQUIRED_FIELD', `One of ${fields} is required`, {
      field: given[0] ?? fields,
    });
  }
  if (given.length > 1) {
    throw new AppError('INVALID_PARAMETER', `Give only one of ${given.join(', ')}`, { field: given[1] });
  }
  if (given[0] === 'yamlContent') {
    if (typeof input.yamlContent !== 'string' || input.yamlContent === '') {
      throw new AppError('INVALID_YAML', 'yamlContent must be a string of YAML', { field: 'yamlContent' });
    }
    const parsed = parsePolicyYaml(input.yamlContent);
    const policy: Policy = {
      ...parsed,
      policyId: live.policyId,
      version: 0,
      builtin: false,
      accountId: principal.accountId,
      yaml: input.yamlContent,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    };
    return { policy, source: 'yaml' };
  }
  if (given[0] === 'version') {
    if (typeof input.version !== 'number') {
      throw new AppError('INVALID_PARAMETER', 'version must be a positive integer', { field: 'version' });
    }
    const version = parseVersion(input.version);
    return { policy: await deps.lifecycle.atVersion(principal, live.policyId, version), source: 'version' };
  }
  return { policy: await deps.policies.resolve(principal, input.shadowPolicyId), source: 'policy' };
}

/** How a report names its candidate. */
export function candidateView(policy: Policy, source: CandidateSource) {
  return {
    source,
    policyId: policy.policyId,
    version: source === 'yaml' ? null : policy.version,
    name: policy.name,
  };
}
