import type { AppContext } from '../context.ts';
import { isAppError } from '../domain/errors.ts';
import { VIDEO_MAINTENANCE_TASK, VIDEO_TASK } from '../domain/videos.ts';
import type { TaskDefinition } from './queue.ts';

const MAINTENANCE_EVERY_MS = 10 * 60_000;
/** A processing video untouched this long may have lost its job (the process died before enqueueing it). */
const STALLED_AFTER_MS = 5 * 60_000;

function maintenanceJob(delayMs: number) {
  // One job per period: workers that start together, or a run that re-schedules itself, share the ID.
  const period = Math.floor((Date.now() + delayMs) / MAINTENANCE_EVERY_MS);
  return { name: VIDEO_MAINTENANCE_TASK, data: {}, id: `video-maintain-${period}`, delayMs, maxAttempts: 2 };
}

/**
 * The video analysis task, and the periodic upkeep (lost jobs, expired evidence, leftover uploads). A video
 * whose worker died is leased again by the queue and analysed again from its first frame.
 */
export function buildVideoTasks(ctx: AppContext): TaskDefinition[] {
  const analyse: TaskDefinition<{ videoId: string }> = {
    name: VIDEO_TASK,
    backoffMs: (attempt) => Math.min(2000 * 2 ** (attempt - 1), 60_000),
    async handle(job) {
      try {
        await ctx.videos.process(job.data.videoId, job.signal);
      } catch (error) {
        // Bad content or a deleted policy will not heal by retrying.
        if (isAppError(error) && error.status < 500) {
          await ctx.videos.fail(job.data.videoId, error);
          return;
        }
        throw error;
      }
    },
    onExhausted: (job, error) => ctx.videos.fail(job.data.videoId, error),
  };
  const maintain: TaskDefinition<Record<string, never>> = {
    name: VIDEO_MAINTENANCE_TASK,
    async handle() {
      await ctx.videos.maintain({ stalledAfterMs: Math.max(STALLED_AFTER_MS, 2 * ctx.config.jobLeaseMs) });
      await ctx.queue.enqueue([maintenanceJob(MAINTENANCE_EVERY_MS)]);
    },
  };
  // Upkeep runs when a worker starts, then every period.
  void ctx.queue.enqueue([maintenanceJob(0)]).catch(() => {});
  return [analyse, maintain] as TaskDefinition[];
}
