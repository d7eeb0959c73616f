import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/**
 * Checkpoints the SQLite write-ahead log from a worker thread with its own connection. SQLite's automatic checkpoint
 * runs inside a committing write, on the event loop: every ~1,000 pages, one commit copied megabytes into the
 * database file and waited for fsync (about half of an insert's cost, and the latency spikes of a growing
 * database). Here the service's connection never checkpoints; the worker runs PASSIVE checkpoints (which never
 * block writers or readers) every `intervalMs`. A PASSIVE checkpoint never finishes while writes keep coming (new
 * frames arrive while it copies), and SQLite rewinds the log only after one has: under a steady load the log grew
 * by every page ever written (2 GB a minute at 300 checks/s, found by the soak). So once the log holds more than
 * `maxWalFrames` frames, the worker runs a TRUNCATE checkpoint, which makes writers wait (their busy timeout) while it
 * copies what the PASSIVE ones left and cuts the log to zero: milliseconds, as the PASSIVE ones did the bulk. If the
 * worker cannot start or dies, the connection goes back to automatic checkpoints, so the log never grows without
 * bound.
 */
export class WalCheckpointer {
  private worker: Worker | null = null;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly file: string,
    private readonly intervalMs = 250,
    /** Frames (pages) in the log beyond which a TRUNCATE checkpoint runs: 4,096 × 16 KB pages = 64 MB. */
    private readonly maxWalFrames = 4096,
  ) {}

  start(): void {
    const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        modulePath,
        file: this.file,
        intervalMs: this.intervalMs,
        maxWalFrames: this.maxWalFrames,
      },
      execArgv: [],
    });
    worker.unref();
    worker.on('error', () => this.fallBack());
    worker.on('exit', () => this.fallBack());
    this.worker = worker;
    this.sqlite.pragma('wal_autocheckpoint = 0');
  }

  private fallBack(): void {
    if (this.worker === null) return;
    this.worker = null;
    if (this.sqlite.open) this.sqlite.pragma('wal_autocheckpoint = 1000');
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}

// CommonJS, evaluated in the worker: no loader or build step involved.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const tick = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result && result.log > workerData.maxWalFrames) db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (error) {
    if (error.code !== 'SQLITE_BUSY') throw error;
  }
};
setInterval(tick, workerData.intervalMs);
`;
