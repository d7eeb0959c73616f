// Writes PNG screenshots of every console page, with data and empty, to packages/console/screenshots/:
// `npm run screenshots -w packages/console`. Starts the real service (text model, SQLite in a temp directory),
// fills it through the public API, and drives Debian's Chromium as the browser tests do.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { startWorker } from '../../server/src/jobs/worker.ts';
import { photo } from '../../server/test/helpers/images.ts';
import { uploadVideo, videoEnded } from '../../server/test/helpers/videos.ts';
import { hasChromium, launchBrowser, type Service, SKIP_MESSAGE, startService } from '../test/harness.ts';
import { meme, slideshow } from '../test/media.ts';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

const TEXTS: [string, string, string][] = [
  ['Thanks for the quick delivery, the package arrived in perfect shape.', 'default', 'user-17'],
  ['You are a worthless idiot and everyone here hates you.', 'default', 'user-42'],
  ['I will find you and hurt you and your family, watch your back.', 'default', 'user-42'],
  ['BUY NOW!!! Cheap pills, click this link for 90% off, limited offer!!!', 'strict', 'user-8'],
  ['Lovely photos from the hike, the view from the top was worth it.', 'permissive', 'user-3'],
  ['Shut up, nobody asked for your stupid opinion.', 'community', 'user-42'],
  ['Does anyone know a good recipe for lentil soup?', 'community', 'user-9'],
  ['Go kill yourself, loser.', 'strict', 'user-13'],
];

const COMMUNITY = `name: Community forum
description: Replies and posts in the public forum
categories:
  harassment:
    threshold: 0.6
    action: flag
  hate:
    threshold: 0.5
    action: block
  violence:
    threshold: 0.5
    action: block
  spam:
    threshold: 0.8
    action: warn
reviewActions: [flag, block]
`;

async function seed(
  service: Service,
): Promise<{ decisionId: string; webhookId: string; appealedId: string }> {
  const key = service.t.adminKey;
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await service.call(method, url, key, body);
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('POST', '/v1/policies', { policyId: 'community', yamlContent: COMMUNITY });
  let decisionId = '';
  let appealedId = '';
  for (const [content, policyId, userId] of TEXTS) {
    const result = await ok('POST', '/v1/check', { content, policyId, metadata: { userId } });
    if (content.startsWith('I will find you')) decisionId = result.decisionId;
    if (content.startsWith('Shut up')) appealedId = result.decisionId;
  }
  // the community policy queues its flags and blocks for review; a user appeals one of them
  await ok('POST', `/v1/decisions/${appealedId}/appeals`, {
    statement: 'I was replying to a spammer, not to a person.',
    userId: 'user-42',
  });
  await ok('POST', '/v1/keys', { name: 'production web app', scopes: ['check'] });
  await ok('POST', '/v1/keys', {
    name: 'moderation dashboard',
    scopes: ['decisions:read', 'policies:read'],
    expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString(),
    rateLimit: { perMinute: 600, burstPerSecond: 20 },
  });
  const revoked = await ok('POST', '/v1/keys', { name: 'old staging key', scopes: ['check'] });
  await ok('DELETE', `/v1/keys/${revoked.id}`);
  const webhook = await ok('POST', '/v1/webhooks', {
    url: `${service.receiver.url}/verdict-events`,
    events: ['decision.flagged', 'decision.blocked'],
    description: 'Moderation queue',
  });
  service.receiver.secrets = [webhook.secret];
  await ok('POST', `/v1/webhooks/${webhook.id}/test`, { eventType: 'decision.flagged' });
  service.receiver.responder = () => ({ status: 503 });
  await ok('POST', `/v1/webhooks/${webhook.id}/test`, { eventType: 'decision.blocked' });
  service.receiver.responder = () => ({ status: 200 });
  return { decisionId, webhookId: webhook.id, appealedId };
}

