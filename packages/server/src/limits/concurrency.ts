import { AppError } from '../domain/errors.ts';

/**
 * At most `slots` tasks run at once; up to `maxWaiting` more wait their turn in arrival order, and later ones are
 * refused at once with 503 SERVICE_UNAVAILABLE (clients retry 5xx with backoff) instead of piling up.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly slots: number,
    private readonly maxWaiting: number,
    private readonly what: string,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.slots) this.running++;
    else if (this.waiting.length < this.maxWaiting) {
      // the finishing task hands its slot over: `running` stays as it is
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      throw new AppError('SERVICE_UNAVAILABLE', `Too many ${this.what} at once; retry shortly`, {
        reason: 'busy',
        running: this.running,
        waiting: this.waiting.length,
      });
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
