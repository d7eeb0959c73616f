import { AppError } from './errors.ts';

export const SCOPES = [
  'check',
  'policies:read',
  'policies:write',
  'decisions:read',
  'webhooks:read',
  'webhooks:write',
  'banks:read',
  'banks:write',
  'audit:read',
  'lists:read',
  'lists:write',
  'review',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** The authenticated caller: one API key of one account. */
export interface Principal {
  keyId: string;
  /** The key's name, for audit entries and review records (reviewer identity); absent for background work. */
  keyName?: string;
  accountId: string;
  scopes: ReadonlySet<Scope>;
  isOperator: boolean;
  rateLimit: { perMinute: number; burstPerSecond: number } | null;
  /** The account's quota and trial, read with the key so that checks need no extra query. */
  account: { monthlyQuota: number | null; trialEndsAt: string | null };
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.has('admin') || principal.scopes.has(scope);
}

/**
 * For an operation that several scopes allow (polling a video or batch: `decisions:read`, or the `check` that
 * submitted it): passes with any of them; the refusal names the last.
 */
export function requireAnyScope(principal: Principal, ...scopes: [Scope, ...Scope[]]): void {
  if (!scopes.some((scope) => hasScope(principal, scope)))
    requireScope(principal, scopes[scopes.length - 1]!);
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) {
    throw new AppError('INSUFFICIENT_PERMISSIONS', `This API key lacks the "${scope}" scope`, { scope });
  }
}

/** Operator administration (accounts, other accounts' keys) needs an admin key of the operator account. */
export function requireOperatorAdmin(principal: Principal): void {
  if (!principal.isOperator || !principal.scopes.has('admin')) {
    throw new AppError(
      'INSUFFICIENT_PERMISSIONS',
      'This operation needs an admin key of the operator account',
      {
        scope: 'admin',
        operator: true,
      },
    );
  }
}

/**
 * The principal background work runs as: the submitting key and account, with only the `check` scope. Quotas and
 * trials were enforced when the work was accepted, so none are applied again.
 */
export function workerPrincipal(keyId: string, accountId: string): Principal {
  return {
    keyId,
    accountId,
    scopes: new Set(['check']),
    isOperator: false,
    rateLimit: null,
    account: { monthlyQuota: null, trialEndsAt: null },
  };
}
