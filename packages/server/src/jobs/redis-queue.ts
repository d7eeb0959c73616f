import { setTimeout as sleep } from 'node:timers/promises';
import { Queue as BullQueue, DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  type ConsumeOptions,
  type Consumer,
  DEFAULT_MAX_ATTEMPTS,
  FAILED_JOB_RETENTION_MS,
  type JobContext,
  type JobSpec,
  PermanentJobError,
  type Queue,
  retryDelay,
  type TaskDefinition,
  validateJobId,
} from './queue.ts';

const PING_TIMEOUT_MS = 1000;
const CLOSE_TIMEOUT_MS = 2000;
const ENQUEUE_TIMEOUT_MS = 5000;

/**
 * Returns an interrupted job to the queue, due at once, without counting its attempt. Should this fail, the job
 * stays active until its lock lapses and BullMQ's stall check hands it back (which does not count it either).
 */
async function handBack(job: Job, token: string | undefined): Promise<void> {
  if (token === undefined) return;
  await job.moveToDelayed(Date.now(), token);
}

/** `promise`, or a rejection after `ms` (the promise itself is left to settle on its own). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
    timer.unref();
  });
  promise.catch(() => {}); // settled later, unobserved
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface RedisQueueOptions {
  url: string;
  /** Key prefix; tests use a unique one per run. */
  prefix?: string;
  /** BullMQ lock duration: a job whose worker stops renewing its lock is taken up again after this time. */
  leaseMs: number;
  /** Crashes (lapsed locks) a job survives before BullMQ gives up on it; default 10. */
  maxStalledCount?: number;
  /** How long enqueue() waits for Redis before rejecting; default 5 s. */
  enqueueTimeoutMs?: number;
}

const QUEUE_NAME = 'jobs';
const BACKOFF = { type: 'verdict' } as const;

/** The scale-out queue: BullMQ on Redis, with the same task handlers and semantics as the embedded queue. */
export class RedisQueue implements Queue {
  readonly kind = 'redis' as const;
  private readonly connection: Redis;
  private readonly queue: BullQueue;
  private readonly workers = new Set<Worker>();
  private readonly prefix: string;

