/**
 * The one job-queue interface. Two real implementations: `DatabaseQueue` (embedded default, jobs in the service's
 * own database) and `RedisQueue` (BullMQ, when REDIS_URL is set). Delivery is at-least-once: a job leased by a
 * process that dies is taken up again after its lease lapses, so handlers must be idempotent.
 */
export interface JobSpec<T = unknown> {
  name: string;
  data: T;
  /** A stable ID deduplicates: enqueueing an ID that is still pending or running is a no-op. No `:` allowed. */
  id?: string;
  delayMs?: number;
  /** Attempts in all, the first included (default 5). */
  maxAttempts?: number;
}

export interface JobContext<T = unknown> {
  id: string;
  name: string;
  data: T;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the worker stops without waiting (shutdown timeout). */
  signal: AbortSignal;
}

export interface TaskDefinition<T = unknown> {
  name: string;
  handle(job: JobContext<T>): Promise<void>;
  /** Delay before attempt `attempt + 1` when the handler threw an ordinary error (default exponential). */
  backoffMs?(attempt: number): number;
  /** Called once when a job fails for good (attempts used up, or a PermanentJobError). */
  onExhausted?(job: JobContext<T>, error: unknown): Promise<void>;
}

/** Thrown by a handler to be retried after exactly this delay (e.g. a webhook's schedule or Retry-After). */
export class RetryLaterError extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

/** Thrown by a handler when retrying cannot help. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

export interface ConsumeOptions {
  concurrency: number;
  onError?(error: unknown, job?: { id: string; name: string; attempt: number }): void;
}

export interface Consumer {
  /**
   * Stops taking jobs and waits for the running ones (graceful drain). After `timeoutMs` the running jobs are
   * aborted and handed back to the queue. `force` simulates a crash: nothing is waited for or handed back.
   */
  stop(options?: { timeoutMs?: number; force?: boolean }): Promise<void>;
}

/** Failed jobs (attempts used up, or a permanent error) are kept this long for inspection, then deleted. */
export const FAILED_JOB_RETENTION_MS = 7 * 86_400_000;

export interface Queue {
  readonly kind: 'database' | 'redis';
  enqueue(jobs: JobSpec[]): Promise<void>;
  consume(tasks: TaskDefinition[], options: ConsumeOptions): Consumer;
  /** Number of jobs waiting, delayed or running (for tests and readiness details). */
  pendingCount(): Promise<number>;
  /** How long the oldest job that is due (not delayed into the future, not running) has waited, in ms; null: none. */
  oldestDueAgeMs(): Promise<number | null>;
  /**
   * Deletes the jobs that failed before `before`; returns how many. Only queues that do not expire failed jobs
   * themselves have it (BullMQ removes them after FAILED_JOB_RETENTION_MS on its own).
   */
  purgeFailedBefore?(before: Date): Promise<number>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

export function defaultBackoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** (attempt - 1), 10 * 60_000);
}

export function retryDelay(task: TaskDefinition | undefined, attempt: number, error: unknown): number {
  if (error instanceof RetryLaterError) return Math.max(0, error.delayMs);
  return task?.backoffMs ? task.backoffMs(attempt) : defaultBackoffMs(attempt);
}

export function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2000);
}

export function validateJobId(id: string): void {
  if (id.includes(':') || /^\d+$/.test(id)) throw new Error(`Invalid job id "${id}": no ":" and not numeric`);
}

/** The sleep between a poll loop's rounds, which wake() ends early (new work, or stopping). */
export class PollSleep {
  private ring: (() => void) | null = null;

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.ring = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.ring = done;
    });
  }

  wake(): void {
    this.ring?.();
  }
}
