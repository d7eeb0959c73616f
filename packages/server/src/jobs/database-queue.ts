import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../storage/database.ts';
import type { JobsTable } from '../storage/schema.ts';
import {
  type ConsumeOptions,
  type Consumer,
  DEFAULT_MAX_ATTEMPTS,
  errorMessage,
  type JobContext,
  type JobSpec,
  PermanentJobError,
  PollSleep,
  type Queue,
  retryDelay,
  type TaskDefinition,
  validateJobId,
} from './queue.ts';

export interface DatabaseQueueOptions {
  /** A job leased by a worker that stops renewing it (crash, kill -9) is taken up again after this time. */
  leaseMs: number;
  /** How often an idle worker looks for due jobs; local enqueues wake it at once. */
  pollMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The embedded durable queue: jobs are rows of the service's own database (SQLite or PostgreSQL), leased with a
 * visibility timeout that running workers renew. PostgreSQL claims with `FOR UPDATE SKIP LOCKED`, so any number of
 * worker processes can share the table; SQLite serialises writers, which makes the same claim atomic.
 */
export class DatabaseQueue implements Queue {
  readonly kind = 'database' as const;
  private readonly consumers = new Set<DatabaseConsumer>();

  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
    private readonly options: DatabaseQueueOptions,
  ) {}

  async enqueue(jobs: JobSpec[]): Promise<void> {
    if (jobs.length === 0) return;
    const now = Date.now();
    const rows: JobsTable[] = jobs.map((job) => {
      if (job.id !== undefined) validateJobId(job.id);
      return {
        id: job.id ?? `job_${now.toString(36)}${randomBytes(10).toString('hex')}`,
        name: job.name,
        data: JSON.stringify(job.data ?? null),
        state: 'pending',
        attempts: 0,
        max_attempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        run_at: iso(now + Math.max(0, job.delayMs ?? 0)),
        locked_until: null,
        locked_by: null,
        last_error: null,
        created_at: iso(now),
        updated_at: iso(now),
      };
    });
    for (let i = 0; i < rows.length; i += 200) {
      await this.db
        .insertInto('jobs')
        .values(rows.slice(i, i + 200))
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
    for (const consumer of this.consumers) consumer.wake();
  }

  consume(tasks: TaskDefinition[], options: ConsumeOptions): Consumer {
    const consumer = new DatabaseConsumer(this.db, this.engine, this.options, tasks, options, () =>
      this.consumers.delete(consumer),
    );
    this.consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  async pendingCount(): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', 'in', ['pending', 'running'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async oldestDueAgeMs(): Promise<number | null> {
    const now = new Date();
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min<string>('run_at').as('due'))
      .where('state', '=', 'pending')
      .where('run_at', '<=', now.toISOString())
      .executeTakeFirst();
    return row?.due ? Math.max(0, now.getTime() - Date.parse(row.due)) : null;
  }

  /** Failed rows keep their failure time in run_at (indexed with state), which this deletes by. */
  async purgeFailedBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('jobs')
      .where('state', '=', 'failed')
      .where('run_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.selectFrom('jobs').select('id').limit(1).execute();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop({ timeoutMs: 0 })));
  }
}

