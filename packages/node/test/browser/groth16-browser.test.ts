/**
 * The Groth16 prover (@logos-ts/groth16) in a browser: headless Chromium (Debian's, /usr/bin/chromium,
 * or CHROMIUM_PATH) loads the prover's modules from a local server, which transpiles the package's
 * TypeScript sources as they are asked for (no bundle, no build), places the node's ZkSig proving key
 * and proves a witness made here, on the page's own thread (the prover's `LocalRunner`: no worker
 * threads, shared WebAssembly memory under cross-origin isolation). snarkjs' verifier, here, is the
 * oracle: the browser's proof verifies under the circuit's verification key, and not with a public
 * input changed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WitnessCalculatorBuilder } from 'circom_runtime';
import type { Browser } from 'puppeteer-core';
import ts from 'typescript';
import { FR_MODULUS } from '../../src/crypto/field.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import { ZKSIGN_MAX_KEYS } from '../../src/ledger/proof-system.ts';
import { SHIPPED_CIRCUITS_DIR } from '../../src/zk/circuit-folder.ts';
import { zkSignPublic } from '../../src/zk/groth16-system.ts';
import { CHROMIUM, launchChromium } from './chromium.ts';

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));
/** URL prefix → source folder of the modules the page may load. */
const SOURCES: Record<string, string> = {
  '/groth16/': join(PACKAGES, 'groth16', 'src'),
  '/shared/': join(PACKAGES, 'shared', 'src'),
};
const CIRCUIT = join(SHIPPED_CIRCUITS_DIR, 'signature');

interface Snarkjs {
  groth16: { verify(vk: unknown, pub: string[], proof: unknown): Promise<boolean> };
}
const SNARKJS: string = 'snarkjs';

const PAGE = `<!doctype html>
<script type="importmap">{"imports": {"@logos-ts/shared/errors": "/shared/errors.ts"}}</script>
<script type="module">
  const proverModule = '/groth16/prover.ts';
  const { Groth16Prover } = await import(proverModule);
  window.prove = async () => {
    const get = async (p) => new Uint8Array(await (await fetch(p)).arrayBuffer());
    const prover = await Groth16Prover.start();
    prover.addKey('zksig', await get('/fixture/proving_key.zkey'));
    const { proof, publicSignals } = await prover.prove('zksig', await get('/fixture/witness.wtns'));
    return { proof, publicSignals, isolated: self.crossOriginIsolated, usedNode: typeof process !== 'undefined' };
  };
  window.ready = true;
</script>`;

let server: Server;
let browser: Browser | undefined;
let base = '';
let wtns: Uint8Array;
let publicInputs: bigint[];

before(async () => {
  // A ZkSig statement: two keys sign a message.
  const sks = [11n, 22n];
  const msg = 12345n;
  publicInputs = zkSignPublic({ msg, publicKeys: sks.map(zkPublicKey) });
  const padded = [...sks, ...Array.from({ length: ZKSIGN_MAX_KEYS - sks.length }, () => 0n)];
  const wc = await WitnessCalculatorBuilder(
    new Uint8Array(readFileSync(join(CIRCUIT, 'witness_generator.wasm'))),
  );
  wtns = await wc.calculateWTNSBin(
    {
      pks: publicInputs.slice(0, ZKSIGN_MAX_KEYS).map(String),
      msg: String(msg),
      sks: padded.map(String),
    },
    true,
  );
  server = createServer((req, res) => {
    // Cross-origin isolation: shared WebAssembly memory needs it.
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (type: string, body: string | Uint8Array) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    if (path === '/') return send('text/html', PAGE);
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    if (path === '/fixture/proving_key.zkey')
      return send('application/octet-stream', readFileSync(join(CIRCUIT, 'proving_key.zkey')));
    if (path === '/fixture/witness.wtns') return send('application/octet-stream', wtns);
    const prefix = Object.keys(SOURCES).find((p) => path.startsWith(p));
    const file = prefix === undefined ? undefined : join(SOURCES[prefix]!, path.slice(prefix.length));
    if (file === undefined || file.includes('..') || !file.endsWith('.ts') || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const js = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    send('text/javascript', js);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
});

test('a proof made in headless Chromium verifies under the circuit key (snarkjs as the oracle)', async () => {
  assert.ok(
    existsSync(CHROMIUM),
    `a Chromium at ${CHROMIUM} (Debian's chromium package; CHROMIUM_PATH to choose another)`,
  );
  browser = await launchChromium();
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${base}/`);
  await page.waitForFunction('window.ready === true', { timeout: 30_000 }).catch((e: Error) => {
    throw new Error(`the page did not load the prover: ${e.message}\n${errors.join('\n')}`);
  });
  const out = (await page.evaluate('window.prove()')) as {
    proof: unknown;
    publicSignals: string[];
    isolated: boolean;
    usedNode: boolean;
  };
  assert.deepEqual(errors, [], 'no error on the page');
  assert.equal(out.isolated, true, 'the page is cross-origin isolated (shared memory)');
  assert.equal(out.usedNode, false, 'no Node API in the page');
  assert.deepEqual(out.publicSignals, publicInputs.map(String), 'the statement proved');
  const snarkjs = (await import(SNARKJS)) as Snarkjs;
  const vk = JSON.parse(readFileSync(join(CIRCUIT, 'verification_key.json'), 'utf8'));
  assert.equal(await snarkjs.groth16.verify(vk, out.publicSignals, out.proof), true, 'snarkjs verifies it');
  const changed = out.publicSignals.map((x, i) => (i === 0 ? String((BigInt(x) + 1n) % FR_MODULUS) : x));
  assert.equal(await snarkjs.groth16.verify(vk, changed, out.proof), false, 'not with an input changed');
});
