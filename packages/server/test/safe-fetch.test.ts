import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkTlsConnection,
  isPublicAddress,
  type SafeFetchOptions,
  safeFetch,
  UnsafeUrlError,
} from '../src/media/safe-fetch.ts';
import { selfSignedCert, serve, type TestServer } from './helpers/images.ts';

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeUrlError);
    return (error as UnsafeUrlError).reason;
  }
  throw new Error('expected a rejection');
}

const base: SafeFetchOptions = {
  allowPrivate: false,
  allowHttp: true,
  maxBytes: 1024 * 1024,
  connectTimeoutMs: 2000,
  totalTimeoutMs: 5000,
};

describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '151.101.1.69',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => expect(isPublicAddress(ip)).toBe(true));

  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a00:1',
    '64:ff9b:1::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:a00:1::1',
    '2001::1',
    '2001:db8::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'fec0::1',
    'not an ip',
  ])('%s is not public', (ip) => expect(isPublicAddress(ip)).toBe(false));
});

describe('safeFetch address checks (allowPrivate: false)', () => {
  let target: TestServer;
  beforeAll(async () => {
    target = await serve((_req, res) => res.end('secret'));
  });
  afterAll(() => target.close());

  it('refuses every spelling of a loopback, private or metadata address without connecting', async () => {
    const p = target.port;
    const urls = [
      `http://127.0.0.1:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f000001:${p}/`,
      `http://0x7f.1:${p}/`,
      `http://0177.0.0.1:${p}/`,
      `http://017700000001:${p}/`,
      `http://127.1:${p}/`,
      `http://127.0.1:${p}/`,
      `http://0:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://[::1]:${p}/`,
      `http://[::]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`,
      `http://[::127.0.0.1]:${p}/`,
      `http://[64:ff9b::127.0.0.1]:${p}/`,
      `http://[2002:7f00:1::]:${p}/`,
      `http://[fd00::1]:${p}/`,
      `http://[fe80::1]:${p}/`,
      `http://10.0.0.1:${p}/`,
      `http://172.16.0.1:${p}/`,
      `http://192.168.0.1:${p}/`,
      `http://100.64.0.1:${p}/`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://0xa9fea9fe/latest/meta-data/`,
      `http://[::ffff:169.254.169.254]/`,
      `http://224.0.0.1:${p}/`,
      `http://255.255.255.255:${p}/`,
      `https://127.0.0.1:${p}/`,
      `https://user:pass@127.0.0.1:${p}/`,
    ];
    for (const url of urls) {
      const started = Date.now();
      expect(await reason(safeFetch(url, base)), url).toBe('private_address');
      expect(Date.now() - started).toBeLessThan(1000);
    }
    expect(target.total()).toBe(0);
  });

  it('refuses names that resolve to private addresses, checked at connect time', async () => {
    const lookup = async (host: string) =>
      host === 'mixed.test'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '127.0.0.1', family: 4 },
          ]
        : [{ address: '127.0.0.1', family: 4 }];
    const url = (host: string) => `http://${host}:${target.port}/`;
    expect(await reason(safeFetch(url('public-looking.example.com'), { ...base, lookup }))).toBe(
      'private_address',
    );
    expect(await reason(safeFetch(url('mixed.test'), { ...base, lookup }))).toBe('private_address');
    // The real resolver too: localhost resolves to loopback.
    expect(await reason(safeFetch(url('localhost'), base))).toBe('private_address');
    // A trailing dot is another spelling; depending on the resolver it fails to resolve or resolves to loopback.
    expect(['private_address', 'dns']).toContain(await reason(safeFetch(url('localhost.'), base)));
    expect(target.total()).toBe(0);
  });

  it('never includes credentials or the URL in error messages', async () => {
    try {
      await safeFetch(`http://admin:hunter2@127.0.0.1:${target.port}/?token=abc`, base);
    } catch (error) {
      expect((error as Error).message).not.toMatch(/hunter2|token|admin/);
    }
  });
});

