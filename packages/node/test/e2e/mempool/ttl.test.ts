/**
 * TTL expiry on a running node (a fast in-process node, a deployment with `mempool.tx_ttl: 1`). A pending
 * transaction leaves the pool by age only when a block changes the tip, and a single leading node
 * includes every applicable transaction in its next block; so the scenario fills a block: three
 * transactions of 0.9 MiB are submitted while production is paused, one of them cannot fit in the
 * next block (2 MiB), and the TTL evicts it when that block arrives (it is then older than 1 s).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { stringifyJson } from '@logos-ts/shared/json';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { parseDeployment } from '../../../src/ledger/deployment.ts';
import { type Op, Opcode } from '../../../src/mantle/ops.ts';
import { type SignedMantleTx, signedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { feeOp, genesisNotes, mandatoryFee, placeholderProof, signTx } from '../../mocks/ledger.ts';
import { sleep, startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

let tn: TestNode;
before(async () => {
  const yaml = fastDeploymentYaml(100, 2).replace('tx_ttl: 86400', 'tx_ttl: 1');
  tn = await startFastNode({ deployment: parseDeployment(yaml, 'fast-ttl') });
});
after(() => tn.stop());

const INSCRIPTION = 900 * 1024;

/** A transaction paying its fee from the `i`-th genesis note and inscribing 0.9 MiB on a new channel. */
function bigTx(i: number): SignedMantleTx {
  const state = tn.node.chain.tip().state;
  const note = genesisNotes(tn.node.chain.genesis)[i]!;
  const signer = new Ed25519Signer(new Uint8Array(32).fill(20 + i));
  const inscribe: Op = {
    opcode: Opcode.ChannelInscribe,
    payload: {
      channel_id: new Uint8Array(32).fill(100 + i),
      inscription: new Uint8Array(INSCRIPTION).fill(i),
      parent: new Uint8Array(32),
      signer: signer.publicKey,
    },
  };
  const draft = [feeOp(note, 1n).op, inscribe];
  const fee = mandatoryFee(state, { mantle_tx: { ops: draft }, ops_proofs: draft.map(placeholderProof) });
  return signTx([feeOp(note, fee).op, inscribe], [[note.sk]], (hash, _msg, op) =>
    op.opcode === Opcode.ChannelInscribe ? { type: 'Ed25519Sig', signature: signer.sign(hash) } : undefined,
  );
}

test('a pending transaction older than the TTL is evicted when the next block arrives', async () => {
  const chain = tn.node.chain;
  tn.node.leader.pause();
  const txs = [bigTx(0), bigTx(1), bigTx(2)];
  for (const tx of txs) {
    const r = await fetch(`${tn.base}/mempool/add/tx`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stringifyJson(signedMantleTx.toJson(tx)),
    });
    assert.equal(r.status, 200, await r.text());
  }
  assert.equal(tn.node.mempool.metrics().pending_items, 3);
  await sleep(1200); // older than the TTL; no block meanwhile, so nothing expired yet
  assert.equal(tn.node.mempool.metrics().pending_items, 3);
  const height = chain.tip().height;
  tn.node.leader.resume();
  await waitUntil(() => chain.tip().height > height, 20_000, 'a block');
  const included = txs.filter((t) => chain.transactionLocation(txHash(t.mantle_tx)) !== undefined);
  assert.equal(included.length, 2, 'two of the three fit in the block');
  assert.equal(tn.node.mempool.metrics().pending_items, 0, 'the third expired');
  const left = txs.find((t) => !included.includes(t))!;
  const st = await fetch(`${tn.base}/mantle/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([bytesToHex(txHash(left.mantle_tx))]),
  });
  assert.equal(await st.text(), '["Unknown"]');
});