const QUEUED = [
  'Stop posting here, you clown, nobody wants you around.',
  'People like you should all be thrown out of this country.',
  'I swear I will smash your face in if I see you again.',
];

async function seedReview(service: Service): Promise<void> {
  const admin = service.t.adminKey;
  for (const content of QUEUED) {
    await service.call('POST', '/v1/check', admin, { content, policyId: 'community' });
  }
  const alice = await service.call('POST', '/v1/keys', admin, { name: 'alice', scopes: ['review'] });
  await service.call('POST', '/v1/review/queue/claim', alice.body.key, { limit: 1, reason: 'action' });
}

/** An image with a threatening caption, and a video whose every other second shows it: their evidence pages. */
async function seedMedia(service: Service): Promise<{ imageId: string; videoId: string }> {
  const key = service.t.adminKey;
  const threat = await meme('I WILL KILL YOU');
  const image = await service.call('POST', '/v1/check', key, {
    content: threat.toString('base64'),
    contentType: 'image',
    policyId: 'default',
  });
  if (image.status !== 200) throw new Error(`image check: ${JSON.stringify(image.body)}`);
  const plain = await photo('jpeg', 640, 480);
  const upload = await uploadVideo(
    service.t.app,
    key,
    { policyId: 'default', frameInterval: '1' },
    { name: 'slides.mp4', bytes: slideshow([plain, threat, plain, plain, threat, plain]) },
  );
  if (upload.status !== 202) throw new Error(`video upload: ${JSON.stringify(upload.body)}`);
  const worker = startWorker(service.t.ctx, { pollMs: 50 });
  try {
    await videoEnded(service.t, key, upload.body.decisionId, 120_000);
  } finally {
    await worker.stop({ timeoutMs: 2000 });
  }
  return { imageId: image.body.decisionId, videoId: upload.body.decisionId };
}

async function signIn(context: BrowserContext, base: string, key: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

async function shoot(
  page: Page,
  base: string,
  route: string,
  name: string,
  ready?: (page: Page) => Promise<void>,
  fullPage = true,
) {
  await page.goto(`${base}/dashboard${route}`);
  await page.locator('h1').first().waitFor();
  // (waitForFunction would evaluate a string in the page, which the console's CSP rightly refuses)
  for (const deadline = Date.now() + 10_000; (await page.locator('.loading').count()) > 0; ) {
    if (Date.now() > deadline) throw new Error(`${name}: still loading after 10 s`);
    await page.waitForTimeout(50);
  }
  await ready?.(page);
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(out, `${name}.png`), fullPage });
  console.log(`  ${name}.png`);
}