describe('safeFetch with a "public" server (only 127.0.0.1 counts as public)', () => {
  let pub: TestServer;
  let internal: TestServer;
  let slowStream: TestServer;
  const onlyLoopback1 = (ip: string) => ip === '127.0.0.1';
  const lookup = async (host: string) => [
    { address: host === 'internal.test' ? '127.0.0.2' : '127.0.0.1', family: 4 },
  ];
  const opts = (): SafeFetchOptions => ({ ...base, isAllowedAddress: onlyLoopback1, lookup });

  beforeAll(async () => {
    internal = await serve((_req, res) => res.end('internal secret'), { host: '127.0.0.2' });
    pub = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      } else if (url.pathname === '/chain') {
        const n = Number(url.searchParams.get('n'));
        res.writeHead(n > 0 ? 301 : 200, n > 0 ? { location: `/chain?n=${n - 1}` } : {});
        res.end(n > 0 ? '' : 'end of chain');
      } else if (url.pathname === '/hang') {
        // accepts the request and never answers
      } else if (url.pathname === '/forever') {
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        const chunk = Buffer.alloc(64 * 1024, 1);
        const pump = () => {
          while (res.write(chunk)) {}
          res.once('drain', pump);
        };
        pump();
      } else if (url.pathname === '/declared-huge') {
        res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
        res.write('x');
      } else if (url.pathname === '/echo') {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => res.end(JSON.stringify({ method: req.method, headers: req.headers, body })));
      } else if (url.pathname === '/missing') {
        res.writeHead(404).end('no');
      } else res.end('hello');
    });
    slowStream = await serve((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    });
  });
  afterAll(async () => {
    await Promise.all([pub.close(), internal.close(), slowStream.close()]);
  });

  it('fetches from an allowed address, and by name', async () => {
    const direct = await safeFetch(`${pub.url}/hello`, opts());
    expect(direct).toMatchObject({ status: 200, url: `${pub.url}/hello` });
    expect(direct.body.toString()).toBe('hello');
    const named = await safeFetch(`http://public.test:${pub.port}/hello`, opts());
    expect(named.body.toString()).toBe('hello');
  });

  it('re-checks every redirect target: a redirect to a private address is refused before connecting', async () => {
    const targets = [
      `http://127.0.0.2:${internal.port}/secret`,
      `http://internal.test:${internal.port}/secret`,
      `http://[::ffff:127.0.0.2]:${internal.port}/secret`,
      `http://2130706434:${internal.port}/secret`,
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[fd00::1]/',
    ];
    for (const to of targets) {
      const url = `${pub.url}/redirect?to=${encodeURIComponent(to)}`;
      expect(await reason(safeFetch(url, opts())), to).toBe('private_address');
    }
    expect(internal.total()).toBe(0);
    expect(pub.hits.get(`/redirect?to=${encodeURIComponent(targets[0]!)}`)).toBe(1);
  });

  it('refuses a redirect to another protocol, and https→http unless http is allowed', async () => {
    const to = (target: string) => `${pub.url}/redirect?to=${encodeURIComponent(target)}`;
    expect(await reason(safeFetch(to('file:///etc/passwd'), opts()))).toBe('protocol');
    expect(await reason(safeFetch(to('gopher://127.0.0.1:70/'), opts()))).toBe('protocol');
    expect(await reason(safeFetch(`${pub.url}/hello`, { ...opts(), allowHttp: false }))).toBe('protocol');
  });

  it('follows at most maxRedirects (default 3); 0 returns the 3xx as is', async () => {
    const three = await safeFetch(`${pub.url}/chain?n=3`, opts());
    expect(three.body.toString()).toBe('end of chain');
    expect(three.url).toBe(`${pub.url}/chain?n=0`);
    expect(await reason(safeFetch(`${pub.url}/chain?n=4`, opts()))).toBe('too_many_redirects');
    const none = await safeFetch(`${pub.url}/chain?n=1`, { ...opts(), maxRedirects: 0 });
    expect(none.status).toBe(301);
    expect(none.headers.location).toBe('/chain?n=0');
  });

  it('rejects a server that never answers within the total time limit', async () => {
    const started = Date.now();
    expect(await reason(safeFetch(`${pub.url}/hang`, { ...opts(), totalTimeoutMs: 700 }))).toBe('timeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(700 + 3000);
  });

  it('rejects a body that streams forever: over the size cap, or over the time limit when slow', async () => {
    const started = Date.now();
    expect(await reason(safeFetch(`${pub.url}/forever`, opts()))).toBe('too_large');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await reason(safeFetch(`${pub.url}/declared-huge`, opts()))).toBe('too_large');
    const slow = Date.now();
    expect(await reason(safeFetch(`${slowStream.url}/`, { ...opts(), totalTimeoutMs: 800 }))).toBe('timeout');
    expect(Date.now() - slow).toBeLessThan(800 + 3000);
  });

  it('honours an outer abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(await reason(safeFetch(`${pub.url}/hang`, { ...opts(), signal: controller.signal }))).toBe(
      'timeout',
    );
  });

  it('POSTs a body with headers; 303 turns into GET; credentials are dropped across origins', async () => {
    const echoed = await safeFetch(`${pub.url}/echo`, {
      ...opts(),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': '1' },
      body: '{"a":1}',
    });
    const seen = JSON.parse(echoed.body.toString());
    expect(seen).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(seen.headers['x-test']).toBe('1');
    const cross = await safeFetch(
      `${pub.url}/redirect?to=${encodeURIComponent(`http://public.test:${pub.port}/echo`)}`,
      { ...opts(), headers: { authorization: 'Bearer x' } },
    );
    expect(JSON.parse(cross.body.toString()).headers.authorization).toBeUndefined();
  });

  it('optionally treats a non-2xx final status as an error', async () => {
    const res = await safeFetch(`${pub.url}/missing`, opts());
    expect(res.status).toBe(404);
    expect(await reason(safeFetch(`${pub.url}/missing`, { ...opts(), throwOnHttpError: true }))).toBe(
      'http_status',
    );
  });

  it('reports invalid URLs, DNS failures and refused connections', async () => {
    expect(await reason(safeFetch('not a url', opts()))).toBe('invalid_url');
    expect(await reason(safeFetch('ftp://example.com/x', opts()))).toBe('protocol');
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await reason(safeFetch('http://nowhere.test/', { ...opts(), lookup: failing }))).toBe('dns');
    const closed = await serve(() => {});
    const port = closed.port;
    await closed.close();
    expect(await reason(safeFetch(`http://127.0.0.1:${port}/`, opts()))).toBe('connect');
  });
});

