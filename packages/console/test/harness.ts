import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import type { Config } from '../../server/src/config.ts';
import { createTestApp, type TestApp } from '../../server/test/helpers/app.ts';
import { createTestCa, HttpsReceiver } from '../../server/test/helpers/https-receiver.ts';

/** Debian's Chromium (`apt-get install chromium`); the browser tests skip without it. */
export const CHROMIUM = process.env.VERDICT_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
export const SKIP_MESSAGE = `[console tests] ${CHROMIUM} not found: browser tests skipped (apt-get install -y chromium)`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The console as `npm ci` builds it; built here if missing (a checkout whose prepare step did not run). */
export function ensureBuilt(): void {
  if (!fs.existsSync(path.join(root, 'dist', 'index.html'))) {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'pipe' });
  }
}

export interface Service {
  t: TestApp;
  base: string;
  receiver: HttpsReceiver;
  /** One JSON call to the API with a Bearer key (what an application would do). */
  call(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/**
 * The real service (real text model, SQLite file) listening on a free port, with an HTTPS webhook receiver it
 * trusts, and the console it serves; `config` adds settings (e.g. `allowHttpMedia` for images served by a test).
 */
export async function startService(config: Partial<Config> = {}): Promise<Service> {
  ensureBuilt();
  const ca = createTestCa();
  const receiver = new HttpsReceiver(ca);
  await receiver.start();
  const t = await createTestApp({ config: { allowPrivateUrls: true, caFile: ca.caFile, ...config } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return {
    t,
    base,
    receiver,
    async call(method, url, key, body) {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() };
    },
    async close() {
      await receiver.stop();
      await t.close();
      fs.rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a new, empty profile and nothing reaching out to the network on its own. */
export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
