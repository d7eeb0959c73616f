import type { AppContext } from './context.ts';
import type { Account } from './storage/repositories/accounts.ts';

export interface BootstrapResult {
  operator: Account;
  /** The admin key created on first start; shown once, never stored in clear. */
  firstKey: string | null;
}

/**
 * Makes sure the operator account exists (decisions §0, §9). With VERDICT_BOOTSTRAP_KEY, an admin key with exactly
 * that value exists; otherwise, when the operator account has never had a key, one admin key is generated and
 * returned here to be printed once. `issueFirstKey: false` (the CLI's administrative commands, which print no key)
 * leaves that to the first start of the service, so running `verdict accounts list` first does not swallow it.
 */
export async function bootstrap(
  ctx: Pick<AppContext, 'accounts' | 'keys' | 'secrets'>,
  options: { issueFirstKey?: boolean } = {},
): Promise<BootstrapResult> {
  let operator = await ctx.accounts.findOperator();
  if (!operator) operator = await ctx.accounts.create({ name: 'Operator' }, { isOperator: true });
  const bootstrapKey = ctx.secrets.bootstrapKey;
  if (bootstrapKey) {
    if (!(await ctx.keys.findByKey(bootstrapKey))) {
      await ctx.keys.create(
        null,
        { name: 'bootstrap', scopes: ['admin'], accountId: operator.accountId },
        bootstrapKey,
      );
    }
    return { operator, firstKey: null };
  }
  // revoked keys count: an operator who revoked every key gets no new one printed to the logs by a restart
  if (options.issueFirstKey !== false && (await ctx.keys.list(null, operator.accountId)).length === 0) {
    const { key } = await ctx.keys.create(null, {
      name: 'first-start admin',
      scopes: ['admin'],
      accountId: operator.accountId,
    });
    return { operator, firstKey: key };
  }
  return { operator, firstKey: null };
}
