import type { APIClient, RequestOptions } from '../core.ts';
import type {
  Account,
  AccountCreateParams,
  AccountList,
  AccountListParams,
  AccountUpdateParams,
  ApiKey,
  KeyCreateParams,
  KeyList,
  KeyListParams,
  KeyRevoked,
  KeyUpdateParams,
  KeyUsage,
  KeyUsageParams,
  ProviderList,
  Usage,
  UsageParams,
} from '../types.ts';

/** API keys (admin scope; decisions §9). */
export class Keys {
  constructor(private readonly client: APIClient) {}

  /**
   * Creates a key; the response's `key` is shown only here. Not idempotent (the service never stores a key, so it
   * cannot replay one): it is retried only after a 429, never after a failure that may have created the key.
   */
  create(params: KeyCreateParams, options?: RequestOptions): Promise<ApiKey> {
    return this.client.call('post', '/v1/keys', { body: params }, options);
  }

  list(params: KeyListParams = {}, options?: RequestOptions): Promise<KeyList> {
    return this.client.call('get', '/v1/keys', { query: params }, options);
  }

  /** Renames a key or sets its rate limits (`rateLimit: null` restores the defaults). */
  update(id: string, params: KeyUpdateParams, options?: RequestOptions): Promise<ApiKey> {
    return this.client.call('patch', '/v1/keys/{id}', { path: { id }, body: params }, options);
  }

  /** Revokes a key at once. */
  revoke(id: string, options?: RequestOptions): Promise<KeyRevoked> {
    return this.client.call('delete', '/v1/keys/{id}', { path: { id } }, options);
  }
}

/** Accounts (operator admin). */
export class Accounts {
  constructor(private readonly client: APIClient) {}

  create(params: AccountCreateParams, options?: RequestOptions): Promise<Account> {
    return this.client.call('post', '/v1/accounts', { body: params, idempotent: true }, options);
  }

  list(params: AccountListParams = {}, options?: RequestOptions): Promise<AccountList> {
    return this.client.call('get', '/v1/accounts', { query: params }, options);
  }

  update(accountId: string, params: AccountUpdateParams, options?: RequestOptions): Promise<Account> {
    return this.client.call(
      'patch',
      '/v1/accounts/{accountId}',
      { path: { accountId }, body: params },
      options,
    );
  }
}

/** The caller's own account. */
export class AccountResource {
  constructor(private readonly client: APIClient) {}

  /** Your account; with an admin key, also the `signingSecret` of ad-hoc webhook deliveries (async batches, videos). */
  get(options?: RequestOptions): Promise<Account> {
    return this.client.call('get', '/v1/account', {}, options);
  }
}

/** Monthly usage of the caller's account. */
export class UsageResource {
  constructor(private readonly client: APIClient) {}

  /** Evaluations in a month (`YYYY-MM`, default the current one). */
  get(params: UsageParams = {}, options?: RequestOptions): Promise<Usage> {
    return this.client.call('get', '/v1/usage', { query: params }, options);
  }

  /** Checks (stored decisions) per API key in a month, every key of the account listed (admin). */
  byKey(params: KeyUsageParams = {}, options?: RequestOptions): Promise<KeyUsage> {
    return this.client.call('get', '/v1/usage/keys', { query: params }, options);
  }
}

/** AI providers configured by the operator: circuit state, latency, error rate, spend (operator admin). */
export class ProvidersResource {
  constructor(private readonly client: APIClient) {}

  list(options?: RequestOptions): Promise<ProviderList> {
    return this.client.call('get', '/v1/providers', {}, options);
  }
}
