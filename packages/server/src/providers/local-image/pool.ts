import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ImageClassifierSpec } from '../../image-classifiers/manifest.ts';
import { ProviderError } from '../provider.ts';
import { type ClassScores, MODEL_VERSION } from './model.ts';
import type { WorkerRequest, WorkerResponse } from './worker.ts';

// sharp must be loaded by the main thread before any worker loads it: libvips is process-wide and must not be
// unloaded when a worker exits (see sharp's worker_threads notes).
import 'sharp';

/** The bytes given to the pool are not a decodable image (the media layer normally rejects these first). */
export class ImageDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageDecodeError';
  }
}

export interface ImageModelPoolOptions {
  /** Worker threads; default `os.availableParallelism()`. */
  size?: number;
  /** Decoder pixel limit (width × height), enforced by sharp before decompression. */
  maxPixels: number;
  /** Images handed to one worker at once: 2 lets sharp decode the next image while the model runs. */
  perWorker?: number;
  /** Images waiting beyond this are refused with 503 rather than queued without bound. */
  maxQueue?: number;
  /** Niceness of the worker threads (Linux: per thread), so the event loop wins a contended core. Default 10. */
  nice?: number;
  /** The operator's ONNX classifiers (VERDICT_IMAGE_CLASSIFIERS): each worker runs them on the same pixels. */
  classifiers?: ImageClassifierSpec[];
  /**
   * Bound on one image's time inside a worker. Inference cannot be interrupted, so a worker that overruns it is
   * replaced (its other images go back to the queue) and the image fails. Default: none.
   */
  timeoutMs?: number;
}

export type PoolState = 'idle' | 'starting' | 'ready' | 'failed' | 'closed';

interface Job {
  id: number;
  image: Uint8Array;
  /** The caller's bytes: `image` is transferred to a worker, and a job sent again needs a fresh copy. */
  source: Uint8Array;
  resolve(scores: ClassScores): void;
  reject(error: Error): void;
  /** Detaches the abort listener once the job has left the queue. */
  detach?: () => void;
  /** The running job's time bound (timeoutMs). */
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  inFlight: Map<number, Job>;
  /** Retired by the pool (a job overran its time bound) and asked to exit: its exit is not a crash. */
  retired?: boolean;
}

// Compiled (dist/*.js), the worker is plain JavaScript and starts directly. Run from TypeScript sources (tests,
// tsx), workers do not inherit the parent's loader, so a plain bootstrap module registers tsx first.
const COMPILED = import.meta.url.endsWith('.js');
const ENTRY = new URL(COMPILED ? './worker.js' : './worker.ts', import.meta.url);
const BOOTSTRAP = COMPILED ? ENTRY : new URL('./worker-bootstrap.mjs', import.meta.url);
const noop = () => {};
/** A worker that crashes this many times in a row without finishing a job marks the pool failed. */
const MAX_CONSECUTIVE_CRASHES = 5;

/**
 * A pool of worker threads, each with its own tfjs wasm backend and copy of the image model, so that no
 * decoding or inference runs on the event loop. `classify` takes encoded image bytes (JPEG, PNG, WebP, GIF) and
 * is meant for any caller that needs image scores: single images, multi-modal items, video frames.
 */
export class ImageModelPool {
  readonly size: number;
  readonly modelVersion: string;
  readonly classifiers: readonly ImageClassifierSpec[];
  private readonly timeoutMs: number | null;
  private readonly perWorker: number;
  private readonly maxQueue: number;
  private readonly maxPixels: number;
  private readonly nice: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private starting: Promise<void> | null = null;
  private nextId = 1;
  private crashes = 0;
  private failure: Error | null = null;
  private _state: PoolState = 'idle';

