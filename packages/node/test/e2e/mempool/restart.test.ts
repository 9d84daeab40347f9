/**
 * The mempool of a node started through the command line (as `npm start` does):
 * - Pending transaction survives restart before inclusion: a node that does not lead (no blocks) holds
 *   a pending transaction, is killed with SIGKILL and restarted; the transaction is pending again with its
 *   insertion time (`last_item_timestamp` unchanged), and is still served by `/cryptarchia/transaction/{id}`;
 * - proofs are verified on worker threads that start under the TypeScript loader: on the devnet (Groth16)
 *   a transfer with a real ZkSig proof is admitted and a forged one is the reference's 422.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { buildGenesis } from '../../../src/ledger/genesis.ts';
import { type SignedMantleTx, signedMantleTx, txHash, txHashToFr } from '../../../src/mantle/tx.ts';
import { SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../../../src/zk/groth16-system.ts';
import { fastDeployment, fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { ctxOf, DEVNET, genesisNotes, KEYS, transfer } from '../../mocks/ledger.ts';
import { spawnCli } from '../../utils/cli-process.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts the CLI and resolves with the API's base URL once the node serves. */
async function start(
  args: string[],
  dir: string,
): Promise<{ p: ChildProcess; base: string; exited: Promise<void> }> {
  const p = spawnCli(args, dir);
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  const base = await new Promise<string>((resolve, reject) => {
    let buf = '';
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`node did not start: ${buf.slice(-800)} ${err.slice(-800)}`)),
      30_000,
    );
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    p.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m =
        /"api":"(127\.0\.0\.1:\d+)"[^\n]*"chain ready"/.exec(buf) ??
        /"msg":"chain ready"[^\n]*"api":"(127\.0\.0\.1:\d+)"/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
  });
  return { p, base, exited };
}

async function post(base: string, path: string, body: unknown) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stringifyJson(body as never),
  });
  return { status: res.status, text: await res.text() };
}

async function waitServing(base: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/cryptarchia/info`)).status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the API did not answer');
}

test('Pending transaction survives restart before inclusion (SIGKILL)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-mempool-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'fast.yaml'), fastDeploymentYaml(100, 2).replace('tx_ttl: 86400', 'tx_ttl: 3600'));
  // No keys: the node does not lead, so nothing includes the transaction.
  writeFileSync(
    join(dir, 'node.yaml'),
    "api: { backend: { listen_address: '127.0.0.1:0' } }\nstate: { base_folder: './state' }\n",
    {
      mode: 0o600,
    },
  );
  const args = ['start', '--config', 'node.yaml', '--deployment', 'fast.yaml', '--insecure-test-proofs'];
  const d = fastDeployment(100, 2);
  const g = buildGenesis(d, ctxOf(d), 1_700_000_000);
  const tx = transfer(g.state, [genesisNotes(g)[0]!], [{ value: 10n, pk: KEYS[3]!.publicKey }]).tx;
  const h = bytesToHex(txHash(tx.mantle_tx));

  const first = await start(args, dir);
  await waitServing(first.base);
  const r = await post(first.base, '/mempool/add/tx', signedMantleTx.toJson(tx));
  assert.equal(r.status, 200, r.text);
  const metrics = JSON.parse(await (await fetch(`${first.base}/mantle/metrics`)).text());
  assert.equal(metrics.pending_items, 1);
  first.p.kill('SIGKILL');
  await first.exited;

  const second = await start(args, dir);
  try {
    await waitServing(second.base);
    const st = await post(second.base, '/mantle/status', [h]);
    assert.equal(st.text, '["Pending"]');
    const again = JSON.parse(await (await fetch(`${second.base}/mantle/metrics`)).text());
    assert.deepEqual(again, metrics, 'the same pending count and insertion time');
    const got = await fetch(`${second.base}/cryptarchia/transaction/${h}`);
    assert.equal(got.status, 200);
    assert.equal(JSON.parse(await got.text()).mantle_tx.hash, h);
  } finally {
    second.p.kill('SIGKILL');
    await second.exited;
  }
});

test('proofs verify on worker threads of a CLI node: a real ZkSig is admitted, a forged one is 422', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-mempool-zk-'));
  dirs.push(dir);
  writeFileSync(
    join(dir, 'node.yaml'),
    "api: { backend: { listen_address: '127.0.0.1:0' } }\nstate: { base_folder: './state' }\nmempool: { verifier_threads: 2 }\n",
    {
      mode: 0o600,
    },
  );
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  const node = await start(['start', '--config', 'node.yaml', '--deployment', 'devnet'], dir);
  try {
    const g = buildGenesis(DEVNET, ctxOf(DEVNET), 1_700_000_000);
    const notes = genesisNotes(g);
    const real = async (i: number, sk: bigint): Promise<SignedMantleTx> => {
      const t = transfer(g.state, [notes[i]!], [{ value: 10n, pk: KEYS[3]!.publicKey }]).tx;
      const sig = await zk.proveZkSign(txHashToFr(txHash(t.mantle_tx)), [sk]);
      return { ...t, ops_proofs: [{ type: 'ZkSig', signature: sig }] };
    };
    // Two different notes: a forged proof on a note the good one spends would not apply on the view, and
    // would be admitted unchecked as the reference admits it.
    const [good, forged] = await Promise.all([real(0, notes[0]!.sk), real(1, notes[1]!.sk + 1n)]);
    await waitServing(node.base);
    const ok = await post(node.base, '/mempool/add/tx', signedMantleTx.toJson(good));
    assert.equal(ok.status, 200, ok.text);
    const bad = await post(node.base, '/mempool/add/tx', signedMantleTx.toJson(forged));
    assert.equal(bad.status, 422);
    assert.equal(
      bad.text,
      'Failed to deserialize the JSON body into the target type: Transfer verification error: Invalid transfer ZkSignature',
    );
    const st = await post(node.base, '/mantle/status', [
      bytesToHex(txHash(good.mantle_tx)),
      bytesToHex(txHash(forged.mantle_tx)),
    ]);
    assert.equal(st.text, '["Pending","Unknown"]');
  } finally {
    node.p.kill('SIGKILL');
    await node.exited;
    await zk.close();
  }
});
