import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  hasChromium,
  launchBrowser,
  type Service,
  SKIP_MESSAGE,
  startService,
} from './harness.ts';

if (!hasChromium) process.stderr.write(`${SKIP_MESSAGE}\n`);

/**
 * The web console in a real headless Chromium against the real service: every flow goes through the pages as a
 * person would (labels, buttons), and its effect is checked through the public API.
 */
describe.skipIf(!hasChromium)('web console in Chromium', () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (request) => {
      if (!request.url().startsWith(service.base) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    page.on('pageerror', (error) => pageErrors.push(String(error.stack)));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });

  it('refuses a wrong key with its error, then signs in with the admin key', async () => {
    await page.goto(`${service.base}/`);
    expect(page.url()).toBe(`${service.base}/dashboard`);
    // signed out, the console's data routes answer 401
    const signedOut = await page.request.get(`${service.base}/v1/decisions`);
    expect(signedOut.status()).toBe(401);
    await page.getByLabel('API key').fill('vk_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid');
    await page.getByLabel('API key').fill(service.t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    for (const name of ['Overview', 'Decisions', 'Policies', 'Keys', 'Webhooks', 'Usage'])
      await nav(name).waitFor();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // the key is in no browser storage, and the session cookie is HttpOnly and SameSite=Strict
    const stored = await page.evaluate(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie',
    );
    expect(stored).not.toContain(service.t.adminKey);
    const cookies = await browser.context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'verdict_session', httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(service.t.adminKey);
  });

  it('creates a key that works against the API, then revokes it and the API refuses it', async () => {
    await nav('Keys').click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name').fill('browser-made');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('.secret-value').textContent())!;
    expect(key).toMatch(/^vk_/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    const check = await service.call('POST', '/v1/check', key, {
      content: 'hello there',
      policyId: 'default',
    });
    expect(check.status).toBe(200);
    await page
      .getByRole('row', { name: /browser-made/ })
      .getByText('Active')
      .waitFor();

    await page.getByRole('button', { name: 'Revoke browser-made' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page
      .getByRole('row', { name: /browser-made/ })
      .getByText('Revoked')
      .waitFor();
    const refused = await service.call('POST', '/v1/check', key, {
      content: 'hello again',
      policyId: 'default',
    });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('REVOKED_API_KEY');
  });

  it('shows a YAML error with its line, refuses to save it, then saves a valid policy and dry-runs it', async () => {
    await nav('Policies').click();
    await page.getByRole('button', { name: 'New policy' }).click();
    await page.getByLabel('Policy ID').fill('browser-policy');
    const editor = page.getByLabel('Policy YAML');
    await editor.fill('name: Browser\ncategories:\n  hate:\n    threshold: 1.5\n    action: block\n');
    const status = page.locator('#yaml-status');
    await expect.poll(() => status.textContent()).toContain('INVALID_THRESHOLD');
    expect(await status.textContent()).toMatch(/Line 4/);
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('INVALID_THRESHOLD');
    expect((await service.call('GET', '/v1/policies/browser-policy', service.t.adminKey)).status).toBe(404);

    await editor.fill(
      'name: Browser\ncategories:\n  hate:\n    threshold: 0.5\n    action: block\n  spam:\n    threshold: 0.9\n    action: flag\n',
    );
    await expect.poll(() => status.textContent()).toContain('Valid');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Saved version 1.').waitFor();
    expect(page.url()).toBe(`${service.base}/dashboard/policies/browser-policy`);
    const saved = await service.call('GET', '/v1/policies/browser-policy', service.t.adminKey);
    expect(saved.body).toMatchObject({
      version: 1,
      categories: { hate: { threshold: 0.5, action: 'block' } },
    });

    // the dry-run slider: hate at 0.8 is over its 0.5 threshold
    await page.getByText('Decision:').waitFor();
    await page.getByRole('slider', { name: 'Hate' }).fill('0.8');
    await expect.poll(() => page.locator('.dry-run-result .badge').textContent()).toBe('block');
  });

  it('keeps what a person typed into the filters while the page is still loading', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/v1/policies', async (route) => {
      await gate;
      await route.continue();
    });
    try {
      await nav('Decisions').click();
      await page.getByLabel('User ID').fill('typed-while-loading');
      const answered = page.waitForResponse((r) => r.url().endsWith('/v1/policies'));
      release();
      await answered;
      // the policy options have rendered: the page re-rendered after the typing
      await page.getByRole('option', { name: 'default' }).first().waitFor({ state: 'attached' });
      expect(await page.getByLabel('User ID').inputValue()).toBe('typed-while-loading');
    } finally {
      await page.unroute('**/v1/policies');
    }
    await nav('Overview').click();
  });

  it('finds a decision by filter, shows its spans, scores and cURL, and replays it under another policy', async () => {
    const texts = ['what a lovely morning', 'I will kill you and your whole family', 'see you at lunch'];
    for (const [i, content] of texts.entries()) {
      const res = await service.call('POST', '/v1/check', service.t.adminKey, {
        content,
        policyId: 'default',
        metadata: { userId: i === 1 ? 'user-42' : 'someone-else' },
      });
      expect(res.status).toBe(200);
    }
    await nav('Decisions').click();
    await page.getByLabel('User ID').fill('user-42');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toContain('userId=user-42');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').textContent()).toContain('kill you');
    // full-text search combines with the other filters
    await page.getByLabel('Search content').fill('FAMILY whole');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.url()).toContain('q=FAMILY+whole');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Search content').fill('lunch');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(0);
    await page.getByLabel('Search content').fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('tbody tr a').click();
    await page.getByRole('heading', { name: 'Decision', exact: true }).waitFor();
    expect(await page.locator('mark').count()).toBeGreaterThan(0);
    await page.getByRole('table', { name: 'Scores against thresholds' }).waitFor();
    expect(await page.locator('pre.code').textContent()).toContain('$VERDICT_API_KEY');
    await page.getByRole('button', { name: 'Copy cURL' }).waitFor();

    await page.getByRole('combobox', { name: /^Policy/ }).selectOption('permissive');
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByRole('link', { name: 'Open the new decision' }).click();
    await page.getByText('Replay of').waitFor();
    const id = decodeURIComponent(page.url().split('/').pop()!);
    const replayed = await service.call('GET', `/v1/decisions/${id}`, service.t.adminKey);
    expect(replayed.body).toMatchObject({ policyId: 'permissive' });
    expect(replayed.body.replayOf).toMatch(/^dec_/);
  });

  it('creates a webhook (secret shown once), sends a test event and reads the delivery log', async () => {
    await nav('Webhooks').click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(`${service.receiver.url}/verdict`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('.secret-value').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    service.receiver.secrets = [secret];
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test event delivered (HTTP 200).').waitFor();
    const row = page
      .getByRole('table', { name: 'Delivery attempts, newest first' })
      .locator('tbody tr')
      .first();
    await expect.poll(() => row.textContent()).toContain('succeeded');
    expect(await row.textContent()).toContain('200');
    expect(service.receiver.requests.at(-1)?.verifiedWith).toBe(secret);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Endpoint disabled.').waitFor();
  });

  it('signs out: the session cookie no longer opens the API', async () => {
    await nav('Usage').click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const after = await page.request.get(`${service.base}/v1/decisions`);
    expect(after.status()).toBe(401);
    expect(foreign).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
