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

/** Every allowed decision is sampled, and a triggered violence category is queued too. */
const POLICY = `name: Reviewed
categories:
  violence: { threshold: 0.5, action: block, review: true }
reviewSample: 1
`;

/**
 * Human review in the console, in a real headless Chromium against the real service (real text model): the queue,
 * claims and releases, a review refused because another reviewer holds the entry, confirm and overturn, and the
 * review's result on the decision page. Every effect is checked through the public API.
 */
describe.skipIf(!hasChromium)('review in the web console', () => {
  let service: Service;
  let browser: Browser;
  let page: Page;
  let bob: string;
  const pageErrors: string[] = [];
  const ids: Record<'threat' | 'morning' | 'lunch', string> = { threat: '', morning: '', lunch: '' };

  const admin = (method: string, url: string, body?: unknown) =>
    service.call(method, url, service.t.adminKey, body);
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
  const queueRows = () => page.getByRole('table', { name: 'Review queue' }).locator('tbody tr');
  const row = (text: string) => page.getByRole('row', { name: new RegExp(text) });

  beforeAll(async () => {
    [service, browser] = await Promise.all([startService(), launchBrowser()]);
    page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(String(error.stack)));
    const key = await admin('POST', '/v1/keys', { name: 'bob', scopes: ['review'] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    bob = key.body.key;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('shows an empty queue with how decisions get there', async () => {
    await page.goto(`${service.base}/dashboard`);
    await page.getByLabel('API key').fill(service.t.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await nav('Review').click();
    await page.getByRole('heading', { name: 'Review', exact: true }).waitFor();
    await page.getByText('Nothing to review').waitFor();
    const hint = await page.locator('.empty').textContent();
    expect(hint).toContain('review: true');
    expect(hint).toContain('reviewSample');
  });

  it('lists the queue appeals first, claims and releases an entry', async () => {
    const policy = await admin('POST', '/v1/policies', { policyId: 'reviewed', yamlContent: POLICY });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const texts = {
      morning: 'what a lovely morning',
      threat: 'I will kill you and your whole family',
      lunch: 'see you at lunch',
    } as const;
    for (const [name, content] of Object.entries(texts)) {
      const res = await admin('POST', '/v1/check', { content, policyId: 'reviewed' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids[name as keyof typeof ids] = res.body.decisionId;
    }
    const appeal = await admin('POST', `/v1/decisions/${ids.threat}/appeals`, {
      statement: 'I was quoting a film line',
      userId: 'user-7',
    });
    expect(appeal.status, JSON.stringify(appeal.body)).toBe(201);

    await page.reload();
    await expect.poll(() => queueRows().count()).toBe(3);
    // the API's order: the appeal first, then oldest first
    const first = await queueRows().first().textContent();
    expect(first).toContain('Appeal');
    expect(first).toContain('kill you');
    expect(await queueRows().nth(1).textContent()).toContain('lovely morning');

    // bob takes the appeal (the head of the queue); the console sees his lease
    const claimed = await service.call('POST', '/v1/review/queue/claim', bob, { limit: 1 });
    expect(claimed.body.items.map((i: { decisionId: string }) => i.decisionId)).toEqual([ids.threat]);
    await page.getByLabel('Hide entries other reviewers hold').check();
    await expect.poll(() => queueRows().count()).toBe(2);
    await page.getByLabel('Hide entries other reviewers hold').uncheck();
    await expect.poll(() => row('kill you').textContent()).toContain('Claimed by another reviewer');

    // a claim from the console leases the next available entry to the signed-in key
    await page.getByLabel('Entries to claim').fill('1');
    await page.getByRole('button', { name: 'Claim', exact: true }).click();
    await page.getByText(/^Claimed 1 entry until/).waitFor();
    await expect.poll(() => row('lovely morning').textContent()).toContain('Claimed by you');
    const leased = await admin('GET', '/v1/review/queue?limit=100');
    const morning = leased.body.items.find((i: { decisionId: string }) => i.decisionId === ids.morning);
    expect(morning.lease).not.toBeNull();

    await row('lovely morning').getByRole('button', { name: 'Release' }).click();
    await page.getByText('Entry released').waitFor();
    await expect.poll(() => row('lovely morning').textContent()).toContain('Available');
    const released = await admin('GET', '/v1/review/queue?limit=100');
    expect(
      released.body.items.find((i: { decisionId: string }) => i.decisionId === ids.morning).lease,
    ).toBeNull();
  });

  it("shows the API's error when another reviewer holds the entry, then overturns with a reason", async () => {
    await row('kill you').getByRole('link', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Review decision' }).waitFor();
    expect(page.url()).toBe(`${service.base}/dashboard/review/${ids.threat}`);
    await page.getByText('I was quoting a film line').waitFor();
    await page.getByText('Another reviewer holds this entry').waitFor();
    await page.getByRole('button', { name: 'Submit review' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('Another reviewer holds the lease of this decision (REVIEW_LEASED)');
    const untouched = await admin('GET', `/v1/decisions/${ids.threat}`);
    expect(untouched.body.review).toBeNull();

    const item = (await service.call('GET', '/v1/review/queue?reason=appeal', bob)).body.items[0];
    expect((await service.call('POST', `/v1/review/queue/${item.itemId}/release`, bob)).status).toBe(200);
    await page.reload();
    await page.getByText('Available.').waitFor();
    await page.getByRole('radio', { name: 'Overturn' }).check();
    await page.getByLabel('New action').selectOption('allow');
    await page.getByLabel('Reason').fill('A quote from a film, not a threat');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page.getByText('Review recorded: overturned block to allow.').waitFor();

    const reviewed = await admin('GET', `/v1/decisions/${ids.threat}`);
    expect(reviewed.body).toMatchObject({
      action: 'block',
      effectiveAction: 'allow',
      review: { outcome: 'overturn', action: 'allow', note: 'A quote from a film, not a threat' },
    });
    const appeals = await admin('GET', `/v1/decisions/${ids.threat}/appeals`);
    expect(appeals.body.appeals[0].status).toBe('overturned');
    const summary = page.getByRole('region', { name: 'Human review' });
    expect(await summary.textContent()).toContain(reviewed.body.review.reviewer.keyId);
  });

  it("shows the review's result on the decision page", async () => {
    await page.getByRole('link', { name: ids.threat }).click();
    await page.getByRole('heading', { name: 'Decision', exact: true }).waitFor();
    const facts = (await page.locator('dl.facts').first().textContent())!;
    expect(facts).toMatch(/Automated action\s*block/);
    expect(facts).toMatch(/Effective action\s*allow/);
    const summary = page.getByRole('region', { name: 'Human review' });
    const text = (await summary.textContent())!;
    expect(text).toContain('Overturned');
    expect(text).toContain('A quote from a film, not a threat');
    const reviewer = (await admin('GET', `/v1/decisions/${ids.threat}`)).body.review.reviewer;
    expect(text).toContain(reviewer.keyId);
    if (reviewer.name) expect(text).toContain(reviewer.name);
    // the list shows the automated action and, once overturned, the one that applies
    await nav('Decisions').click();
    await expect
      .poll(() => page.getByRole('row', { name: /kill you/ }).textContent())
      .toContain('block → allow after human review');
    expect(await page.getByRole('row', { name: /lovely morning/ }).textContent()).not.toContain('→');
  });

  it('confirms the next entry and empties the queue', async () => {
    await nav('Review').click();
    await expect.poll(() => queueRows().count()).toBe(2);
    await row('lovely morning').getByRole('link', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Review decision' }).waitFor();
    await page.getByText('Not in the review queue').or(page.getByText('Available.')).first().waitFor();
    await page.getByRole('radio', { name: /^Confirm/ }).check();
    await page.getByLabel('Reason').fill('Harmless');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page.getByText('Review recorded: allow confirmed.').waitFor();
    const confirmed = await admin('GET', `/v1/decisions/${ids.morning}`);
    expect(confirmed.body.review).toMatchObject({ outcome: 'confirm', action: 'allow', direct: false });

    // "Claim the next entry" leases the last one and opens it
    await page.getByRole('button', { name: 'Claim the next entry' }).click();
    await expect.poll(() => page.url()).toBe(`${service.base}/dashboard/review/${ids.lunch}`);
    await page.getByText(/Claimed by you until/).waitFor();
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page.getByText('Review recorded: allow confirmed.').waitFor();

    await nav('Review').click();
    await page.getByText('Nothing to review').waitFor();
    expect((await admin('GET', '/v1/review/queue')).body.items).toEqual([]);
  });

  it('shows checks per API key on the Usage page, linked to their decisions', async () => {
    const web = await admin('POST', '/v1/keys', { name: 'web app', scopes: ['check'] });
    for (const content of ['first from the web app', 'second from the web app']) {
      const res = await service.call('POST', '/v1/check', web.body.key, { content, policyId: 'default' });
      expect(res.status).toBe(200);
    }
    await nav('Usage').click();
    const table = page.getByRole('table', { name: 'By API key' });
    const webRow = table.getByRole('row', { name: /web app/ });
    await expect.poll(() => webRow.textContent()).toContain(`${web.body.prefix}…${web.body.last4}`);
    const api = (await admin('GET', '/v1/usage/keys')).body;
    const rowOf = (keyId: string) => api.keys.find((k: { keyId: string }) => k.keyId === keyId);
    expect(rowOf(web.body.id).checks).toBe(2);
    expect((await webRow.locator('td').last().textContent())?.trim()).toBe('2');
    expect((await table.getByRole('row', { name: /bob/ }).locator('td').last().textContent())?.trim()).toBe(
      '0',
    );
    // the admin key made the three checks of the review tests
    const self = api.keys.find((k: { checks: number }) => k.checks === 3);
    expect(self).toBeDefined();
    expect(await page.locator('.card-head .small').textContent()).toContain(`${api.checks} checks`);

    await webRow.getByRole('link', { name: '2' }).click();
    await expect.poll(() => page.url()).toContain(`keyId=${web.body.id}`);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    expect(await page.locator('tbody').textContent()).toContain('from the web app');
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
