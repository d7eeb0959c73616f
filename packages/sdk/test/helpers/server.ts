import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../../server/src/config.ts';
import { type RunningWorker, startWorker } from '../../../server/src/jobs/worker.ts';
import { createTestApp, type TestApp } from '../../../server/test/helpers/app.ts';
import { createTestCa, HttpsReceiver, type TestCa } from '../../../server/test/helpers/https-receiver.ts';

export interface RunningVerdict {
  /** Base URL of a real listening Verdict server (bundled models, SQLite in a temp dir, worker running). */
  url: string;
  adminKey: string;
  t: TestApp;
  /** An HTTPS endpoint the server trusts, for webhooks and async batches. */
  receiver: HttpsReceiver;
  close(): Promise<void>;
}

/** Starts the service in-process on a random port, the way `npm start` builds it. */
export async function startVerdict(config: Partial<Config> = {}): Promise<RunningVerdict> {
  const ca: TestCa = createTestCa();
  const receiver = new HttpsReceiver(ca);
  await receiver.start();
  const t = await createTestApp({ config: { allowPrivateUrls: true, caFile: ca.caFile, ...config } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const worker: RunningWorker = startWorker(t.ctx, { pollMs: 50 });
  return {
    url: `http://127.0.0.1:${port}`,
    adminKey: t.adminKey,
    t,
    receiver,
    async close() {
      await worker.stop({ timeoutMs: 1000 });
      await t.close();
      await receiver.stop();
      fs.rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}
