import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { APIConnectionError, APITimeoutError, type Fetch, type FetchInit, Verdict } from '@verdict/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch, ResponseHeaders } from '../src/cli/http-transport.ts';
import { createTestCa, type TestCa } from './helpers/https-receiver.ts';
import { freePort } from './helpers/process.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Route = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** A real HTTP server whose routes the tests set; it records every request it receives. */
class TestServer {
  readonly received: Received[] = [];
  readonly routes = new Map<string, Route>();
  readonly server: http.Server;
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const route = this.routes.get(new URL(req.url!, 'http://x').pathname);
        if (route) route(req, res, body);
        else res.writeHead(404).end();
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const init = (over: Partial<FetchInit> = {}): FetchInit => ({
  method: 'GET',
  headers: { accept: 'application/json' },
  signal: new AbortController().signal,
  ...over,
});

/**
 * The CLI's transport over node:http (src/cli/http-transport.ts) against the same servers as the global `fetch`:
 * what the SDK sends and reads must come out the same, since the SDK runs on either.
 */
describe('the CLI HTTP transport', () => {
  const server = new TestServer();
  const other = new TestServer(); // another origin, for redirects

  beforeAll(async () => {
    await server.start();
    await other.start();
    server.routes.set('/echo', (req, res, body) => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('x-request-id', 'req_1');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('x-multi', ['one', 'two']);
      res.setHeader('retry-after', '3');
      res.writeHead(201);
      res.end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] ?? null }));
    });
    server.routes.set('/error', (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' }).end('{"error":{"code":"CONFLICT"}}');
    });
    server.routes.set('/bom', (_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69, 0xff]));
    });
    server.routes.set('/jpeg', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    });
    server.routes.set('/empty', (_req, res) => {
      res.writeHead(204).end();
    });
    server.routes.set('/see-other', (_req, res) => {
      res.writeHead(303, { location: '/echo' }).end('moved');
    });
    server.routes.set('/temporary', (_req, res) => {
      res.writeHead(307, { location: '/echo' }).end();
    });
    server.routes.set('/found', (_req, res) => {
      res.writeHead(302, { location: `${other.url}/echo` }).end();
    });
    server.routes.set('/loop', (_req, res) => {
      res.writeHead(302, { location: '/loop' }).end();
    });
    other.routes.set('/echo', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, method: req.method }));
    });
  });
  afterAll(async () => {
    await server.stop();
    await other.stop();
  });

  it('sends the method, headers and JSON body as fetch does, and reads status, headers and text alike', async () => {
    const request = init({
      method: 'POST',
      headers: {
        accept: 'application/json',
        authorization: 'Bearer vk_test',
        'content-type': 'application/json',
        'idempotency-key': 'sdk_1',
      },
      body: JSON.stringify({ content: 'héllo ✓' }),
    });
    const mine = await httpFetch(`${server.url}/echo`, request);
    const theirs = await fetch(`${server.url}/echo`, request);
    const [sentByMine, sentByTheirs] = server.received.slice(-2);
    for (const name of ['authorization', 'content-type', 'idempotency-key', 'accept', 'content-length'])
      expect([name, sentByMine!.headers[name]]).toEqual([name, sentByTheirs!.headers[name]]);
    expect(sentByMine!.body).toBe(sentByTheirs!.body);
    expect(sentByMine!.method).toBe('POST');

    expect([mine.status, mine.ok]).toEqual([theirs.status, theirs.ok]);
    expect([...mine.headers].filter(([name]) => name !== 'date')).toEqual(
      [...theirs.headers].filter(([name]) => name !== 'date'),
    );
    for (const name of ['content-type', 'X-Multi', 'set-cookie', 'retry-after', 'absent'])
      expect(mine.headers.get(name)).toBe(theirs.headers.get(name));
    expect(mine.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(mine.headers.has('X-REQUEST-ID')).toBe(true);
    expect(() => mine.headers.append('x', 'y')).toThrow(TypeError);
    expect(() => theirs.headers.append('x', 'y')).toThrow(TypeError);
    expect(await mine.text()).toBe(await theirs.text());
    await expect(mine.text()).rejects.toThrow(TypeError); // a body is read once
  });

  it('decodes text as fetch does (byte order mark dropped, invalid bytes replaced); blob() keeps bytes and type', async () => {
    const [mine, theirs] = [await httpFetch(`${server.url}/bom`, init()), await fetch(`${server.url}/bom`)];
    expect(await mine.text()).toBe(await theirs.text());
    const blob = await (await httpFetch(`${server.url}/jpeg`, init())).blob();
    expect(blob.type).toBe('image/jpeg');
    expect([...new Uint8Array(await blob.arrayBuffer())]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
    const empty = await httpFetch(`${server.url}/empty`, init({ method: 'DELETE' }));
    expect([empty.status, empty.ok, empty.body]).toEqual([204, true, null]);
    expect(await empty.text()).toBe('');
  });

  it('streams the body as it arrives', async () => {
    let second!: () => void;
    const secondSent = new Promise<void>((resolve) => {
      second = resolve;
    });
    server.routes.set('/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"n":1}\n');
      void secondSent.then(() => res.end('{"n":2}\n'));
    });
    const response = await httpFetch(`${server.url}/stream`, init());
    const reader = response.body!.getReader();
    const first = await reader.read(); // arrives before the server has sent the rest
    expect(new TextDecoder().decode(first.value)).toBe('{"n":1}\n');
    second();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('{"n":2}\n');
  });

  it('the signal ends a request waiting for its answer, and one whose body is still arriving', async () => {
    const closed: string[] = [];
    server.routes.set('/silent', (req) => {
      req.socket.once('close', () => closed.push('silent'));
    });
    server.routes.set('/slow-body', (req, res) => {
      req.socket.once('close', () => closed.push('slow-body'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const waiting = new AbortController();
    const pending = httpFetch(`${server.url}/silent`, init({ signal: waiting.signal }));
    setTimeout(() => waiting.abort(), 100);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

    const reading = new AbortController();
    const response = await httpFetch(`${server.url}/slow-body`, init({ signal: reading.signal }));
    const text = response.text();
    reading.abort(new Error('time-out'));
    await expect(text).rejects.toThrow('time-out'); // the signal's reason, as fetch rejects with
    await expect.poll(() => closed.sort()).toEqual(['silent', 'slow-body']);

    const already = AbortSignal.abort();
    await expect(httpFetch(`${server.url}/echo`, init({ signal: already }))).rejects.toBe(already.reason);
  });

  it('follows redirects as fetch does: 303 turns a POST into a GET, 307 keeps it, credentials stay on their origin', async () => {
    const post = init({
      method: 'POST',
      headers: { authorization: 'Bearer vk_test', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    const seeOther = await (await httpFetch(`${server.url}/see-other`, post)).text();
    expect(JSON.parse(seeOther)).toEqual({ method: 'GET', body: '', type: null });
    const temporary = await (await httpFetch(`${server.url}/temporary`, post)).text();
    expect(JSON.parse(temporary)).toEqual({ method: 'POST', body: '{"a":1}', type: 'application/json' });
    const elsewhere = await httpFetch(
      `${server.url}/found`,
      init({ headers: { authorization: 'Bearer vk_test' } }),
    );
    const viaFetch = await fetch(`${server.url}/found`, { headers: { authorization: 'Bearer vk_test' } });
    expect(JSON.parse(await elsewhere.text())).toEqual(await viaFetch.json());
    expect(JSON.parse(await (await httpFetch(`${server.url}/found`, init())).text())).toEqual({
      authorization: null,
      method: 'GET',
    });
    await expect(httpFetch(`${server.url}/loop`, init())).rejects.toThrow('fetch failed');
  });

  it('a multipart form (a video upload) goes through the global fetch', async () => {
    const form = new FormData();
    form.append('policyId', 'default');
    form.append('video', new Blob([new Uint8Array([1, 2, 3])], { type: 'video/mp4' }), 'v.mp4');
    const response = await httpFetch(`${server.url}/echo`, init({ method: 'POST', body: form }));
    expect(response.status).toBe(201);
    const received = server.received.at(-1)!;
    expect(received.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(received.body).toContain('name="policyId"');
  });

  it('through the SDK: its errors, connection failures and time-outs are the same as with fetch', async () => {
    const client = (fetchImpl: Fetch, baseUrl = server.url, timeout = 30_000) =>
      new Verdict({ apiKey: 'vk_test', baseUrl, fetch: fetchImpl, maxRetries: 0, timeout });
    for (const fetchImpl of [httpFetch, fetch]) {
      const conflict = await client(fetchImpl)
        .request({ method: 'GET', path: '/error' })
        .catch((e: Error) => e);
      expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
      const down = await client(fetchImpl, `http://127.0.0.1:${await freePort()}`)
        .request<unknown>({ method: 'GET', path: '/echo' })
        .then(() => new Error('no error'))
        .catch((e: Error) => e);
      expect(down).toBeInstanceOf(APIConnectionError);
      expect(down.message).toMatch(/ECONNREFUSED/);
      const slow = await client(fetchImpl, server.url, 200)
        .request({ method: 'GET', path: '/silent' })
        .catch((e: Error) => e);
      expect(slow).toBeInstanceOf(APITimeoutError);
    }
  });

  it('ResponseHeaders iterates in name order, one entry a name except Set-Cookie', () => {
    const headers = new ResponseHeaders([
      'B',
      '1',
      'a',
      '2',
      'Set-Cookie',
      'x=1',
      'b',
      '3',
      'set-cookie',
      'y=2',
    ]);
    expect([...headers]).toEqual([
      ['a', '2'],
      ['b', '1, 3'],
      ['set-cookie', 'x=1'],
      ['set-cookie', 'y=2'],
    ]);
    expect([...headers.keys()]).toEqual(['a', 'b', 'set-cookie', 'set-cookie']);
    const seen: string[] = [];
    headers.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(['a=2', 'b=1, 3', 'set-cookie=x=1', 'set-cookie=y=2']);
  });

  describe('over HTTPS', () => {
    let ca: TestCa;
    let tls: https.Server;
    let url: string;
    beforeAll(async () => {
      ca = createTestCa();
      tls = https.createServer({ key: ca.key, cert: ca.cert }, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"secure":true}');
      });
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
    });
    afterAll(async () => {
      tls?.closeAllConnections();
      await new Promise((resolve) => tls?.close(resolve));
      if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
    });

    it('verifies the certificate against the CAs Node trusts (NODE_EXTRA_CA_CERTS included)', async () => {
      // the compiled transport in a process of its own: extra CAs are read when Node starts
      const transport = pathToFileURL(path.resolve(here, '../dist/cli/http-transport.js')).href;
      const script = `import { httpFetch } from ${JSON.stringify(transport)};
const response = await httpFetch(${JSON.stringify(url)}, { method: 'GET', headers: {}, signal: new AbortController().signal })
  .catch((error) => ({ status: 0, text: async () => String(error.cause?.code) }));
process.stdout.write(response.status + ' ' + (await response.text()));`;
      const trusted = await run(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caFile },
      });
      expect(trusted.stdout).toBe('200 {"secure":true}');
      const untrusted = await run(process.execPath, ['--input-type=module', '-e', script]);
      expect(untrusted.stdout).toBe('0 UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    });
  });
});
