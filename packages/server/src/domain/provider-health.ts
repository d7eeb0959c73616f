import type { Provider, ProviderHealth } from '../providers/provider.ts';
import { type Principal, requireOperatorAdmin } from './principal.ts';
import type { UsageService } from './usage.ts';

export interface ProviderView extends Omit<ProviderHealth, 'since'> {
  categories: string[];
  contentTypes: string[];
  since: string | null;
  /** From stored decisions, on every instance: evaluations the provider answered this month and their USD. */
  evaluationsThisMonth: number;
  spendThisMonthUsd: number;
}

/**
 * GET /v1/providers: `local` and the operator's providers, with their health (this instance's counters) and this
 * month's spend (stored with the decisions, so across instances and restarts). Operator admins only.
 */
export async function listProviders(
  principal: Principal,
  providers: { all(): Provider[]; external(): Provider[] },
  usage: Pick<UsageService, 'providerSpend'>,
): Promise<ProviderView[]> {
  requireOperatorAdmin(principal);
  const spend = await usage.providerSpend();
  const local: ProviderView = {
    name: 'local',
    kind: 'bundled',
    state: 'closed',
    categories: [...new Set(providers.all().flatMap((p) => [...p.categories]))],
    contentTypes: [...new Set(providers.all().flatMap((p) => [...p.contentTypes]))],
    calls: 0,
    failures: 0,
    errorRate: 0,
    latencyMs: { p50: null, p99: null },
    since: null,
    evaluationsThisMonth: 0,
    spendThisMonthUsd: 0,
  };
  return [
    local,
    ...providers.external().map((p) => ({
      ...p.health!(),
      categories: [...p.categories],
      contentTypes: [...p.contentTypes],
      evaluationsThisMonth: spend.get(p.name)?.calls ?? 0,
      spendThisMonthUsd: spend.get(p.name)?.costUsd ?? 0,
    })),
  ];
}
