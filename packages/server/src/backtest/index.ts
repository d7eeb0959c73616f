import type { AuditSink } from '../audit/types.ts';
import type { PolicyLifecycle } from '../domain/policies/lifecycle.ts';
import type { PolicyService } from '../domain/policies/service.ts';
import type { NamedProviders } from '../domain/routing.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Db } from '../storage/database.ts';
import { BacktestService } from './backtests.ts';
import { BacktestRepository } from './repository.ts';
import { ShadowRepository } from './shadow-repository.ts';
import { ShadowService } from './shadows.ts';

export { BACKTEST_TASK, BacktestService, backtestView } from './backtests.ts';
export { ShadowService, shadowView } from './shadows.ts';
export { backtestTask } from './tasks.ts';

/** Builds the backtest and shadow services over one database (the composition root calls this once). */
export function createBacktesting(
  db: Db,
  deps: {
    policies: PolicyService;
    lifecycle: PolicyLifecycle;
    providers: NamedProviders;
    queue: Queue;
    audit: AuditSink;
  },
  cacheMs: number,
): { backtests: BacktestService; shadows: ShadowService } {
  const backtests = new BacktestService(new BacktestRepository(db), deps);
  const shadows = new ShadowService(new ShadowRepository(db), deps, cacheMs);
  deps.lifecycle.addUseCheck(shadows.useCheck);
  return { backtests, shadows };
}
