import http from 'node:http';

export interface RawRequest {
  method: string;
  /** Already encoded: sent byte for byte (so invalid UTF-8 and odd escapes reach the server as they are). */
  path: string;
  headers: Record<string, string | Buffer>;
  body?: Buffer;
}

export type RawOutcome =
  | { kind: 'answered'; status: number; ms: number; body: string }
  | { kind: 'unanswered'; reason: string; ms: number; previous?: string };

/** What each keep-alive socket carried last, to name the request before one that got no answer. */
const lastOnSocket = new WeakMap<object, string>();

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * Sends a request with node:http, headers and body as raw bytes, and waits at most `timeoutMs` for the whole
 * answer. No answer in time, or a connection the server closed without one, is `unanswered`.
 */
export function rawRequest(
  origin: string,
  req: RawRequest,
  timeoutMs: number,
  label = '',
): Promise<RawOutcome> {
  const url = new URL(origin);
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let previous: string | undefined;
    const finish = (outcome: RawOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers))
      headers[k] = typeof v === 'string' ? v : v.toString('latin1');
    let r: http.ClientRequest;
    try {
      r = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: req.method,
          path: req.path,
          headers,
          agent,
          insecureHTTPParser: true,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size < 65_536) chunks.push(c);
          });
          res.on('end', () =>
            finish({
              kind: 'answered',
              status: res.statusCode ?? 0,
              ms: performance.now() - started,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', (e) =>
            finish({ kind: 'unanswered', reason: e.message, ms: performance.now() - started, previous }),
          );
        },
      );
    } catch (error) {
      // refused by node:http itself (e.g. a character it will not send): not a request the server saw
      resolve({ kind: 'answered', status: 0, ms: 0, body: `not sent: ${(error as Error).message}` });
      return;
    }
    r.on('socket', (socket) => {
      previous = lastOnSocket.get(socket);
      lastOnSocket.set(socket, label);
    });
    timer = setTimeout(() => {
      const ms = performance.now() - started;
      finish({ kind: 'unanswered', reason: `no answer within ${timeoutMs} ms`, ms, previous });
      r.destroy();
    }, timeoutMs);
    r.on('error', (e) =>
      finish({ kind: 'unanswered', reason: e.message, ms: performance.now() - started, previous }),
    );
    r.end(req.body);
  });
}
