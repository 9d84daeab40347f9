/**
 * A reorg on a real chain (an in-process follower node, the insecure test proofs, blocks made here):
 * the transactions of the abandoned branch are pending again and a block on the new tip can include
 * them, those the new branch also includes are not re-inserted, and the wallet's notes follow the fork
 * (the balance at the tip changes, the balance at a block of the abandoned branch stays). Also a reorg
 * as deep as k, after which the abandoned blocks are no longer in the tree.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson, stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { selectTransactions } from '../../../src/leader/block-builder.ts';
import { PROOFS_ALREADY_VERIFIED } from '../../../src/ledger/proof-system.ts';
import { type SignedMantleTx, signedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import { blockOn, followerConfig } from '../../mocks/chain-feed.ts';
import { fastDeployment } from '../../mocks/fast-deployment.ts';
import { genesisNotes, newKey, type Owned, transfer } from '../../mocks/ledger.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

const K = 2;
const recipient = newKey('reorg test recipient');
const RECIPIENT = bytesToHex(frToBytes(recipient.publicKey));

let tn: TestNode;
let notes: Owned[];

before(async () => {
  // Genesis 20 s ago: slots 1..200 are in the past, so the blocks made here are not from the future.
  const genesis = Math.floor(Date.now() / 1000) - 20;
  const cfg = followerConfig();
  tn = await startFastNode({
    deployment: fastDeployment(100, K, genesis),
    // The wallet tracks the recipient (no secret key needed to read a balance; no leader keys).
    config: { ...cfg, wallet: { ...cfg.wallet, known_keys: { recipient: RECIPIENT } } },
  });
  await waitUntil(() => tn.node.chain.consensusState === 'Online', 10_000, 'Online');
  notes = genesisNotes(tn.node.chain.genesis);
});
after(() => tn.stop());

const chain = () => tn.node.chain;
const hashOf = (tx: SignedMantleTx) => bytesToHex(txHash(tx.mantle_tx));
const tipIs = (b: { id: Uint8Array }) => bytesToHex(chain().tip().id) === bytesToHex(b.id);

async function post(path: string, body: unknown) {
  const res = await fetch(tn.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stringifyJson(body as never),
  });
  return { status: res.status, text: await res.text() };
}

const status = async (tx: SignedMantleTx) =>
  (JSON.parse((await post('/mantle/status', [hashOf(tx)])).text) as string[])[0];

const view = async () => JSON.parse(await (await fetch(`${tn.base}/mempool/view`)).text()) as string[];

/** The recipient's balance (at the tip, or at `tip`), undefined on 404 (no notes there). */
async function balance(tip?: Uint8Array): Promise<{ balance: bigint; notes: number } | undefined> {
  const q = tip ? `?tip=${bytesToHex(tip)}` : '';
  const res = await fetch(`${tn.base}/wallet/${RECIPIENT}/balance${q}`);
  if (res.status === 404) return undefined;
  assert.equal(res.status, 200);
  const b = parseJson(await res.text()) as { balance: bigint | number; notes: Record<string, unknown> };
  return { balance: BigInt(b.balance), notes: Object.keys(b.notes).length };
}

/** Makes and applies a block on `parent`, one slot after `slot`; returns its id and slot. */
async function apply(parent: { id: Uint8Array; slot: bigint }, txs: SignedMantleTx[] = []) {
  const block = blockOn(chain(), parent.id, parent.slot + 1n, txs);
  const p = await chain().submit(block);
  return { id: p.id, slot: block.header.slot };
}

/** A payment of `value` to the recipient from the next unused genesis note, on the tip's state. */
function pay(value: bigint): SignedMantleTx {
  const input = notes.shift()!;
  return transfer(chain().tip().state, [input], [{ value, pk: recipient.publicKey }]).tx;
}

