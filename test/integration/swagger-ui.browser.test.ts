import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = resolve(import.meta.dirname, '../../test-output');
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`swagger-ui.browser.test: skipped, ${CHROMIUM} is absent (.ci/run installs Debian's chromium)`);

describe.skipIf(!haveChromium)('Swagger UI at /docs, in headless Chromium', () => {
  let t: TestApp;
  let server: Server;
  let base: string;
  let browser: BrowserContext;
  const profile = mkdtempSync(join(tmpdir(), 'stacks-chromium-'));

  beforeAll(async () => {
    // The document's `servers` entry is PUBLIC_URL, which "Try it out" calls: listen first, then build the app with it.
    server = createServer((req, res) => void t.app(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ PUBLIC_URL: base });
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
    await t?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('authorizes with a bearer token, runs "Try it out" on GET /api/books and shows 200', async () => {
    const registered = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'browser', email: 'browser@example.test', password: 'correct horse battery' }),
    });
    expect(registered.status).toBe(201);
    const token = ((await registered.json()) as { access_token: string }).access_token;

    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const blocked: string[] = [];
    page.on('console', (m) => m.type() === 'error' && blocked.push(m.text()));
    await page.goto(`${base}/docs/`, { waitUntil: 'networkidle' });
    await page.locator('.swagger-ui .info .title').getByText('Stacks').waitFor();

    await page.locator('.scheme-container button.authorize').click();
    const modal = page.locator('.modal-ux');
    await modal.locator('#auth-bearer-value').fill(token);
    await modal.locator('.auth-btn-wrapper button.authorize').click();
    await modal.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
    await modal.locator('.auth-btn-wrapper button.btn-done').click();
    await modal.waitFor({ state: 'detached' });

    const operation = page.locator('#operations-Books-listBooks');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    mkdirSync(OUTPUT, { recursive: true });
    await operation.screenshot({ path: join(OUTPUT, 'swagger-ui-try-it-out.png') });
    expect((await status.innerText()).trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .response-col_description pre').first().innerText()).toContain('"total": 0');
    expect(blocked.filter((text) => /Content Security Policy|Refused/.test(text))).toEqual([]);
  }, 60_000);
});
