import type { APIClient, RequestOptions } from '../core.ts';
import type { Policy, PolicyList, PolicyParams, PolicyValidateParams, PolicyValidation } from '../types.ts';

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

  get(policyId: string, options?: RequestOptions): Promise<Policy> {
    return this.client.call('get', '/v1/policies/{policyId}', { path: { policyId } }, options);
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
