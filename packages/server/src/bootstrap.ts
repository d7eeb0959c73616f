import type { AppContext } from './context.ts';
import type { Account } from './storage/repositories/accounts.ts';

export interface BootstrapResult {
  operator: Account;
  /** The admin key created on first start; shown once, never stored in clear. */
  firstKey: string | null;
}

/**
 * Makes sure the operator account exists (decisions §0, §9). With VERDICT_BOOTSTRAP_KEY, an admin key with exactly
 * that value exists; otherwise an empty database gets one generated admin key, returned here to be printed once.
 */
export async function bootstrap(ctx: AppContext): Promise<BootstrapResult> {
  let operator = await ctx.accounts.findOperator();
  let createdOperator = false;
  if (!operator) {
    operator = await ctx.accounts.create({ name: 'Operator' }, { isOperator: true });
    createdOperator = true;
  }
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
  if (createdOperator) {
    const { key } = await ctx.keys.create(null, {
      name: 'first-start admin',
      scopes: ['admin'],
      accountId: operator.accountId,
    });
    return { operator, firstKey: key };
  }
  return { operator, firstKey: null };
}