  constructor(private readonly options: RedisQueueOptions) {
    this.prefix = options.prefix ?? 'verdict';
    this.connection = new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: false });
    this.connection.on('error', () => {}); // surfaced by ping() and readiness
    this.queue = new BullQueue(QUEUE_NAME, { connection: this.connection, prefix: this.prefix });
    this.queue.on('error', () => {});
  }

  async enqueue(jobs: JobSpec[]): Promise<void> {
    if (jobs.length === 0) return;
    // With Redis down the connection holds commands until it is back, and the add would wait that long: callers get
    // an error instead (the add itself still goes out on reconnection; job IDs make that harmless).
    const adding = this.queue.addBulk(
      jobs.map((job) => {
        if (job.id !== undefined) validateJobId(job.id);
        return {
          name: job.name,
          data: job.data ?? null,
          opts: {
            ...(job.id !== undefined && { jobId: job.id }),
            ...(job.delayMs && { delay: Math.max(0, Math.round(job.delayMs)) }),
            attempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
            backoff: BACKOFF,
            // Completed IDs are remembered for an hour, so a late duplicate enqueue stays a no-op.
            removeOnComplete: { age: 3600, count: 10_000 },
            removeOnFail: { age: FAILED_JOB_RETENTION_MS / 1000 },
          },
        };
      }),
    );
    await within(adding, this.options.enqueueTimeoutMs ?? ENQUEUE_TIMEOUT_MS);
  }

  consume(tasks: TaskDefinition[], options: ConsumeOptions): Consumer {
    const byName = new Map(tasks.map((t) => [t.name, t]));
    const controllers = new Set<AbortController>();
    const processor = async (job: Job, token?: string) => {
      const task = byName.get(job.name);
      const controller = new AbortController();
      controllers.add(controller);
      const context: JobContext = {
        id: job.id!,
        name: job.name,
        data: job.data,
        attempt: job.attemptsMade + 1,
        maxAttempts: job.opts.attempts ?? 1,
        signal: controller.signal,
      };
      try {
        if (!task) throw new PermanentJobError(`No handler for task "${job.name}"`);
        await task.handle(context);
      } catch (error) {
        options.onError?.(error, context);
        if (controller.signal.aborted) {
          // Interrupted by stop(): handed back without counting the attempt, as the embedded queue does. Counted,
          // an interrupted last attempt would fail the job without onExhausted, leaving its batch or video
          // "processing" while the failed ID blocks the sweep's re-enqueue for a week.
          await handBack(job, token).catch((backError) => options.onError?.(backError, context));
          throw new DelayedError();
        }
        const final = error instanceof PermanentJobError || context.attempt >= context.maxAttempts;
        if (final) {
          await task
            ?.onExhausted?.(context, error)
            .catch((hookError) => options.onError?.(hookError, context));
        }
        if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
        throw error;
      } finally {
        controllers.delete(controller);
      }
    };
    const workerConnection = new Redis(this.options.url, { maxRetriesPerRequest: null });
    workerConnection.on('error', () => {});
    const worker = new Worker(QUEUE_NAME, processor, {
      connection: workerConnection,
      prefix: this.prefix,
      concurrency: options.concurrency,
      lockDuration: this.options.leaseMs,
      stalledInterval: this.options.leaseMs,
      // A job whose process was killed is "stalled"; allow several crashes before giving up on it.
      maxStalledCount: this.options.maxStalledCount ?? 10,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error, job?: { name: string }) =>
          retryDelay(job ? byName.get(job.name) : undefined, attemptsMade, error),
      },
    });
    worker.on('error', (error) => options.onError?.(error));
    // A job that stalled too often is failed by BullMQ without running the processor, so its onExhausted (which
    // fails its batch or video) is called here; otherwise they would stay "processing" behind a failed job ID.
    worker.on('failed', (job, error) => {
      if (!job?.deferredFailure) return;
      const task = byName.get(job.name);
      const context: JobContext = {
        id: job.id!,
        name: job.name,
        data: job.data,
        attempt: job.attemptsMade,
        maxAttempts: job.opts.attempts ?? 1,
        signal: new AbortController().signal,
      };
      options.onError?.(error, context);
      void task?.onExhausted?.(context, error).catch((hookError) => options.onError?.(hookError, context));
    });
    this.workers.add(worker);
    let stopping: Promise<void> | null = null;
    return {
      stop: (stopOptions = {}) => {
        stopping ??= (async () => {
          // A worker closed while BullMQ still initialises its connections leaves that initialisation to reject
          // ("Connection is closed") with nobody listening: let it finish (or fail, handled) first.
          await within(worker.waitUntilReady(), CLOSE_TIMEOUT_MS).catch(() => {});
          if (stopOptions.force) {
            await within(worker.close(true), CLOSE_TIMEOUT_MS).catch(() => {});
          } else {
            const timeoutMs = stopOptions.timeoutMs ?? 10_000;
            // a close that loses the race below may still reject once the connection is cut ("Connection is
            // closed"): settled here so that it never becomes an unhandled rejection
            const closing = worker.close().then(
              () => true,
              () => true,
            );
            const drained = await Promise.race([closing, sleep(timeoutMs).then(() => false)]);
            if (!drained) {
              // Abort what still runs; BullMQ hands those jobs back once their locks lapse.
              for (const c of controllers) c.abort();
              await within(worker.close(true), CLOSE_TIMEOUT_MS).catch(() => {});
            }
          }
          this.workers.delete(worker);
          workerConnection.disconnect();
        })();
        return stopping;
      },
    };
  }

  async pendingCount(): Promise<number> {
    const counts = await this.queue.getJobCounts('wait', 'delayed', 'active', 'prioritized', 'paused');
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  async oldestDueAgeMs(): Promise<number | null> {
    // waiting jobs are due; ascending, the first of each list is its oldest
    const jobs = await this.queue.getJobs(['wait', 'prioritized'], 0, 0, true);
    const due = jobs.filter(Boolean).map((job) => job.timestamp + (job.delay ?? 0));
    return due.length === 0 ? null : Math.max(0, Date.now() - Math.min(...due));
  }

  /** Whether Redis answers a PING within a second (the connection queues commands while Redis is down). */
  async ping(): Promise<boolean> {
    try {
      return (await within(this.connection.ping(), PING_TIMEOUT_MS)) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Removes every key of this queue (tests). */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }

  /**
   * Closes the workers, the queue and the connection. With Redis down, BullMQ's close and QUIT wait for a Redis that
   * does not come back: each step gets CLOSE_TIMEOUT_MS, then the connections are dropped.
   */
  async close(): Promise<void> {
    await Promise.all(
      [...this.workers].map((w) =>
        within(w.close(true), CLOSE_TIMEOUT_MS)
          .catch(() => {})
          .then(() => (w.opts.connection as Redis).disconnect()),
      ),
    );
    await within(this.queue.close(), CLOSE_TIMEOUT_MS).catch(() => {});
    if (this.connection.status === 'ready')
      await within(this.connection.quit(), CLOSE_TIMEOUT_MS).catch(() => {});
    this.connection.disconnect();
  }
}