class DatabaseConsumer implements Consumer {
  private readonly workerId = `w_${randomBytes(8).toString('hex')}`;
  private readonly tasks: Map<string, TaskDefinition>;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private stopped = false;
  private crashed = false;
  private readonly poll = new PollSleep();
  private loop: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
    private readonly queueOptions: DatabaseQueueOptions,
    tasks: TaskDefinition[],
    private readonly options: ConsumeOptions,
    private readonly onClosed: () => void,
  ) {
    this.tasks = new Map(tasks.map((t) => [t.name, t]));
  }

  start(): void {
    this.loop = this.run();
    // Renew the leases of running jobs well before they lapse.
    this.heartbeat = setInterval(
      () => void this.renew().catch((error) => this.report(error)),
      Math.max(50, Math.floor(this.queueOptions.leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  wake(): void {
    this.poll.wake();
  }

  private report(error: unknown, job?: { id: string; name: string; attempt: number }): void {
    this.options.onError?.(error, job);
  }

  private async run(): Promise<void> {
    const pollMs = this.queueOptions.pollMs ?? 250;
    while (!this.stopped) {
      const free = this.options.concurrency - this.running.size;
      let claimed: JobsTable[] = [];
      if (free > 0) {
        try {
          claimed = await this.claim(free);
        } catch (error) {
          this.report(error);
        }
        if (this.stopped) {
          // Stopped while claiming: hand the jobs straight back.
          if (claimed.length > 0 && !this.crashed) await this.release(claimed.map((j) => j.id));
          break;
        }
        for (const row of claimed) this.launch(row);
      }
      if (claimed.length > 0 && claimed.length === free) continue;
      await this.poll.sleep(pollMs);
    }
  }

  private async claim(limit: number): Promise<JobsTable[]> {
    const now = Date.now();
    const nowIso = iso(now);
    let due = this.db
      .selectFrom('jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'pending'), eb('run_at', '<=', nowIso)]),
          eb.and([eb('state', '=', 'running'), eb('locked_until', '<', nowIso)]),
        ]),
      )
      .orderBy('run_at')
      .limit(limit);
    // A job of ours whose lease lapsed (a stalled event loop) is still running here: never run it twice.
    if (this.running.size > 0) due = due.where('id', 'not in', [...this.running.keys()]);
    if (this.engine === 'postgres') due = due.forUpdate().skipLocked();
    return this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'running',
        attempts: eb('attempts', '+', 1),
        locked_by: this.workerId,
        locked_until: iso(now + this.queueOptions.leaseMs),
        updated_at: nowIso,
      }))
      .where('id', 'in', due)
      .returningAll()
      .execute();
  }

  private launch(row: JobsTable): void {
    const controller = new AbortController();
    const job: JobContext = {
      id: row.id,
      name: row.name,
      data: JSON.parse(row.data),
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      signal: controller.signal,
    };
    const done = this.execute(job).finally(() => {
      this.running.delete(row.id);
      this.wake();
    });
    this.running.set(row.id, { controller, done });
  }

  private async execute(job: JobContext): Promise<void> {
    const task = this.tasks.get(job.name);
    let error: unknown = null;
    if (!task) error = new PermanentJobError(`No handler for task "${job.name}"`);
    else if (job.attempt > job.maxAttempts)
      error = new PermanentJobError('Attempts used up (the job kept stalling)');
    else {
      try {
        await task.handle(job);
      } catch (caught) {
        error = caught;
      }
    }
    if (this.crashed) return; // a simulated crash: the lease simply lapses
    try {
      if (error === null) {
        await this.db
          .deleteFrom('jobs')
          .where('id', '=', job.id)
          .where('locked_by', '=', this.workerId)
          .execute();
        return;
      }
      this.report(error, job);
      const final =
        error instanceof PermanentJobError || job.attempt >= job.maxAttempts || job.signal.aborted;
      if (job.signal.aborted) return; // handed back by stop()
      if (final) {
        try {
          await task?.onExhausted?.(job, error);
        } catch (hookError) {
          this.report(hookError, job);
        }
      }
      await this.db
        .updateTable('jobs')
        .set({
          state: final ? 'failed' : 'pending',
          run_at: iso(Date.now() + (final ? 0 : retryDelay(task, job.attempt, error))),
          locked_by: null,
          locked_until: null,
          last_error: errorMessage(error),
          updated_at: iso(Date.now()),
        })
        .where('id', '=', job.id)
        .where('locked_by', '=', this.workerId)
        .execute();
    } catch (storeError) {
      // The lease will lapse and the job run again: at-least-once.
      this.report(storeError, job);
    }
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0 || this.crashed) return;
    await this.db
      .updateTable('jobs')
      .set({ locked_until: iso(Date.now() + this.queueOptions.leaseMs) })
      .where('locked_by', '=', this.workerId)
      .where('state', '=', 'running')
      .where('id', 'in', [...this.running.keys()])
      .execute();
  }

  /** Hands running jobs back without counting the interrupted attempt. */
  private async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('jobs')
      .set((eb) => ({
        state: 'pending',
        attempts: eb('attempts', '-', 1),
        locked_by: null,
        locked_until: null,
        updated_at: iso(Date.now()),
      }))
      .where('locked_by', '=', this.workerId)
      .where('state', '=', 'running')
      .where('id', 'in', ids)
      .execute();
  }

  stop(options: { timeoutMs?: number; force?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      if (options.force) this.crashed = true;
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.wake();
      if (options.force) {
        this.onClosed();
        return;
      }
      await this.loop;
      const inFlight = Promise.all([...this.running.values()].map((r) => r.done));
      const timeoutMs = options.timeoutMs ?? 10_000;
      const drained = await Promise.race([inFlight.then(() => true), sleep(timeoutMs).then(() => false)]);
      if (!drained) {
        const ids = [...this.running.keys()];
        for (const r of this.running.values()) r.controller.abort();
        await this.release(ids).catch((error) => this.report(error));
      }
      this.onClosed();
    })();
    return this.stopping;
  }
}