describe('https and checkTlsConnection', () => {
  let tlsServer: TestServer;
  let cert: { key: string; cert: string };
  beforeAll(async () => {
    cert = selfSignedCert();
    tlsServer = await serve((_req, res) => res.end('over tls'), { tls: cert });
  });
  afterAll(() => tlsServer.close());

  it('verifies certificates; extra CAs are trusted on top of the system roots', async () => {
    const url = `https://localhost:${tlsServer.port}/`;
    expect(await reason(safeFetch(url, { ...base, allowPrivate: true, allowHttp: false }))).toBe('tls');
    const ok = await safeFetch(url, { ...base, allowPrivate: true, allowHttp: false, ca: cert.cert });
    expect(ok.body.toString()).toBe('over tls');
    const byIp = await safeFetch(`https://127.0.0.1:${tlsServer.port}/`, {
      ...base,
      allowPrivate: true,
      ca: [cert.cert],
    });
    expect(byIp.status).toBe(200);
  });

  it('checkTlsConnection opens and closes a verified TLS connection, with the same address checks', async () => {
    const url = `https://localhost:${tlsServer.port}/hook`;
    await expect(
      checkTlsConnection(url, { allowPrivate: true, connectTimeoutMs: 2000, ca: cert.cert }),
    ).resolves.toBeUndefined();
    expect(await reason(checkTlsConnection(url, { allowPrivate: true, connectTimeoutMs: 2000 }))).toBe('tls');
    const before = tlsServer.hits.get('<connection>') ?? 0;
    expect(await reason(checkTlsConnection(url, { allowPrivate: false, connectTimeoutMs: 2000 }))).toBe(
      'private_address',
    );
    expect(
      await reason(
        checkTlsConnection(`https://[::ffff:127.0.0.1]:${tlsServer.port}/`, {
          allowPrivate: false,
          connectTimeoutMs: 2000,
        }),
      ),
    ).toBe('private_address');
    expect(tlsServer.hits.get('<connection>') ?? 0).toBe(before);
    expect(
      await reason(
        checkTlsConnection(`http://localhost:${tlsServer.port}/`, {
          allowPrivate: true,
          connectTimeoutMs: 2000,
        }),
      ),
    ).toBe('protocol');
  });
});
