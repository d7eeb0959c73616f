import { LogController } from 'fastify';

/**
 * One log line per request, when it completes, with the request, the status and the time taken (Fastify writes two:
 * one on arrival, one on completion). Successful requests are sampled (`sample` of them are logged); failed ones
 * (status ≥ 400, or an error) always are.
 */
export class RequestLogController extends LogController {
  constructor(private readonly sample: number) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    const failed = Boolean(error) || reply.statusCode >= 400;
    if (!failed && (this.sample <= 0 || (this.sample < 1 && Math.random() >= this.sample))) return;
    const line = { req: request, res: reply, responseTime: Math.round(reply.elapsedTime * 100) / 100 };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