  constructor(options: ImageModelPoolOptions) {
    this.size = Math.max(1, options.size ?? os.availableParallelism());
    this.perWorker = Math.max(1, options.perWorker ?? 2);
    this.maxQueue = options.maxQueue ?? 1000;
    this.maxPixels = options.maxPixels;
    this.nice = options.nice ?? 10;
    this.classifiers = options.classifiers ?? [];
    this.timeoutMs = options.timeoutMs ?? null;
    // a result names every model that judged it, classifiers by name and the start of their digest
    this.modelVersion = [
      MODEL_VERSION,
      ...this.classifiers.map((c) => `${c.name}@sha256:${c.sha256.slice(0, 12)}`),
    ].join('+');
  }

  get state(): PoolState {
    return this._state;
  }

  /**
   * Ready to take work without waiting for a model to load: a worker has loaded it (the others may still be
   * loading, see `start`), or the pool is not started yet (it starts on first use).
   */
  isReady(): boolean {
    return this._state === 'ready' || this._state === 'idle';
  }

  /** Workers that have loaded the model and take images. */
  get readyWorkers(): number {
    return this.slots.filter((slot) => slot.ready).length;
  }

  /**
   * Starts the workers; resolves once the first has loaded the model, from when images are classified without
   * waiting for a load. The first loads alone, at normal priority: started together, the workers shared the cores
   * with each other and with the service's own start, and the first was ready only when all were (on 2 cores
   * with the main thread busy, about twice as late). The others start then and load at the workers' lower
   * priority while the first one works. Idempotent.
   */
  start(): Promise<void> {
    if (this._state === 'closed')
      return Promise.reject(new ProviderError('local', 'the image model is shut down'));
    this.starting ??= new Promise<void>((resolve, reject) => {
      this._state = 'starting';
      this.spawn(
        () => {
          if (this._state === 'starting') {
            this._state = 'ready';
            for (let i = 1; i < this.size; i++) this.spawn(noop, noop);
          }
          resolve();
        },
        (error) => reject(error),
      );
    });
    return this.starting;
  }

