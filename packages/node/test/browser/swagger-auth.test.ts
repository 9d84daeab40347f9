/**
 * The Swagger UI of a node whose API asks for credentials (`api.backend.auth`), in headless Chromium
 * (Debian's, /usr/bin/chromium, or CHROMIUM_PATH): the UI loads without credentials, its "Authorize"
 * dialog takes a bearer token, and "Try it out" then "Execute" on an endpoint gets a 200 (without the
 * token the same request is a 401).
 */
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import type { Browser } from 'puppeteer-core';
import { hashToken } from '../../src/api/auth.ts';
import { ApiServer } from '../../src/api/server.ts';
import { devnetConfig } from '../../src/node/devnet.ts';
import { apiContext } from '../mocks/api-context.ts';
import { launchChromium } from './chromium.ts';

const TOKEN = 'swagger-ui-test-token-6d1f0c2a9b8e7d6c5b4a';

let server: ApiServer;
let base: string;
let browser: Browser;

before(async () => {
  const backend = {
    ...devnetConfig().api.backend,
    listen_address: '127.0.0.1:0',
    auth: { mode: 'all' as const, bearer_token_hashes: [hashToken(TOKEN)], basic_users: [] },
  };
  server = await ApiServer.init({ backend }, pino({ level: 'silent' }));
  base = `http://${await server.serve(apiContext())}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('the Swagger UI authorizes with a bearer token and its requests are answered', async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${base}/swagger-ui/`);
  const op = '#operations-Mempool-mantleMetrics';
  await page.waitForSelector(op);

  /** Opens the operation, tries it out, executes it; waits for the UI to show `status`. */
  const execute = async (status: string): Promise<void> => {
    if (!(await page.$(`${op}.is-open`))) await page.click(`${op} .opblock-summary`);
    await page.waitForSelector(`${op} .try-out__btn`);
    const tryOut = await page.$(`${op} .try-out__btn:not(.cancel)`);
    if (tryOut) await tryOut.click();
    await page.waitForSelector(`${op} .execute`);
    const clear = await page.$(`${op} .btn-clear`);
    if (clear) await clear.click();
    await page.click(`${op} .execute`);
    // An expression evaluated in the page: whether a response row shows the status.
    await page.waitForFunction(
      `[...document.querySelectorAll(${JSON.stringify(`${op} tr.response .response-col_status`)})]` +
        `.some((e) => (e.textContent ?? '').trim().startsWith(${JSON.stringify(status)}))`,
    );
  };

  await execute('401'); // without the token
  await page.click('.auth-wrapper .authorize');
  await page.waitForSelector('.modal-ux input');
  await page.type('.modal-ux input', TOKEN);
  await page.click('.modal-ux .auth-btn-wrapper .authorize');
  await page.click('.modal-ux .btn-done, .modal-ux .close-modal');
  await execute('200'); // with the token
});
