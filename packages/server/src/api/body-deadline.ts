import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';

/**
 * A bound on streamed body parsing once the body has fully arrived. Fastify's requestTimeout stops applying when the
 * last byte is received, and a multipart form whose closing boundary never comes (a truncated upload) left the
 * parser, the handler and the socket waiting for ever. After the request's body has ended, whatever still waits on
 * the parser through `within` fails after `graceMs` with 400 INVALID_JSON.
 */
export class BodyDeadline {
  private timer: NodeJS.Timeout | undefined;
  private readonly onEnd = () => this.arm();
  private readonly expired: Promise<never>;
  private fail!: (error: AppError) => void;

  constructor(
    private readonly request: FastifyRequest,
    private readonly graceMs = 5000,
  ) {
    this.expired = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    this.expired.catch(() => {}); // observed through `within`
    if (request.raw.readableEnded) this.arm();
    else request.raw.once('end', this.onEnd);
  }

  private arm(): void {
    this.timer ??= setTimeout(
      () =>
        this.fail(
          new AppError('INVALID_JSON', 'The multipart/form-data body ended before its closing boundary', {
            field: 'body',
            reason: 'truncated',
          }),
        ),
      this.graceMs,
    );
  }

  /** `work`, or the deadline's error if the body has ended and `work` is not done `graceMs` later. */
  within<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.request.raw.removeListener('end', this.onEnd);
  }
}