  async classify(image: Uint8Array, signal?: AbortSignal): Promise<ClassScores> {
    if (this._state === 'closed') throw new ProviderError('local', 'the image model is shut down');
    if (this._state === 'failed')
      throw new ProviderError('local', 'the image model failed to load', { cause: this.failure });
    if (this.queue.length >= this.maxQueue) {
      throw new ProviderError('local', 'the image model queue is full');
    }
    this.start().catch(() => {});
    signal?.throwIfAborted();
    return new Promise<ClassScores>((resolve, reject) => {
      // A copy we can transfer: `image` may be a view into a larger (pooled) buffer that must stay usable.
      const job: Job = { id: this.nextId++, image: new Uint8Array(image), source: image, resolve, reject };
      this.queue.push(job);
      if (signal) {
        // Only queued work is cancelled: an image already in a worker finishes (it takes milliseconds).
        const onAbort = () => {
          const at = this.queue.indexOf(job);
          if (at >= 0) {
            this.queue.splice(at, 1);
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (this._state === 'closed') return;
    this._state = 'closed';
    const error = new ProviderError('local', 'the image model is shutting down');
    for (const job of this.queue.splice(0)) job.reject(error);
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        for (const job of slot.inFlight.values()) job.reject(error);
        slot.inFlight.clear();
        await closeWorker(slot.worker);
      }),
    );
  }

  private spawn(onReady: () => void, onFatal: (error: Error) => void): void {
    const worker = new Worker(BOOTSTRAP, {
      workerData: {
        entry: ENTRY.href,
        maxPixels: this.maxPixels,
        nice: this.nice,
        // a worker the pool waits for to be ready loads at normal priority; one that joins a working pool (the
        // others after the first, a replacement) loads at the lower priority it works at, behind the event loop
        niceAfterLoad: this._state === 'starting',
        classifiers: this.classifiers,
      },
      // The bootstrap installs the TypeScript loader itself; the parent's flags (tsx, vitest) must not double it.
      execArgv: [],
    });
    const slot: Slot = { worker, ready: false, inFlight: new Map() };
    this.slots.push(slot);
    // Referenced while loading and while it has work; an idle pool does not keep the process alive.
    worker.on('message', (message: WorkerResponse) => {
      if ('ready' in message) {
        slot.ready = true;
        if (slot.inFlight.size === 0) worker.unref();
        onReady();
        this.dispatch();
        return;
      }
      if ('fatal' in message) {
        this.fail(
          new ProviderError('local', 'the image model failed to load', { cause: new Error(message.fatal) }),
        );
        onFatal(this.failure!);
        return;
      }
      const job = slot.inFlight.get(message.id);
      if (!job) return;
      slot.inFlight.delete(message.id);
      clearTimeout(job.timer);
      if (slot.inFlight.size === 0) worker.unref();
      if ('scores' in message) {
        this.crashes = 0;
        job.resolve(message.scores);
      } else if (message.kind === 'decode') job.reject(new ImageDecodeError(message.error));
      else
        job.reject(new ProviderError('local', 'the image model failed', { cause: new Error(message.error) }));
      this.dispatch();
    });
    worker.on('error', () => {
      // 'exit' follows; handled there.
    });
    worker.on('exit', () => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      if (this._state === 'closed') return;
      if (slot.retired) {
        this.spawn(() => {}, onFatal);
        return;
      }
      const error = new ProviderError('local', 'the image model worker stopped unexpectedly');
      for (const job of slot.inFlight.values()) job.reject(error);
      slot.inFlight.clear();
      if (this._state === 'failed') return;
      if (++this.crashes >= MAX_CONSECUTIVE_CRASHES) {
        this.fail(new ProviderError('local', 'the image model workers keep crashing'));
        onFatal(this.failure!);
        return;
      }
      this.spawn(slot.ready ? () => {} : onReady, onFatal);
    });
  }

  private fail(error: Error): void {
    if (this._state === 'closed' || this._state === 'failed') return;
    this._state = 'failed';
    this.failure = error;
    for (const job of this.queue.splice(0)) job.reject(error);
    for (const slot of this.slots.splice(0)) {
      for (const job of slot.inFlight.values()) job.reject(error);
      slot.inFlight.clear();
      void slot.worker.terminate();
    }
  }

  /** A job overran timeoutMs: it fails, its worker is replaced, and the worker's other jobs are queued again. */
  private overran(slot: Slot, job: Job): void {
    if (!slot.inFlight.has(job.id)) return;
    slot.inFlight.delete(job.id);
    job.reject(new ProviderError('local', `the image models took longer than ${this.timeoutMs} ms`));
    slot.retired = true;
    slot.ready = false;
    const others = [...slot.inFlight.values()];
    slot.inFlight.clear();
    for (const other of others.reverse()) {
      clearTimeout(other.timer);
      other.image = new Uint8Array(other.source);
      this.queue.unshift(other);
    }
    // the worker finishes what it holds (results no longer wanted) and exits; 'exit' then spawns its replacement
    void closeWorker(slot.worker);
    this.dispatch();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The least busy ready worker.
      let best: Slot | undefined;
      for (const slot of this.slots) {
        if (
          slot.ready &&
          slot.inFlight.size < this.perWorker &&
          (!best || slot.inFlight.size < best.inFlight.size)
        ) {
          best = slot;
        }
      }
      if (!best) return;
      const job = this.queue.shift()!;
      job.detach?.();
      best.inFlight.set(job.id, job);
      if (this.timeoutMs !== null) {
        const slot = best;
        job.timer = setTimeout(() => this.overran(slot, job), this.timeoutMs).unref();
      }
      best.worker.ref();
      best.worker.postMessage({ id: job.id, image: job.image } satisfies WorkerRequest, [
        job.image.buffer as ArrayBuffer,
      ]);
    }
  }
}

/** How long a closing worker may take to finish its images and release its sessions before it is terminated. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Ends a worker by asking it to (it finishes the images in hand and releases its ONNX sessions first; terminating a
 * thread inside onnxruntime could abort the process), and terminates it only if it has not exited within the grace.
 */
async function closeWorker(worker: Worker): Promise<void> {
  if (worker.threadId === -1) return; // already exited
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.ref();
  worker.postMessage({ close: true } satisfies WorkerRequest);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
  });
  if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
  clearTimeout(timer);
}
