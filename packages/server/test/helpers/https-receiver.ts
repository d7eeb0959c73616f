import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir } from './databases.ts';

/** A throwaway CA and a server certificate for localhost / 127.0.0.1, made with the openssl CLI. */
export interface TestCa {
  dir: string;
  caFile: string;
  caPem: string;
  key: string;
  cert: string;
}

export function createTestCa(): TestCa {
  const dir = tempDir('verdict-ca-');
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Verdict Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  fs.writeFileSync(
    path.join(dir, 'ext.cnf'),
    'basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  run(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  );
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    caPem: fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
    key: fs.readFileSync(path.join(dir, 'server.key'), 'utf8'),
    cert: fs.readFileSync(path.join(dir, 'server.pem'), 'utf8'),
  };
}

export interface ReceivedRequest {
  at: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  eventId: string;
  eventType: string;
  /** Which of the receiver's secrets verified the signature (null: none did). */
  verifiedWith: string | null;
  json: any;
}

type Responder = (req: ReceivedRequest) => {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
};

/** Verifies `t=<ts>,v1=<hex>[,v1=…]` like a receiver would: constant time, 5-minute tolerance. */
export function verifySignature(header: string | undefined, body: string, secret: string): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim());
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (!t || !/^\d+$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const got = Buffer.from(p.slice(3));
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
}

/**
 * A real HTTPS endpoint (certificate from the test CA) that records every request, checks its signature against
 * the secrets it knows, and answers as the test's responder says. It can go down and come back on the same port.
 */
export class HttpsReceiver {
  readonly requests: ReceivedRequest[] = [];
  secrets: string[] = [];
  responder: Responder = () => ({ status: 200 });
  private server: https.Server | null = null;
  port = 0;

  constructor(private readonly ca: TestCa) {}

  get url(): string {
    return `https://localhost:${this.port}`;
  }

  async start(port = this.port): Promise<void> {
    const server = https.createServer({ key: this.ca.key, cert: this.ca.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const header = req.headers['x-service-signature'] as string | undefined;
        let json: unknown = null;
        try {
          json = JSON.parse(body);
        } catch {}
        const received: ReceivedRequest = {
          at: Date.now(),
          path: req.url ?? '/',
          headers: req.headers,
          body,
          eventId: String(req.headers['x-service-event-id'] ?? ''),
          eventType: String(req.headers['x-service-event-type'] ?? ''),
          verifiedWith: this.secrets.find((s) => verifySignature(header, body, s)) ?? null,
          json,
        };
        this.requests.push(received);
        // A receiver that fails verification answers 401 (interface §6.3).
        const answer = received.verifiedWith ? this.responder(received) : { status: 401 };
        const send = () => {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end('ok');
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Goes down: connections are refused until `start()` again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  byEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.eventId === eventId);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
