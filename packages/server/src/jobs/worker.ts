import type { AppContext } from '../context.ts';
import { IDEMPOTENCY_RETENTION_MS } from '../storage/repositories/idempotency.ts';
import type { Logger } from './logger.ts';
import { FAILED_JOB_RETENTION_MS } from './queue.ts';
import { buildTasks } from './tasks.ts';

export interface RunningWorker {
  /** Stops taking work and drains running jobs (up to `timeoutMs`, then hands them back to the queue). */
  stop(options?: { timeoutMs?: number; force?: boolean }): Promise<void>;
}

const EVENT_RETENTION_MS = 7 * 86_400_000;

/**
 * The background worker: consumes the queue with every task handler, relays the event outbox into deliveries, and
 * sweeps up batches whose job was lost (their process died between storing the batch and enqueueing it).
 * Runs inside `verdict serve` by default, or alone as `verdict worker`.
 */
export function startWorker(ctx: AppContext, options: { log?: Logger; pollMs?: number } = {}): RunningWorker {
  const { log } = options;
  const consumer = ctx.queue.consume(buildTasks(ctx), {
    concurrency: ctx.config.workerConcurrency,
    onError: (error, job) =>
      log?.warn(
        { err: error, job: job && { id: job.id, name: job.name, attempt: job.attempt } },
        'job attempt failed',
      ),
  });
  ctx.outboxRelay.start({
    ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
    onError: (error) => log?.error({ err: error }, 'outbox relay failed'),
  });
  const unsubscribe = ctx.events.onRecorded(() => ctx.outboxRelay.wake());
  const lease = ctx.config.jobLeaseMs;
  const sweep = async () => {
    try {
      const resumed = await ctx.batches.resumeStalled(lease);
      if (resumed > 0) log?.info({ resumed }, 'resumed stalled batches');
      const backtests = await ctx.backtests.resumeStalled(lease);
      if (backtests > 0) log?.info({ backtests }, 'resumed stalled backtests');
      await ctx.events.repository.purgeDispatchedBefore(
        new Date(Date.now() - EVENT_RETENTION_MS).toISOString(),
      );
      // Expired idempotency keys already count as absent; delete them so the table does not grow for ever.
      await ctx.idempotency.purgeOlderThan(new Date(Date.now() - IDEMPOTENCY_RETENTION_MS).toISOString());
      if (ctx.retention.enabled) {
        const { redacted, deleted } = await ctx.retention.sweep();
        if (redacted + deleted > 0)
          log?.info({ redacted, deleted }, 'retention: decisions redacted and deleted');
      }
      // Failed jobs are kept a week for inspection (as BullMQ keeps them), then deleted.
      await ctx.queue.purgeFailedBefore?.(new Date(Date.now() - FAILED_JOB_RETENTION_MS));
    } catch (error) {
      log?.error({ err: error }, 'sweep failed');
    }
  };
  void sweep();
  const sweeper = setInterval(() => void sweep(), Math.min(30_000, Math.max(1000, lease)));
  sweeper.unref();
  let stopping: Promise<void> | null = null;
  return {
    stop(stopOptions = {}) {
      stopping ??= (async () => {
        clearInterval(sweeper);
        unsubscribe();
        await ctx.outboxRelay.stop();
        await consumer.stop({
          timeoutMs: stopOptions.timeoutMs ?? ctx.config.shutdownTimeoutMs,
          ...(stopOptions.force !== undefined && { force: stopOptions.force }),
        });
      })();
      return stopping;
    },
  };
}
