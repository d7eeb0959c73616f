import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines, tempDir } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/** The web console's server side: static pages with a strict CSP, cookie sessions, CSRF. */
describe.each(engines)('console: pages and sessions (%s)', (engine) => {
  let t: TestApp;
  let app: Awaited<ReturnType<typeof buildApp>>;
  const consoleDir = tempDir('verdict-console-');
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: new KeywordProvider() } });
    fs.mkdirSync(path.join(consoleDir, 'assets'));
    fs.writeFileSync(
      path.join(consoleDir, 'index.html'),
      '<!doctype html><script src="assets/app.js"></script>',
    );
    fs.writeFileSync(path.join(consoleDir, 'assets', 'app-abc.js'), 'console.log(1)');
    app = await buildApp(t.ctx, { consoleDir });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await t.close();
    fs.rmSync(consoleDir, { recursive: true, force: true });
  });

  const signIn = async (apiKey: unknown) => {
    const res = await app.inject({ method: 'POST', url: '/dashboard/session', payload: { apiKey } });
    const cookie = String(res.headers['set-cookie'] ?? '');
    return { res, body: res.json(), cookie: cookie.split(';')[0]! };
  };

  it('serves the console with a strict CSP at /dashboard and its deep links; / redirects there', async () => {
    const root = await app.inject({ url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/dashboard');
    for (const url of ['/dashboard', '/dashboard/decisions/dec_1']) {
      const page = await app.inject({ url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(page.headers['cache-control']).toBe('no-store');
    }
    const asset = await app.inject({ url: '/dashboard/assets/app-abc.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ url: '/dashboard/assets/../index.html' })).statusCode).not.toBe(500);
    expect((await app.inject({ url: '/dashboard/assets/missing.js' })).statusCode).toBe(404);
  });

  it('answers 503 with a clear message when the console was not built', async () => {
    const bare = await buildApp(t.ctx, { consoleDir: path.join(consoleDir, 'nowhere') });
    const page = await bare.inject({ url: '/dashboard' });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npm ci');
    await bare.close();
  });

  it('signs in with an admin key only; a wrong key is a 401 with its code', async () => {
    expect((await signIn('vk_wrong')).res.statusCode).toBe(401);
    expect((await signIn('vk_wrong')).body.error.code).toBe('INVALID_API_KEY');
    expect((await signIn('')).body.error.code).toBe('MISSING_API_KEY');
    expect((await signIn(42)).body.error.code).toBe('INVALID_PARAMETER');
    const reader = await t.newKey(['decisions:read']);
    const refused = await signIn(reader.key);
    expect(refused.res.statusCode).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    const ok = await signIn(t.adminKey);
    expect(ok.res.statusCode).toBe(201);
    expect(ok.body.csrfToken).toMatch(/^[\w-]{40,}$/);
    const setCookie = String(ok.res.headers['set-cookie']);
    expect(setCookie).toMatch(/^verdict_session=[\w-]{40,}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure'); // plain HTTP here
    // the key is not in the cookie nor in the answer
    expect(setCookie).not.toContain(t.adminKey);
    expect(JSON.stringify(ok.body)).not.toContain(t.adminKey);
  });

  it('marks the cookie Secure when the public URL is HTTPS', async () => {
    const httpsCtx = { ...t.ctx, config: { ...t.ctx.config, publicUrl: 'https://verdict.example' } };
    const secureApp = await buildApp(httpsCtx, { consoleDir });
    const res = await secureApp.inject({
      method: 'POST',
      url: '/dashboard/session',
      payload: { apiKey: t.adminKey },
    });
    expect(String(res.headers['set-cookie'])).toContain('; Secure');
    await secureApp.close();
  });

  it('authenticates /v1 calls by the cookie; state changes need the CSRF token', async () => {
    const { cookie, body } = await signIn(t.adminKey);
    const session = await app.inject({ url: '/dashboard/session', headers: { cookie } });
    expect(session.statusCode).toBe(200);
    expect(session.json().csrfToken).toBe(body.csrfToken);
    const list = await app.inject({ url: '/v1/decisions', headers: { cookie } });
    expect(list.statusCode).toBe(200);
    const policy = {
      policyId: 'console-p',
      yamlContent: 'name: P\ncategories:\n  hate: { threshold: 0.5, action: block }\n',
    };
    const noToken = await app.inject({
      method: 'POST',
      url: '/v1/policies',
      headers: { cookie },
      payload: policy,
    });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.code).toBe('INVALID_CSRF_TOKEN');
    const wrongToken = await app.inject({
      method: 'POST',
      url: '/v1/policies',
      headers: { cookie, 'x-csrf-token': 'x'.repeat(43) },
      payload: policy,
    });
    expect(wrongToken.json().error.code).toBe('INVALID_CSRF_TOKEN');
    const saved = await app.inject({
      method: 'POST',
      url: '/v1/policies',
      headers: { cookie, 'x-csrf-token': body.csrfToken },
      payload: policy,
    });
    expect(saved.statusCode).toBe(201);
    // another session's token does not work for this one
    const other = await signIn(t.adminKey);
    const crossed = await app.inject({
      method: 'POST',
      url: '/v1/policies',
      headers: { cookie, 'x-csrf-token': other.body.csrfToken },
      payload: policy,
    });
    expect(crossed.json().error.code).toBe('INVALID_CSRF_TOKEN');
  });

  it('is 401 signed out, with a forged cookie, and after sign-out', async () => {
    for (const headers of [{}, { cookie: 'verdict_session=forged' }, { cookie: 'other=1' }]) {
      for (const url of [
        '/v1/decisions',
        '/v1/stats',
        '/v1/keys',
        '/v1/webhooks',
        '/v1/usage',
        '/v1/policies',
      ]) {
        const res = await app.inject({ url, headers });
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(401);
      }
    }
    expect((await app.inject({ url: '/dashboard/session' })).statusCode).toBe(401);
    const { cookie, body } = await signIn(t.adminKey);
    const refused = await app.inject({ method: 'DELETE', url: '/dashboard/session', headers: { cookie } });
    expect(refused.statusCode).toBe(403);
    const out = await app.inject({
      method: 'DELETE',
      url: '/dashboard/session',
      headers: { cookie, 'x-csrf-token': body.csrfToken },
    });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    const after = await app.inject({ url: '/v1/decisions', headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });

  it("ends a session at once when its key is revoked (the key's state is checked on every request)", async () => {
    const created = await t.request('POST', '/v1/keys', { body: { name: 'console', scopes: ['admin'] } });
    const { cookie } = await signIn(created.body.key);
    expect((await app.inject({ url: '/v1/keys', headers: { cookie } })).statusCode).toBe(200);
    await t.request('DELETE', `/v1/keys/${created.body.id}`);
    const after = await app.inject({ url: '/v1/keys', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('REVOKED_API_KEY');
    // and the session is gone for good
    expect((await app.inject({ url: '/v1/keys', headers: { cookie } })).json().error.code).toBe(
      'INVALID_API_KEY',
    );
  });

  it('lists when each key was last used (written in the background, at most once a minute)', async () => {
    const created = await t.request('POST', '/v1/keys', {
      body: { name: 'used', scopes: ['decisions:read'] },
    });
    const listed = async () =>
      (await t.request('GET', '/v1/keys')).body.keys.find((k: { id: string }) => k.id === created.body.id);
    expect((await listed()).lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await t.request('GET', '/v1/decisions', { key: created.body.key })).status).toBe(200);
    await expect.poll(async () => (await listed()).lastUsedAt, { timeout: 5000 }).not.toBeNull();
    expect(Date.parse((await listed()).lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('prefers an Authorization header over the cookie (API clients are unaffected)', async () => {
    const { cookie } = await signIn(t.adminKey);
    const res = await app.inject({
      url: '/v1/decisions',
      headers: { cookie, authorization: 'Bearer vk_wrong' },
    });
    expect(res.json().error.code).toBe('INVALID_API_KEY');
  });
});
