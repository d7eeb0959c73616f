import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from '../../server/src/jobs/worker.ts';
import { photo, serve, type TestServer } from '../../server/test/helpers/images.ts';
import { uploadVideo, videoEnded } from '../../server/test/helpers/videos.ts';
import {
  type Browser,
  hasChromium,
  launchBrowser,
  type Service,
  SKIP_MESSAGE,
  startService,
} from './harness.ts';
import { meme, slideshow } from './media.ts';

if (!hasChromium) process.stderr.write(`${SKIP_MESSAGE}\n`);

const THREAT = 'I WILL KILL YOU';

/**
 * The evidence of image and video decisions on the decision page, in a real headless Chromium against the real
 * service (real image, text and OCR models, real ffmpeg): what is kept of an image and the text read in it, an image
 * URL named but never fetched by the browser, and a video's triggered frames as thumbnails of their evidence JPEGs
 * that open larger.
 */
describe.skipIf(!hasChromium)('evidence on the decision page', () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  let worker: RunningWorker;
  let images: TestServer;
  let threat: Buffer;
  const pageErrors: string[] = [];
  const requests: string[] = [];

  const admin = (method: string, url: string, body?: unknown) =>
    service.call(method, url, service.t.adminKey, body);
  const open = async (decisionId: string) => {
    await page.goto(`${service.base}/dashboard/decisions/${decisionId}`);
    await page.getByRole('heading', { name: 'Decision', exact: true }).waitFor();
  };

  beforeAll(async () => {
    threat = await meme(THREAT);
    images = await serve((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(threat));
    [service, browser] = await Promise.all([
      startService({ allowHttpMedia: true, ocr: { enabled: true, timeoutMs: 20_000 } }),
      launchBrowser(),
    ]);
    worker = startWorker(service.t.ctx, { pollMs: 50 });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(String(error.stack)));
    page.on('request', (request: Request) => requests.push(request.url()));
    await page.goto(`${service.base}/dashboard`);
    await page.getByLabel('API key').fill(service.t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 2000 });
    await browser?.close();
    await service?.close();
    await images?.close();
  });

  it('an inline image: what the service kept of it, the text read in it with its spans, its scores', async () => {
    const res = await admin('POST', '/v1/check', {
      content: threat.toString('base64'),
      contentType: 'image',
      policyId: 'default',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ocr.text).toContain('KILL');
    const violence = res.body.categories.find((c: { category: string }) => c.category === 'violence');
    expect(violence).toMatchObject({ triggered: true });
    const [media] = res.body.media;

    await open(res.body.decisionId);
    const content = page.locator('.card', { has: page.getByRole('heading', { name: 'Content' }) });
    await expect(content.getByRole('note').first().textContent()).resolves.toMatch(
      /Sent inline\. The service never keeps inline image bytes/,
    );
    // the outline at the image's proportions, with the boxes where text was read
    const map = content.getByRole('img', { name: /Outline of the 640×480 image with \d+ text regions?/ });
    await map.waitFor();
    expect(await map.locator('rect.region').count()).toBe(res.body.ocr.regions.length);
    await content.getByText(media.sha256).waitFor();
    await content.getByText(media.phash).waitFor();
    await content.getByText(/JPEG, 640×480/).waitFor();
    // the text read, with the spans that triggered marked; the category buttons narrow them
    const marks = content.locator('mark');
    await marks.first().waitFor();
    expect((await marks.allTextContents()).join(' ')).toMatch(/KILL/);
    await content.getByRole('button', { name: 'Violence' }).click();
    expect(await marks.first().getAttribute('title')).toBe('violence');
    // scores against thresholds
    const row = page.getByRole('table', { name: 'Scores against thresholds' }).getByRole('row', {
      name: /Violence/,
    });
    await expect(row.textContent()).resolves.toMatch(new RegExp(`${violence.score.toFixed(3)}.*triggered`));
    // nothing shown as a picture: the service has none
    expect(await content.locator('img').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('an image checked by URL: the URL is shown as text and never loaded by the browser', async () => {
    const url = `${images.url}/uploads/meme.jpg`;
    const res = await admin('POST', '/v1/check', { content: url, contentType: 'image', policyId: 'default' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(images.hits.get('/uploads/meme.jpg')).toBe(1); // the service's own fetch
    await open(res.body.decisionId);
    const note = page.getByRole('note').filter({ hasText: 'Checked by URL' });
    await note.waitFor();
    expect(await note.textContent()).toContain(`would tell ${new URL(url).host} who is looking`);
    await note.getByText(url, { exact: true }).waitFor();
    await note.getByRole('button', { name: 'Copy URL' }).waitFor();
    await page.waitForTimeout(300);
    expect(images.hits.get('/uploads/meme.jpg')).toBe(1);
    expect(requests.filter((r) => r.startsWith(images.url))).toEqual([]);
    expect(await page.locator(`img[src="${url}"]`).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('a video: its frames over time, the triggered ones as evidence thumbnails that open larger', async () => {
    const plain = await photo('jpeg', 640, 480);
    const video = slideshow([plain, threat, plain, threat]);
    const upload = await uploadVideo(
      service.t.app,
      service.t.adminKey,
      { policyId: 'default', frameInterval: '1' },
      { name: 'slides.mp4', bytes: video },
    );
    expect(upload.status, JSON.stringify(upload.body)).toBe(202);
    const id = upload.body.decisionId as string;
    const done = await videoEnded(service.t, service.t.adminKey, id, 90_000);
    expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
    const frames = done.body.results as {
      frameNumber: number;
      timestamp: number;
      flagged: boolean;
      evidence?: { url: string };
    }[];
    const hits = frames.filter((f) => f.flagged);
    expect(frames.length).toBe(4);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThan(frames.length); // the plain slides trigger nothing
    // the API's evidence URLs name VERDICT_PUBLIC_URL, which is not where this service listens
    expect(hits[0]!.evidence!.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v1\/evidence\//);

    const evidenceLoads = page.waitForResponse((r) => r.url().includes('/v1/evidence/'));
    await open(id);
    const strip = page.getByRole('list', { name: 'Sampled frames over time' });
    await strip.waitFor();
    expect(await strip.locator('li').count()).toBe(4);
    expect(await strip.locator('li.hit').count()).toBe(hits.length);
    await page.getByText(`${hits.length} of 4 sampled frames triggered.`).waitFor();

    const grid = page.getByRole('list', { name: 'Triggered frames' });
    const thumbs = grid.getByRole('img');
    expect(await thumbs.count()).toBe(hits.length);
    const first = hits[0]!;
    const path = new URL(first.evidence!.url).pathname;
    expect(await thumbs.first().getAttribute('src')).toBe(path);
    const response = await evidenceLoads;
    expect(new URL(response.url()).origin).toBe(service.base); // loaded from the console's own origin
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('image/jpeg');
    // each thumbnail names its time and what it triggered, with score and threshold
    const caption = await grid.locator('li.frame').first().textContent();
    expect(caption).toContain(`Frame ${first.frameNumber} · ${first.timestamp.toFixed(1)} s`);
    expect(caption).toMatch(/Violence \d\.\d{3} ≥ \d\.\d{2}/);

    // opens larger, with every score of the frame; steps through the triggered frames; Escape closes
    await grid.getByRole('button', { name: `Open frame ${first.frameNumber} at` }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByRole('heading', { name: `Frame ${first.frameNumber} at ${first.timestamp.toFixed(1)} s` })
      .waitFor();
    expect(await dialog.getByRole('img').first().getAttribute('src')).toBe(path);
    await dialog.getByRole('table', { name: 'Scores against thresholds' }).waitFor();
    await dialog.getByText(/Text read in the frame/).waitFor();
    if (hits.length > 1) {
      await dialog.getByRole('button', { name: 'Next frame' }).click();
      await dialog.getByRole('heading', { name: `Frame ${hits[1]!.frameNumber} at` }).waitFor();
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

/** Evidence frames live for VERDICT_EVIDENCE_TTL: past it the page says so and asks the service for nothing. */
describe.skipIf(!hasChromium)('expired evidence on the decision page', () => {
  let service: Service;
  let browser: Browser;
  let worker: RunningWorker;
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 2000 });
    await browser?.close();
    await service?.close();
  });

  it('shows when each frame expired instead of a broken image', async () => {
    [service, browser] = await Promise.all([startService({ evidenceTtlMs: 1000 }), launchBrowser()]);
    worker = startWorker(service.t.ctx, { pollMs: 50 });
    const threat = await meme(THREAT);
    const upload = await uploadVideo(
      service.t.app,
      service.t.adminKey,
      { policyId: 'default', frameInterval: '1' },
      { name: 'slides.mp4', bytes: slideshow([threat, threat]) },
    );
    expect(upload.status, JSON.stringify(upload.body)).toBe(202);
    const done = await videoEnded(service.t, service.t.adminKey, upload.body.decisionId, 90_000);
    const expiries = done.body.results.map(
      (f: { evidence?: { expiresAt: string } }) => f.evidence?.expiresAt,
    );
    expect(expiries.every((at: string | undefined) => at !== undefined)).toBe(true);
    const last = Math.max(...expiries.map((at: string) => Date.parse(at)));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, last - Date.now() + 200)));

    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    const evidenceRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/evidence/')) evidenceRequests.push(r.url());
    });
    await page.goto(`${service.base}/dashboard`);
    await page.getByLabel('API key').fill(service.t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto(`${service.base}/dashboard/decisions/${upload.body.decisionId}`);
    const grid = page.getByRole('list', { name: 'Triggered frames' });
    await grid.waitFor();
    const missing = grid.getByRole('img', { name: /^Evidence expired / });
    expect(await missing.count()).toBe(expiries.length);
    expect(await grid.locator('img').count()).toBe(0);
    expect(evidenceRequests).toEqual([]);
  }, 120_000);
});
