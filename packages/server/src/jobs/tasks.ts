import { backtestTask } from '../backtest/index.ts';
import type { AppContext } from '../context.ts';
import { BATCH_TASK } from '../domain/batches.ts';
import { isAppError } from '../domain/errors.ts';
import { DELIVER_TASK, type DeliveryJobData } from '../domain/webhook-delivery.ts';
import { RetryLaterError, type TaskDefinition } from './queue.ts';
import { buildVideoTasks } from './video-tasks.ts';

/** Every background task: a thin adapter from a job to one domain call, the same on every queue. */
export function buildTasks(ctx: AppContext): TaskDefinition[] {
  const deliver: TaskDefinition<DeliveryJobData> = {
    name: DELIVER_TASK,
    async handle(job) {
      const outcome = await ctx.webhookDeliverer.deliver(job.data, job.attempt, job.maxAttempts, job.signal);
      if (outcome.kind === 'retry') throw new RetryLaterError(outcome.delayMs, outcome.reason);
    },
  };
  const batch: TaskDefinition<{ batchId: string }> = {
    name: BATCH_TASK,
    backoffMs: (attempt) => Math.min(2000 * 2 ** (attempt - 1), 60_000),
    async handle(job) {
      try {
        await ctx.batches.process(job.data.batchId, job.signal);
      } catch (error) {
        // A request error (e.g. the policy was deleted meanwhile) will not heal by retrying.
        if (isAppError(error) && error.status < 500) {
          await ctx.batches.fail(job.data.batchId, error);
          return;
        }
        throw error;
      }
    },
    onExhausted: (job, error) => ctx.batches.fail(job.data.batchId, error),
  };
  return [deliver, batch, ...buildVideoTasks(ctx), backtestTask(ctx.backtests)] as TaskDefinition[];
}
