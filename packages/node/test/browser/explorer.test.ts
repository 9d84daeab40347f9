/**
 * The explorer (/explorer/) of a devnet node producing blocks (FAST deployment, insecure test proofs),
 * in headless Chromium (Debian's, /usr/bin/chromium, or CHROMIUM_PATH) at a phone's width: the header
 * shows the tip; a transfer is submitted; a block that was not in the latest-blocks list at load
 * appears in it from the block stream, with the transfer; opened, its page shows what the API answers
 * for it (id, height, slot, parent, transactions and their operations, ledger events). The transfer
 * is then found by hash as included, and the mempool, SDP and channels views render. The page makes
 * no request to another origin, throws nothing, and is no wider than the screen. A screenshot of the
 * block page is saved to EXPLORER_SCREENSHOT (default: <tmpdir>/logos-explorer.png) and its path
 * printed. With an API that asks for credentials, the page loads, asks for them, and reads the chain
 * once a bearer token is typed in.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import type { Browser, Page } from 'puppeteer-core';
import { createClient } from '../../client/index.ts';
import { transfer } from '../../client/wallet.ts';
import { hashToken } from '../../src/api/auth.ts';
import { EXPLORER_CSP } from '../../src/api/explorer.ts';
import { ApiServer } from '../../src/api/server.ts';
import { hexToBytes } from '../../src/codec/hex.ts';
import { devnetConfig, fundedDevnetKeys } from '../../src/node/devnet.ts';
import { apiContext } from '../mocks/api-context.ts';
import { startFastNode, type TestNode, waitUntil } from '../utils/api-node.ts';
import { launchChromium } from './chromium.ts';

const SCREENSHOT = process.env.EXPLORER_SCREENSHOT ?? join(tmpdir(), 'logos-explorer.png');
const OPCODES: Record<number, string> = { 0: 'Transfer', 48: 'LeaderClaim', 64: 'ClaimPowReward' };
const [k0, k1] = fundedDevnetKeys() as unknown as [{ publicKey: string }, { publicKey: string }];

interface ApiBlock {
  header: { id: string; parent_block: string; slot: number };
  uncle_headers: unknown[];
  transactions: { mantle_tx: { hash: string; ops: { opcode: number }[] } }[];
}

let tn: TestNode;
let browser: Browser;

before(async () => {
  tn = await startFastNode();
  await waitUntil(() => tn.node.chain.tip().height >= 2, 30_000, 'the first blocks');
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await tn?.stop();
});

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(`${tn.base}${path}`);
  assert.equal(res.status, 200, path);
  return (await res.json()) as T;
}

/** The text of the element `selector` (empty if absent). */
const textOf = (page: Page, selector: string) =>
  page.$eval(selector, (e) => (e.textContent ?? '').trim()).catch(() => '');

/** Whether the page is as wide as the screen (nothing makes it scroll sideways). */
const fitsWidth = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth <= window.innerWidth') as Promise<boolean>;

