import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What to do with one request: answer, hang (never answer), or cut the connection. */
export type Fault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
  | { destroy: true };

/**
 * A small HTTP server that answers each request with the next scripted fault (the last one repeats), and records
 * every request, so tests can see exactly what the client sent on each attempt.
 */
export class FaultServer {
  readonly requests: SeenRequest[] = [];
  private script: Fault[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const fault = this.script.length > 1 ? this.script.shift()! : this.script[0];
      if (!fault) {
        res.writeHead(500).end();
        return;
      }
      if ('hang' in fault) return;
      if ('destroy' in fault) {
        req.socket.destroy();
        return;
      }
      const isText = typeof fault.body === 'string';
      res.writeHead(fault.status, {
        'content-type': isText ? 'text/html' : 'application/json',
        'x-request-id': `req_fault_${this.requests.length}`,
        ...fault.headers,
      });
      res.end(fault.body === undefined ? '' : isText ? (fault.body as string) : JSON.stringify(fault.body));
    });
  });

  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Replaces the script and forgets earlier requests. */
  respond(...faults: Fault[]): void {
    this.script = faults;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const errorBody = (code: string, message = code.toLowerCase()) => ({
  error: { code, message, requestId: 'req_from_body' },
});
