import type { APIClient, RequestOptions } from '../core.ts';
import type {
  Backtest,
  BacktestParams,
  Policy,
  PolicyDeleted,
  PolicyDiff,
  PolicyDiffParams,
  PolicyList,
  PolicyParams,
  PolicyValidateParams,
  PolicyValidation,
  PolicyVersionList,
  Shadow,
  ShadowParams,
  ShadowReport,
} from '../types.ts';

export interface PolicyCreateParams extends PolicyParams {
  /** Fail with 409 `DUPLICATE_POLICY_ID` instead of replacing an existing policy (`If-None-Match: *`). */
  createOnly?: boolean;
}

/** YAML policies (interface §4.5, decisions §2). */
export class Policies {
  constructor(private readonly client: APIClient) {}

  /** Creates a policy, or stores a new version of your own policy with this ID. */
  create(params: PolicyCreateParams, options?: RequestOptions): Promise<Policy> {
    const { createOnly, ...body } = params;
    return this.client.call(
      'post',
      '/v1/policies',
      { body, idempotent: true, headers: createOnly ? { 'if-none-match': '*' } : undefined },
      options,
    );
  }

  /** The latest version of a policy, or `{ version }` for an earlier one. */
  get(policyId: string, params: { version?: number } = {}, options?: RequestOptions): Promise<Policy> {
    return this.client.call('get', '/v1/policies/{policyId}', { path: { policyId }, query: params }, options);
  }

  /** Every version of a policy, oldest first. */
  versions(policyId: string, options?: RequestOptions): Promise<PolicyVersionList> {
    return this.client.call('get', '/v1/policies/{policyId}/versions', { path: { policyId } }, options);
  }

  /** What changed between two versions (default: the latest and the one before): by rule, and as a YAML diff. */
  diff(policyId: string, params: PolicyDiffParams = {}, options?: RequestOptions): Promise<PolicyDiff> {
    return this.client.call(
      'get',
      '/v1/policies/{policyId}/diff',
      { path: { policyId }, query: params },
      options,
    );
  }

  /** Stores a new version equal to `version` (nothing when the latest already is). */
  rollback(policyId: string, version: number, options?: RequestOptions): Promise<Policy> {
    return this.client.call(
      'post',
      '/v1/policies/{policyId}/rollback',
      { path: { policyId }, body: { version } },
      options,
    );
  }

  /** Deletes your policy; 409 `POLICY_IN_USE` while a running shadow uses it. Decisions keep their version. */
  delete(policyId: string, options?: RequestOptions): Promise<PolicyDeleted> {
    return this.client.call('delete', '/v1/policies/{policyId}', { path: { policyId } }, options);
  }

  /**
   * Replays a candidate (`yamlContent` or `version`) over your stored decisions and reports the action changes.
   * A large window (or `async: true`) answers at once with a queued backtest: poll it with `getBacktest`.
   */
  backtest(policyId: string, params: BacktestParams, options?: RequestOptions): Promise<Backtest> {
    return this.client.call(
      'post',
      '/v1/policies/{policyId}/backtest',
      { path: { policyId }, body: params },
      options,
    );
  }

  getBacktest(backtestId: string, options?: RequestOptions): Promise<Backtest> {
    return this.client.call('get', '/v1/backtests/{backtestId}', { path: { backtestId } }, options);
  }

  /** Runs a candidate (`shadowPolicyId`, `version` or `yamlContent`) beside the live policy, without effect. */
  setShadow(policyId: string, params: ShadowParams, options?: RequestOptions): Promise<Shadow> {
    return this.client.call(
      'put',
      '/v1/policies/{policyId}/shadow',
      { path: { policyId }, body: params },
      options,
    );
  }

  getShadow(policyId: string, options?: RequestOptions): Promise<Shadow> {
    return this.client.call('get', '/v1/policies/{policyId}/shadow', { path: { policyId } }, options);
  }

  stopShadow(policyId: string, options?: RequestOptions): Promise<Shadow> {
    return this.client.call('delete', '/v1/policies/{policyId}/shadow', { path: { policyId } }, options);
  }

  /** What the newest shadow would have changed, in the shape of a backtest report. */
  shadowReport(
    policyId: string,
    params: { examples?: number } = {},
    options?: RequestOptions,
  ): Promise<ShadowReport> {
    return this.client.call(
      'get',
      '/v1/policies/{policyId}/shadow/report',
      { path: { policyId }, query: params },
      options,
    );
  }

  /** Checks policy YAML without saving it: the errors `create` would give (422, with line and column). */
  validate(params: PolicyValidateParams, options?: RequestOptions): Promise<PolicyValidation> {
    return this.client.call('post', '/v1/policies/validate', { body: params }, options);
  }

  /** The built-in policies and your own. */
  list(options?: RequestOptions): Promise<PolicyList> {
    return this.client.call('get', '/v1/policies', {}, options);
  }
}