test('the explorer follows new blocks and shows one as the API does', { timeout: 150_000 }, async () => {
  // Plain HTTP first: the page with its policy, an unknown file refused.
  const index = await fetch(`${tn.base}/explorer/`);
  assert.equal(index.status, 200);
  assert.equal(index.headers.get('content-security-policy'), EXPLORER_CSP);
  assert.match(await index.text(), /<script type="module" src="explorer\.js">/);
  const unknown = await fetch(`${tn.base}/explorer/config.json`);
  assert.equal(unknown.status, 404);
  await unknown.arrayBuffer();

  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await page.setViewport({ width: 412, height: 915, isMobile: true, deviceScaleFactor: 2 });
  const origin = new URL(tn.base).origin;
  const elsewhere: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith('data:') && new URL(url).origin !== origin) elsewhere.push(url);
  });
  page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)));

  await page.goto(`${tn.base}/explorer/`);
  // The tip in the header, the list filled from storage, the stream connected.
  await page.waitForFunction(`/^#\\d+ · slot \\d+$/.test(document.getElementById('tip').textContent)`);
  const shownHeight = Number((await textOf(page, '#tip')).slice(1).split(' ')[0]);
  assert.ok(shownHeight >= 2 && shownHeight <= tn.node.chain.tip().height, `tip height ${shownHeight}`);
  assert.match(await textOf(page, '#phase'), /^(Online|Bootstrapping) · \w+$/);
  assert.match(await textOf(page, '#peers'), /^\d+ /);
  await page.waitForFunction(`document.getElementById('live').textContent === 'live'`);
  await page.waitForSelector('#latest tr[data-block-id]');
  const atLoad = await page.$$eval('#latest tr[data-block-id]', (rows) =>
    rows.map((r) => r.getAttribute('data-block-id')),
  );
  assert.ok(atLoad.length >= 2);

  // A transfer, so that a block to come carries a transaction.
  const client = createClient({ baseUrl: tn.base });
  const txHash = await transfer(client, { from: k0.publicKey, to: k1.publicKey, amount: 3n });

  // A new block with a transaction arrives in the list from the stream.
  const known = JSON.stringify(atLoad);
  const handle = await page.waitForFunction(
    `[...document.querySelectorAll('#latest tr[data-block-id]')].map((r) => r.getAttribute('data-block-id'))
      .find((id, _, all) => !${known}.includes(id) &&
        Number(document.querySelector('#latest tr[data-block-id="' + id + '"] [data-col="txs"]').textContent) > 0)`,
    { timeout: 60_000 },
  );
  const id = (await handle.jsonValue()) as string;
  assert.match(id, /^[0-9a-f]{64}$/);
  assert.ok(!atLoad.includes(id));

  await page.click(`#latest tr[data-block-id="${id}"] a[href="#/block/${id}"]`);
  await page.waitForFunction(
    `document.querySelector('[data-field="id"]')?.textContent === ${JSON.stringify(id)}`,
  );
  await page.waitForSelector('#events');

  // What the page shows, against the API's answer for that block.
  const block = await getJson<ApiBlock>(`/cryptarchia/blocks/${id}`);
  const ref = tn.node.chain.blockRef(hexToBytes(id));
  assert.ok(ref);
  assert.equal(await textOf(page, '[data-field="height"]'), String(ref.height));
  assert.match(await textOf(page, '[data-field="slot"]'), new RegExp(`^${block.header.slot}\\b`));
  assert.equal(await textOf(page, '[data-field="parent"]'), block.header.parent_block);
  assert.equal(await textOf(page, '[data-field="tx-count"]'), String(block.transactions.length));
  assert.equal(await textOf(page, '[data-field="uncle-count"]'), String(block.uncle_headers.length));
  const shownTxs = await page.$$eval('#transactions section.tx', (ss) =>
    ss.map((s) => ({
      hash: s.getAttribute('data-tx'),
      ops: [...s.querySelectorAll('.opname')].map((o) => o.textContent),
    })),
  );
  assert.deepEqual(
    shownTxs,
    block.transactions.map((t) => ({
      hash: t.mantle_tx.hash,
      ops: t.mantle_tx.ops.map((o) => OPCODES[o.opcode] ?? `opcode ${o.opcode}`),
    })),
  );
  assert.ok(shownTxs.some((t) => t.ops.includes('Transfer')));
  const events = await getJson<unknown[]>(`/cryptarchia/blocks/${id}/events`);
  const shownEvents = await page.$$eval('ol#events > li', (li) => li.length);
  assert.equal(shownEvents, events.length);
  assert.ok(await fitsWidth(page), 'the block page fits a phone screen');
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  console.log(`explorer screenshot: ${SCREENSHOT}`);

  // The parent link leads to the parent's page.
  await page.click('[data-field="parent"] a');
  await page.waitForFunction(
    `document.querySelector('[data-field="id"]')?.textContent === ${JSON.stringify(block.header.parent_block)}`,
  );

  // The transfer, found by its hash from the search box: included, with its Transfer operation.
  await waitUntil(
    () => tn.node.chain.transactionLocation(hexToBytes(txHash)) !== undefined,
    30_000,
    'inclusion',
  );
  await page.type('#search-input', txHash);
  await page.click('#search button');
  await page.waitForFunction(`document.querySelector('[data-field="status"]')?.textContent === 'included'`);
  assert.equal(await textOf(page, '[data-field="hash"]'), txHash);
  const loc = tn.node.chain.transactionLocation(hexToBytes(txHash))!;
  const blockOfTx = Buffer.from(loc.block).toString('hex');
  assert.equal(await textOf(page, '[data-field="block"]'), blockOfTx);
  assert.ok((await page.$$eval('.opname', (o) => o.map((x) => x.textContent))).includes('Transfer'));

  // The other views render without an error.
  for (const [hash, ready] of [
    ['#/mempool', '[data-field="pending"]'],
    ['#/sdp', 'main p'],
    ['#/channels', 'main p'],
  ] as const) {
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
    await page.waitForSelector(ready);
    await page.waitForFunction(`!/Reading/.test(document.querySelector('main').textContent)`);
    assert.equal(await page.$('main .error'), null, `${hash}: ${await textOf(page, 'main .error')}`);
    assert.ok(await fitsWidth(page), `${hash} fits a phone screen`);
  }
  await page.evaluate(`window.location.hash = '#/'`);
  await page.waitForSelector('#latest tr[data-block-id]');
  assert.ok(await fitsWidth(page), 'the home page fits a phone screen');

  assert.deepEqual(elsewhere, [], 'requests to another origin');
  assert.deepEqual(errors, [], 'errors thrown in the page');
  await page.close();
});

test('with authentication: the page asks for credentials and reads the API with a bearer token', {
  timeout: 60_000,
}, async () => {
  const token = 'explorer-browser-token-5e2b9c7d1a3f4e6b8c0d';
  const backend = {
    ...devnetConfig().api.backend,
    listen_address: '127.0.0.1:0',
    auth: { mode: 'all' as const, bearer_token_hashes: [hashToken(token)], basic_users: [] },
  };
  const server = await ApiServer.init({ backend }, pino({ level: 'silent' }));
  try {
    const base = `http://${await server.serve(apiContext())}`;
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${base}/explorer/`);
    await page.waitForSelector('#auth:not([hidden])');
    assert.equal(await textOf(page, '#tip'), '…');
    await page.type('#auth-input', token);
    await page.click('#auth button[type="submit"]');
    await page.waitForFunction(`/^#\\d+ · slot \\d+$/.test(document.getElementById('tip').textContent)`);
    assert.equal(await page.$('#auth:not([hidden])'), null);
    await page.close();
  } finally {
    await server.close();
  }
});
