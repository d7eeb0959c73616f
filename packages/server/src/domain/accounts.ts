import { randomBytes } from 'node:crypto';
import type { AuditSink } from '../audit/types.ts';
import type { Account, AccountRepository } from '../storage/repositories/accounts.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import type { KeyCache } from './key-cache.ts';
import { type Principal, requireOperatorAdmin } from './principal.ts';

export interface AccountInput {
  name?: string;
  monthlyQuota?: number | null;
  trialEndsAt?: string | null;
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** Public view of an account (the signing secret is shown only to the account's own admin keys). */
export function accountView(account: Account, withSecret = false) {
  return {
    accountId: account.accountId,
    name: account.name,
    monthlyQuota: account.monthlyQuota,
    trialEndsAt: account.trialEndsAt,
    isOperator: account.isOperator,
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
    ...(withSecret && { signingSecret: account.signingSecret }),
  };
}

function validate(input: AccountInput, creating: boolean): void {
  if (creating || input.name !== undefined) {
    if (typeof input.name !== 'string' || input.name.trim() === '') {
      throw new AppError('MISSING_REQUIRED_FIELD', 'name is required', { field: 'name' });
    }
    if (input.name.length > 200)
      throw new AppError('INVALID_PARAMETER', 'name is longer than 200 characters', { field: 'name' });
  }
  if (input.monthlyQuota !== undefined && input.monthlyQuota !== null) {
    if (!Number.isSafeInteger(input.monthlyQuota) || input.monthlyQuota < 0) {
      throw new AppError('INVALID_PARAMETER', 'monthlyQuota must be a non-negative integer or null', {
        field: 'monthlyQuota',
      });
    }
  }
  if (
    input.trialEndsAt !== undefined &&
    input.trialEndsAt !== null &&
    // Date.parse takes a number (5 is the year 5) or ['2030-01-01'] as well
    (typeof input.trialEndsAt !== 'string' || Number.isNaN(Date.parse(input.trialEndsAt)))
  ) {
    throw new AppError('INVALID_PARAMETER', 'trialEndsAt must be an ISO 8601 timestamp or null', {
      field: 'trialEndsAt',
    });
  }
}

const iso = (value: string | null | undefined) =>
  value === undefined || value === null ? value : new Date(value).toISOString();

export class AccountService {
  constructor(
    private readonly accounts: AccountRepository,
    /** Account creations and changes are audit entries. */
    private readonly audit: AuditSink,
    /** Verified keys carry their account's quota and trial: a change here must not wait for the cache to lapse. */
    private readonly keyCache?: KeyCache,
  ) {}

  /** `by`: the key that asked (null: the operator's CLI, or the first start creating the operator account). */
  async create(
    input: AccountInput,
    options: { isOperator?: boolean; by?: Principal | null } = {},
  ): Promise<Account> {
    validate(input, true);
    const now = new Date().toISOString();
    const account: Account = {
      accountId: newId('acc'),
      name: input.name!.trim(),
      monthlyQuota: input.monthlyQuota ?? null,
      trialEndsAt: iso(input.trialEndsAt) ?? null,
      signingSecret: newSigningSecret(),
      isOperator: options.isOperator ?? false,
      createdAt: now,
      updatedAt: now,
    };
    await this.accounts.insert(account);
    await this.audit.record(
      options.by ?? null,
      'account.created',
      { type: 'account', id: account.accountId, accountId: account.accountId },
      { after: accountView(account) },
    );
    return account;
  }

  async findOperator(): Promise<Account | null> {
    return this.accounts.findOperator();
  }

  async createAs(principal: Principal, input: AccountInput): Promise<Account> {
    requireOperatorAdmin(principal);
    return this.create(input, { by: principal });
  }

  async list(principal: Principal, limit = 100, offset = 0): Promise<Account[]> {
    requireOperatorAdmin(principal);
    return this.accounts.list(limit, offset);
  }

  async get(accountId: string): Promise<Account> {
    const account = await this.accounts.get(accountId);
    if (!account)
      throw new AppError('ACCOUNT_NOT_FOUND', `Account ${accountId} does not exist`, { accountId });
    return account;
  }

  async update(principal: Principal | null, accountId: string, input: AccountInput): Promise<Account> {
    if (principal) requireOperatorAdmin(principal);
    validate(input, false);
    const before = await this.get(accountId);
    const updated = await this.accounts.update(accountId, {
      name: input.name?.trim(),
      monthlyQuota: input.monthlyQuota,
      trialEndsAt: iso(input.trialEndsAt),
      updatedAt: new Date().toISOString(),
    });
    this.keyCache?.clear();
    await this.audit.record(
      principal,
      'account.updated',
      { type: 'account', id: accountId, accountId },
      { before: accountView(before), after: accountView(updated!) },
    );
    return updated!;
  }
}
