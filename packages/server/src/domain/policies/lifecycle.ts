import type { AuditSink } from '../../audit/types.ts';
import type { Db } from '../../storage/database.ts';
import type { PolicyRepository, PolicyVersionRecord } from '../../storage/repositories/policies.ts';
import { AppError } from '../errors.ts';
import { type Principal, requireScope } from '../principal.ts';
import { diffPolicies, type PolicyDiff } from './diff.ts';
import type { Policy } from './policy.ts';
import { type PolicyService, policyView } from './service.ts';

/** Refuses (throws 409 POLICY_IN_USE) when something still uses the policy; runs in the delete's transaction. */
export type PolicyUseCheck = (trx: Db, accountId: string, policyId: string) => Promise<void>;

/** A stored version as the domain's Policy (its `updatedAt` is when that version was written). */
export function versionAsPolicy(live: Pick<Policy, 'createdAt'> | null, v: PolicyVersionRecord): Policy {
  return {
    policyId: v.policyId,
    name: v.name,
    description: v.body.description,
    categories: v.body.categories,
    ...(v.body.banks && { banks: v.body.banks }),
    routing: v.body.routing ?? null,
    version: v.version,
    builtin: false,
    accountId: v.accountId,
    yaml: v.yaml,
    createdAt: live?.createdAt ?? v.createdAt,
    updatedAt: v.createdAt,
  };
}

export const MAX_VERSION = 2_147_483_647;

export function parseVersion(value: unknown, field = 'version'): number {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_VERSION) {
    throw new AppError('INVALID_PARAMETER', `${field} must be a positive integer`, { field });
  }
  return n;
}

/** Versions, diff, rollback and deletion of policies (issue 18). */
export class PolicyLifecycle {
  private useChecks: PolicyUseCheck[] = [];

  constructor(
    private readonly policies: PolicyService,
    private readonly repository: PolicyRepository,
    /** Rollbacks and deletions are audit entries, with the policy before and after. */
    private readonly audit: AuditSink,
  ) {}

  /** Another module (shadows) that may hold a policy: deletion asks it first. */
  addUseCheck(check: PolicyUseCheck): void {
    this.useChecks.push(check);
  }

  async versions(principal: Principal, policyId: unknown): Promise<{ policy: Policy; versions: Policy[] }> {
    requireScope(principal, 'policies:read');
    const policy = await this.policies.resolve(principal, policyId);
    if (policy.builtin) return { policy, versions: [policy] };
    const rows = await this.repository.listVersions(policy.policyId, principal.accountId);
    return { policy, versions: rows.map((v) => versionAsPolicy(policy, v)) };
  }

  /** One version of a policy the caller may use; 404 POLICY_VERSION_NOT_FOUND when it has no such version. */
  async atVersion(principal: Principal, policyId: unknown, version: number): Promise<Policy> {
    const policy = await this.policies.resolve(principal, policyId);
    if (policy.version === version) return policy;
    const stored = policy.builtin ? null : await this.repository.getVersion(policy.policyId, version);
    if (!stored || stored.accountId !== principal.accountId) {
      throw new AppError(
        'POLICY_VERSION_NOT_FOUND',
        `Policy "${policy.policyId}" has no version ${version}`,
        {
          policyId: policy.policyId,
          version,
          latest: policy.version,
        },
      );
    }
    return versionAsPolicy(policy, stored);
  }

  async get(principal: Principal, policyId: unknown, version?: number): Promise<Policy> {
    requireScope(principal, 'policies:read');
    return version === undefined
      ? this.policies.resolve(principal, policyId)
      : this.atVersion(principal, policyId, version);
  }

  /** `from` defaults to the version before `to`, `to` to the latest. */
  async diff(
    principal: Principal,
    policyId: unknown,
    query: { from?: unknown; to?: unknown },
  ): Promise<PolicyDiff> {
    requireScope(principal, 'policies:read');
    const live = await this.policies.resolve(principal, policyId);
    const to = query.to === undefined ? live.version : parseVersion(query.to, 'to');
    const from = query.from === undefined ? Math.max(1, to - 1) : parseVersion(query.from, 'from');
    const [a, b] = await Promise.all([
      this.atVersion(principal, live.policyId, from),
      this.atVersion(principal, live.policyId, to),
    ]);
    return diffPolicies(a, b);
  }

  /** A new version equal to `version` (or the latest unchanged when it already is). */
  async rollback(
    principal: Principal,
    policyId: unknown,
    body: { version?: unknown },
  ): Promise<{ policy: Policy; created: boolean }> {
    requireScope(principal, 'policies:write');
    if (body.version === undefined || body.version === null) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'version is required', { field: 'version' });
    }
    if (typeof body.version !== 'number') {
      throw new AppError('INVALID_PARAMETER', 'version must be a positive integer', { field: 'version' });
    }
    const version = parseVersion(body.version);
    const target = await this.atVersion(principal, policyId, version);
    if (target.builtin) {
      throw new AppError('POLICY_READ_ONLY', `"${target.policyId}" is a built-in policy and cannot change`, {
        policyId: target.policyId,
      });
    }
    const before = await this.policies.resolve(principal, target.policyId);
    const { policy } = await this.policies.save(
      principal,
      { policyId: target.policyId, yamlContent: target.yaml },
      { createOnly: false, auditAction: 'policy.rolled_back' },
    );
    const created = policy.version !== before.version;
    return { policy, created };
  }

  /** Deletes the caller's own policy; refused for built-ins and while something uses it. Versions stay. */
  async delete(principal: Principal, policyId: unknown): Promise<{ policyId: string; deleted: true }> {
    requireScope(principal, 'policies:write');
    const policy = await this.policies.resolve(principal, policyId);
    if (policy.builtin) {
      throw new AppError(
        'POLICY_READ_ONLY',
        `"${policy.policyId}" is a built-in policy and cannot be deleted`,
        {
          policyId: policy.policyId,
        },
      );
    }
    const deleted = await this.repository.delete(policy.policyId, principal.accountId, async (trx) => {
      for (const check of this.useChecks) await check(trx, principal.accountId, policy.policyId);
    });
    if (!deleted) {
      throw new AppError('POLICY_NOT_FOUND', `Policy "${policy.policyId}" does not exist`, {
        policyId: policy.policyId,
      });
    }
    await this.audit.record(
      principal,
      'policy.deleted',
      { type: 'policy', id: policy.policyId, accountId: principal.accountId },
      { before: policyView(policy), after: null },
    );
    return { policyId: policy.policyId, deleted: true };
  }
}
