import type { Page, Worker } from 'tesseract.js';
import { traineddataLocation } from './languages.ts';

interface Entry {
  worker: Promise<Worker>;
  /** Set when the worker was dropped (a read over time): reads queued behind it go to a fresh worker. */
  dropped?: boolean;
  /** Reads on one worker run one at a time: a tesseract worker is single-threaded. */
  queue: Promise<unknown>;
}

export class OcrTimeoutError extends Error {}

/**
 * Tesseract workers (each a worker thread with its own WebAssembly heap, 40–120 MB depending on the model), one
 * per model (`eng`, `ara`, …), created on first use and kept for the next image; at most `maxWorkers`
 * live, the least recently used is terminated (once its queued reads end) to make room. Models are read from local
 * directories only.
 */
export class OcrWorkers {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: { maxWorkers: number; tessdataDirs: readonly string[] }) {}

  /** Recognises `input` with the model; throws OcrTimeoutError past `timeoutMs` (that worker is dropped). */
  async recognize(model: string, input: Buffer, timeoutMs: number): Promise<Page> {
    const key = model;
    const entry = this.entry(key);
    const queued = Date.now();
    const job = entry.queue.then(() => {
      if (!entry.dropped) return this.run(key, entry, input, timeoutMs);
      const left = timeoutMs - (Date.now() - queued);
      if (left <= 0) throw new OcrTimeoutError();
      return this.recognize(model, input, left);
    });
    entry.queue = job.catch(() => {});
    return job;
  }

  /** Models with a live worker, least recently used first. */
  live(): string[] {
    return [...this.entries.keys()];
  }

  async close(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map((e) => e.worker.then((w) => w.terminate()).catch(() => {})));
  }

  private async run(key: string, entry: Entry, input: Buffer, timeoutMs: number): Promise<Page> {
    const worker = await entry.worker;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OcrTimeoutError()), Math.max(1, timeoutMs));
    });
    try {
      const recognition = worker.recognize(input, {}, { blocks: true });
      recognition.catch(() => {}); // a dropped worker's read ends in an error nobody waits for
      const { data } = await Promise.race([recognition, timeout]);
      return data;
    } catch (error) {
      if (error instanceof OcrTimeoutError) {
        // the wasm call cannot be interrupted: drop the worker, a fresh one serves the next image
        entry.dropped = true;
        if (this.entries.get(key) === entry) this.entries.delete(key);
        worker.terminate().catch(() => {});
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private entry(key: string): Entry {
    const found = this.entries.get(key);
    if (found) {
      // most recently used last
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    while (this.entries.size >= this.options.maxWorkers) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldestKey);
      oldest.queue.then(() => oldest.worker.then((w) => w.terminate())).catch(() => {});
    }
    const worker = this.start(key);
    const entry: Entry = { worker, queue: worker.catch(() => {}) };
    worker.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.set(key, entry);
    return entry;
  }

  private async start(model: string): Promise<Worker> {
    const where = traineddataLocation(model, this.options.tessdataDirs);
    if (!where) throw new Error(`no traineddata for OCR model ${model}`);
    // one model per worker: each model lives in its own package's directory, and tesseract.js 7 cannot take
    // models as bytes (its initialize joins the bytes instead of the codes)
    // tesseract.js is loaded with the first worker, like the workers themselves: not at every start
    const { createWorker, OEM } = await import('tesseract.js');
    const worker = await createWorker(model, OEM.LSTM_ONLY, {
      langPath: where.langPath,
      cacheMethod: 'none',
      gzip: where.gzip,
      // the default node worker script and the core wasm resolve inside node_modules; nothing is downloaded
      logger: () => {},
      errorHandler: () => {},
    });
    // photos carry no resolution tesseract trusts; saying so keeps it from warning on every image
    await worker.setParameters({ user_defined_dpi: '150' });
    return worker;
  }
}