async function main() {
  if (!hasChromium) {
    console.error(SKIP_MESSAGE);
    process.exit(1);
  }
  fs.mkdirSync(out, { recursive: true });
  const service = await startService();
  const desktop = await launchBrowser({ width: 1280, height: 800 });
  const phone = await launchBrowser({ width: 390, height: 844 });
  try {
    const { decisionId, webhookId, appealedId } = await seed(service);
    const { base } = service;

    const signInPage = await desktop.context.newPage();
    await signInPage.goto(`${base}/dashboard`);
    await signInPage.getByLabel('API key').fill('vk_wrong');
    await signInPage.getByRole('button', { name: 'Sign in' }).click();
    await signInPage.getByRole('alert').waitFor();
    await signInPage.screenshot({ path: path.join(out, 'sign-in.png') });
    console.log('  sign-in.png');
    await signInPage.close();

    const page = await signIn(desktop.context, base, service.t.adminKey);
    await shoot(page, base, '', 'overview', (p) => p.locator('.chart canvas').first().waitFor());
    await shoot(page, base, '?range=hour', 'overview-last-hour', async (p) => {
      await p.getByRole('button', { name: 'Last hour' }).click();
      await p.waitForTimeout(400);
    });
    await shoot(page, base, '/decisions', 'decisions');
    await shoot(page, base, '/decisions?userId=user-42&action=block', 'decisions-filtered');
    await shoot(page, base, `/decisions/${decisionId}`, 'decision', async (p) => {
      await p.locator('pre.code').waitFor();
    });
    await shoot(page, base, '/policies', 'policies');
    await shoot(page, base, '/policies/community', 'policy-editor', async (p) => {
      await p.locator('.dry-run-result').waitFor();
      await p.getByRole('slider', { name: 'Harassment' }).fill('0.72');
      await p.waitForTimeout(400);
    });
    await shoot(page, base, '/policies/new', 'policy-editor-error', async (p) => {
      await p.getByLabel('Policy ID').fill('forum-v2');
      await p
        .getByLabel('Policy YAML')
        .fill('name: Forum\ncategories:\n  hate:\n    threshold: 1.4\n    action: block\n');
      await p.locator('.validation.invalid').waitFor();
    });
    await shoot(page, base, '/keys', 'keys', async (p) => {
      await p.getByRole('button', { name: 'Create key' }).click();
      await p.getByLabel('Name').fill('mobile app');
      await p.getByRole('button', { name: 'Create key' }).click();
      await p.locator('.secret-value').waitFor();
    });
    await shoot(page, base, '/webhooks', 'webhooks');
    await shoot(page, base, `/webhooks/${webhookId}`, 'webhook');
    await shoot(page, base, '/usage', 'usage');
    // after the other pages, so that their data stays as it was: a fuller queue, one entry held by another reviewer
    await seedReview(service);
    await shoot(page, base, '/review', 'review');
    await shoot(page, base, `/review/${appealedId}`, 'review-decision', (p) =>
      p.getByRole('heading', { name: 'Queue entry' }).waitFor(),
    );
    // last, so that the pages above keep their data: an image's and a video's evidence
    const { imageId, videoId } = await seedMedia(service);
    await shoot(page, base, `/decisions/${imageId}`, 'decision-image', (p) =>
      p.locator('mark').first().waitFor(),
    );
    await shoot(page, base, `/decisions/${videoId}`, 'decision-video', async (p) => {
      await p.locator('.frames img').first().waitFor();
      await p.waitForTimeout(500);
    });
    await shoot(
      page,
      base,
      `/decisions/${videoId}`,
      'decision-video-frame',
      async (p) => {
        await p.locator('.frames .frame-open').first().click();
        await p.getByRole('dialog').locator('img').waitFor();
        await p.waitForTimeout(500);
      },
      false,
    ); // the open dialog as the screen shows it

    // A new account with nothing in it: the empty states
    const account = await service.call('POST', '/v1/accounts', service.t.adminKey, {
      name: 'New tenant',
      monthlyQuota: 10000,
    });
    const admin = await service.call('POST', '/v1/keys', service.t.adminKey, {
      name: 'tenant admin',
      scopes: ['admin'],
      accountId: account.body.accountId,
    });
    const empty = await launchBrowser({ width: 1280, height: 800 });
    try {
      const e = await signIn(empty.context, base, admin.body.key);
      await shoot(e, base, '', 'empty-overview');
      await shoot(e, base, '/decisions', 'empty-decisions');
      await shoot(e, base, '/review', 'empty-review');
      await shoot(e, base, '/policies', 'empty-policies');
      await shoot(e, base, '/webhooks', 'empty-webhooks');
      await shoot(e, base, '/usage', 'empty-usage');
    } finally {
      await empty.close();
    }

    const p = await signIn(phone.context, base, service.t.adminKey);
    await shoot(p, base, '', 'phone-overview', (x) => x.locator('.chart canvas').first().waitFor());
    await shoot(p, base, '/decisions', 'phone-decisions');
    await shoot(p, base, `/decisions/${decisionId}`, 'phone-decision', (x) =>
      x.locator('pre.code').waitFor(),
    );
  } finally {
    await phone.close();
    await desktop.close();
    await service.close();
  }
  console.log(`Screenshots in ${path.relative(process.cwd(), out) || out}`);
}

await main();