describe('a reorg on a real chain', () => {
  test('transactions of the abandoned branch are pending again; those on both branches are not; the wallet follows', async () => {
    const parent = await apply({ id: chain().tip().id, slot: chain().tip().slot });
    const moved = pay(1000n); // only on the abandoned branch
    const both = pay(10n); // on both branches
    for (const tx of [moved, both]) {
      const r = await post('/mempool/add/tx', signedMantleTx.toJson(tx));
      assert.equal(r.status, 200, r.text);
      assert.equal(await status(tx), 'Pending');
    }
    assert.equal(await balance(), undefined);

    // 1. A1 includes both: they leave the pool, the recipient holds them.
    const a1 = await apply(parent, [moved, both]);
    assert.ok(tipIs(a1));
    assert.equal(await status(moved), 'Unknown');
    assert.equal(await status(both), 'Unknown');
    assert.deepEqual(await view(), []);
    assert.deepEqual(await balance(), { balance: 1010n, notes: 2 });

    // A competing branch from the same parent: B1 (a side branch of the same length) includes `both`.
    const b1 = await apply({ ...parent, slot: a1.slot }, [both]);
    assert.ok(tipIs(a1), 'a branch of the same length does not take over');
    assert.equal(await status(moved), 'Unknown', 'a side-branch block re-inserts nothing');

    // 2. B2 makes the B branch longer: the tip switches, `moved` is pending again, `both` is not.
    const b2 = await apply(b1);
    assert.ok(tipIs(b2));
    await waitUntil(async () => (await status(moved)) === 'Pending', 5000, 'the re-insertion');
    assert.deepEqual(await view(), [hashOf(moved)]);
    assert.equal(await status(both), 'Unknown', 'included on the new branch too: not re-inserted');
    assert.deepEqual(await balance(), { balance: 10n, notes: 1 }, 'the tip holds `both` only');
    assert.deepEqual(await balance(a1.id), { balance: 1010n, notes: 2 }, 'the state at A1 is kept');
    const ctx = { config: chain().config, proofs: PROOFS_ALREADY_VERIFIED };
    const selection = selectTransactions(
      chain().stateOf(b2.id)!,
      ctx,
      b2.slot + 1n,
      tn.node.mempool.candidates(),
    );
    assert.deepEqual(selection.txs.map(hashOf), [hashOf(moved)], 'a block on B2 takes it');
    assert.deepEqual(selection.invalid, []);

    // 3. B3 includes it: it leaves the pool again, the recipient holds it once.
    const b3 = await apply(b2, selection.txs);
    assert.ok(tipIs(b3));
    assert.equal(await status(moved), 'Unknown');
    assert.equal(await status(both), 'Unknown');
    assert.deepEqual(await view(), []);
    assert.deepEqual(await balance(), { balance: 1010n, notes: 2 });
    const loc = chain().transactionLocation(txHash(moved.mantle_tx));
    assert.equal(bytesToHex(loc!.block), bytesToHex(b3.id));
  });

  test(`a reorg k = ${K} blocks deep: the abandoned blocks leave the tree, their transactions are pending again`, async () => {
    const start = await balance();
    const fork = { id: chain().tip().id, slot: chain().tip().slot };
    const moved = pay(77n);
    assert.equal((await post('/mempool/add/tx', signedMantleTx.toJson(moved))).status, 200);
    // The A branch: K blocks on the fork point, which is then the LIB.
    const a1 = await apply(fork, [moved]);
    let a = a1;
    for (let i = 1; i < K; i++) a = await apply(a);
    assert.ok(tipIs(a));
    assert.equal(bytesToHex(chain().lib().id), bytesToHex(fork.id));
    assert.equal(await status(moved), 'Unknown');
    assert.equal((await balance())!.balance, start!.balance + 77n);
    // The B branch: K + 1 blocks on the fork point; the last one takes over and moves the LIB onto the
    // B branch, so the whole A branch is a dead fork.
    let b = { ...fork, slot: a.slot };
    for (let i = 0; i <= K; i++) b = await apply(b);
    assert.ok(tipIs(b));
    assert.equal(chain().has(a1.id), false, 'the A branch left the tree');
    await waitUntil(async () => (await status(moved)) === 'Pending', 5000, 'the re-insertion');
    assert.deepEqual(await view(), [hashOf(moved)]);
    assert.deepEqual(await balance(), start);
  });
});
