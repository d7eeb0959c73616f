import { isAppError } from '../domain/errors.ts';
import type { TaskDefinition } from '../jobs/queue.ts';
import { BACKTEST_TASK, type BacktestService } from './backtests.ts';

/** The backtest job: a thin adapter to BacktestService.run, which resumes from the last checkpoint. */
export function backtestTask(backtests: BacktestService): TaskDefinition<{ backtestId: string }> {
  return {
    name: BACKTEST_TASK,
    backoffMs: (attempt) => Math.min(2000 * 2 ** (attempt - 1), 60_000),
    async handle(job) {
      try {
        await backtests.run(job.data.backtestId, job.signal);
      } catch (error) {
        // a request error (e.g. the account's data changed shape) will not heal by retrying
        if (isAppError(error) && error.status < 500) return backtests.fail(job.data.backtestId, error);
        throw error;
      }
    },
    onExhausted: (job, error) => backtests.fail(job.data.backtestId, error),
  };
}
