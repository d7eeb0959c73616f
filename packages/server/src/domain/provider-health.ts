import type { Provider, ProviderHealth } from '../providers/provider.ts';
import { type Principal, requireOperatorAdmin } from './principal.ts';

export interface ProviderView extends Omit<ProviderHealth, 'since'> {
  categories: string[];
  contentTypes: string[];
  since: string | null;
}

/** GET /v1/providers: `local` and the operator's providers, with their health and spend (operator admins only). */
export function listProviders(
  principal: Principal,
  providers: { all(): Provider[]; external(): Provider[] },
): ProviderView[] {
  requireOperatorAdmin(principal);
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
    spendThisMonthUsd: 0,
    since: null,
  };
  return [
    local,
    ...providers.external().map((p) => ({
      ...p.health!(),
      categories: [...p.categories],
      contentTypes: [...p.contentTypes],
    })),
  ];
}
