import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../src/domain/webhook-signature.ts';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { tempDir } from './helpers/databases.ts';
import { onPath, readDoc, snippet } from './helpers/docs.ts';
import { createTestCa, HttpsReceiver, type ReceivedRequest, type TestCa } from './helpers/https-receiver.ts';

const run = promisify(execFile);
const page = readDoc('webhooks.md');

interface Case {
  name: string;
  body: string;
  header: string | null;
  secret: string;
  valid: boolean;
}

/** Each language: the page's snippet plus a harness that verifies every case of a JSON file and prints the results. */
const LANGUAGES: Record<
  string,
  { command: string; file: string; source: (code: string) => string; args: (file: string) => string[] }
> = {
  node: {
    command: process.execPath,
    file: 'verify.mjs',
    source: (code) =>
      `${code}\nimport fs from 'node:fs';\nconst cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));\n` +
      `console.log(JSON.stringify(cases.map((c) => verifyVerdictSignature(Buffer.from(c.body, 'utf8'), c.header, c.secret))));\n`,
    args: (file) => [file],
  },
  python: {
    command: 'python3',
    file: 'verify.py',
    source: (code) =>
      `${code}\nimport json, sys\ncases = json.load(open(sys.argv[1], encoding="utf-8"))\n` +
      `print(json.dumps([verify_verdict_signature(c["body"].encode("utf-8"), c["header"], c["secret"]) for c in cases]))\n`,
    args: (file) => [file],
  },
  go: {
    command: 'go',
    file: 'verify.go',
    source: (code) =>
      // Go wants every import before the first declaration: the harness's imports, then the snippet's
      `package main\n\nimport (\n\t"encoding/json"\n\t"fmt"\n\t"os"\n)\n\n${code}\n` +
      `func main() {\n\tdata, _ := os.ReadFile(os.Args[1])\n\tvar cases []struct{ Body string; Header *string; Secret string }\n` +
      `\tif err := json.Unmarshal(data, &cases); err != nil {\n\t\tpanic(err)\n\t}\n\tresults := []bool{}\n` +
      `\tfor _, c := range cases {\n\t\theader := ""\n\t\tif c.Header != nil {\n\t\t\theader = *c.Header\n\t\t}\n` +
      `\t\tresults = append(results, VerifyVerdictSignature([]byte(c.Body), header, c.Secret, 5*time.Minute))\n\t}\n` +
      `\tout, _ := json.Marshal(results)\n\tfmt.Println(string(out))\n}\n`,
    args: (file) => ['run', file],
  },
  php: {
    command: 'php',
    file: 'verify.php',
    source: (code) =>
      `${code}\n$cases = json_decode(file_get_contents($argv[1]), true);\n` +
      `echo json_encode(array_map(fn($c) => verify_verdict_signature($c['body'], $c['header'], $c['secret']), $cases)), "\\n";\n`,
    args: (file) => [file],
  },
};

describe('docs/webhooks.md: every verification snippet against real signed deliveries', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let t: TestApp;
  let worker: RunningWorker;
  let dir: string;
  let secret: string;
  let deliveries: ReceivedRequest[];

  beforeAll(async () => {
    ca = createTestCa();
    receiver = new HttpsReceiver(ca);
    await receiver.start();
    dir = tempDir('verdict-docs-webhooks-');
    t = await createTestApp({ config: { allowPrivateUrls: true, caFile: ca.caFile } });
    worker = startWorker(t.ctx, { pollMs: 50 });
    const hook = await t.request('POST', '/v1/webhooks', {
      body: { url: `${receiver.url}/verdict-events`, events: ['decision.created', 'decision.flagged'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    secret = hook.body.secret;
    receiver.secrets.push(secret);
    // non-ASCII text: the signature covers the body's UTF-8 bytes
    const check = await t.request('POST', '/v1/check', {
      body: { content: 'you are an idiot — café ☕', policyId: 'default' },
    });
    expect(check.body.flagged).toBe(true);
    await receiver.waitFor(() => receiver.requests.length >= 2, 15_000, 'two deliveries');
    deliveries = receiver.requests;
  }, 60_000);

  afterAll(async () => {
    await worker?.stop({ timeoutMs: 1000 });
    await t?.close();
    await receiver?.stop();
    if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The deliveries as received, then the ways a receiver must refuse one (signed by the service's own code). */
  function cases(): Case[] {
    const [first, second] = deliveries as [ReceivedRequest, ReceivedRequest];
    const body = first.body;
    const now = Math.floor(Date.now() / 1000);
    const header = String(first.headers['x-service-signature']);
    return [
      { name: 'a real delivery', body, header, secret, valid: true },
      {
        name: 'another real delivery',
        body: second.body,
        header: String(second.headers['x-service-signature']),
        secret,
        valid: true,
      },
      {
        name: 'the body changed',
        body: body.replace('"decision.', '"decision.x'),
        header,
        secret,
        valid: false,
      },
      {
        name: 'the JSON re-serialised',
        body: JSON.stringify(JSON.parse(body), null, 2),
        header,
        secret,
        valid: false,
      },
      {
        name: 'signed 10 minutes ago',
        body,
        header: signatureHeader([secret], body, now - 600),
        secret,
        valid: false,
      },
      {
        name: 'signed 10 minutes ahead',
        body,
        header: signatureHeader([secret], body, now + 600),
        secret,
        valid: false,
      },
      {
        name: 'signed 4 minutes ago',
        body,
        header: signatureHeader([secret], body, now - 240),
        secret,
        valid: true,
      },
      { name: 'another secret', body, header, secret: `${secret}x`, valid: false },
      {
        name: 'during a rotation (new and old signature)',
        body,
        header: signatureHeader(['whsec_another_secret', secret], body),
        secret,
        valid: true,
      },
      { name: 'a malformed header', body, header: 'v1=abc', secret, valid: false },
      { name: 'no header', body, header: null, secret, valid: false },
    ];
  }

  it('the deliveries are real: signed by the service, verified by the receiver', () => {
    expect(deliveries.map((d) => d.eventType).sort()).toEqual(['decision.created', 'decision.flagged']);
    for (const d of deliveries) {
      expect(d.verifiedWith).toBe(secret);
      expect(d.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(d.json.id).toBe(d.headers['x-service-event-id']);
      expect(d.json.data.id).toMatch(/^dec_/);
    }
  });

  for (const [language, spec] of Object.entries(LANGUAGES)) {
    const available = onPath(path.basename(spec.command)) || path.isAbsolute(spec.command);
    it.skipIf(!available)(
      `${language}: accepts the real deliveries and refuses tampered, stale and foreign ones`,
      async () => {
        const file = path.join(dir, spec.file);
        fs.writeFileSync(file, spec.source(snippet(page, language)));
        const all = cases();
        const casesFile = path.join(dir, `${language}-cases.json`);
        fs.writeFileSync(casesFile, JSON.stringify(all));
        const env = { ...process.env, GOCACHE: path.join(dir, 'go-cache'), GOPATH: path.join(dir, 'go') };
        const { stdout } = await run(spec.command, [...spec.args(file), casesFile], {
          cwd: dir,
          env,
          timeout: 90_000,
        });
        const results = JSON.parse(stdout.trim().split('\n').at(-1)!) as boolean[];
        expect(Object.fromEntries(all.map((c, i) => [c.name, results[i]]))).toEqual(
          Object.fromEntries(all.map((c) => [c.name, c.valid])),
        );
      },
      120_000,
    );
    if (!available) {
      it(`${language}: skipped, because \`${spec.command}\` is not installed on this machine`, () => {});
    }
  }
});
