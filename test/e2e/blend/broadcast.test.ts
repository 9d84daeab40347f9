/**
 * The `/blend/*` endpoints of a node whose epoch has no Blend membership (the devnet configuration on
 * a genesis that declares none), so it runs in Broadcast mode (F `services/blend/src/modes/
 * broadcast.rs`): `/blend/info` names the node's Blend peer id with no core info, nothing waits for a
 * PoW solution, and a dispersed transaction goes straight to the mempool and is included; a broken
 * transaction is the same plain-text 422 as `/mempool/add/tx` and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import type { Json } from '../../../src/codec/json.ts';
import { mantleTx, txHash } from '../../../src/mantle/tx.ts';
import { devnetConfig, fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

const KEYS = fundedDevnetKeys().map((k) => k.publicKey);
let tn: TestNode;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(`${tn.base}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: r.status, text: await r.text() };
}

/** A signed transfer of `value` from key `a` to key `b`, funded by the node's wallet. */
async function signedTransfer(a: string, b: string, value: number): Promise<{ tx: Json; hash: string }> {
  const funded = await call('POST', '/wallet/fund', {
    tx_builder: {
      mantle_tx: { ops: [] },
      ledger_inputs: [],
      pending_transfer: { inputs: [], outputs: [{ value, pk: b }] },
      channel_multi_sig_proofs: {},
    },
    change_public_key: a,
    funding_public_keys: [a],
    max_tx_fee: 1_000_000_000,
    priority_fee_percent: 100,
  });
  assert.equal(funded.status, 200, funded.text);
  const j = JSON.parse(funded.text) as { funded_tx: Json; transfer_proof: Json };
  return {
    tx: { mantle_tx: j.funded_tx, ops_proofs: [j.transfer_proof] },
    hash: bytesToHex(txHash(mantleTx.fromJson(j.funded_tx))),
  };
}

describe('Blend endpoints in Broadcast mode', () => {
  before(async () => {
    tn = await startFastNode();
    await waitUntil(async () => tn.node.phase === 'Following', 20_000, 'the node to be Online');
  });
  after(async () => tn?.stop());

  test("/blend/info: the peer id of the node's Blend signing key, no core info", async () => {
    const c = devnetConfig();
    const seed = hexToBytes(c.kms.backend.keys[c.blend.non_ephemeral_signing_key_id!]!.secret);
    const expected = peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', seed)).toString();
    const r = await call('GET', '/blend/info');
    assert.equal(r.status, 200);
    assert.equal(r.text, `{"node_id":"${expected}","core_info":null}`);
  });

  test('/blend/transactions/pending: nothing waits for a PoW solution', async () => {
    const r = await call('GET', '/blend/transactions/pending');
    assert.deepEqual([r.status, r.text], [200, '[]']);
  });

  test('a dispersed transaction answers its hash, goes to the mempool and is included', async () => {
    const { tx, hash } = await signedTransfer(KEYS[1]!, KEYS[2]!, 17);
    const r = await call('POST', '/blend/transactions/disperse', tx);
    assert.deepEqual([r.status, r.text], [200, `"${hash}"`]);
    await waitUntil(
      async () => tn.node.chain.transactionLocation(hexToBytes(hash)) !== undefined,
      30_000,
      `transaction ${hash} to be included`,
      100,
    );
  });

  test('a broken transaction is a plain-text 422, as /mempool/add/tx, and is not pending', async () => {
    const { tx, hash } = await signedTransfer(KEYS[3]!, KEYS[0]!, 19);
    const proof = (tx as { ops_proofs: { ZkSig: { pi_a: string } }[] }).ops_proofs[0]!;
    const pi_a = proof.ZkSig.pi_a;
    proof.ZkSig.pi_a = (pi_a[0] === '0' ? '1' : '0') + pi_a.slice(1);
    const r = await call('POST', '/blend/transactions/disperse', tx);
    assert.equal(r.status, 422, r.text);
    assert.ok(!r.text.startsWith('{'), `a plain-text body: ${r.text}`);
    const s = await call('POST', '/mantle/status', [hash]);
    assert.equal(s.text, '["Unknown"]');
  });

  test('a body that is not a transaction is a 422', async () => {
    const r = await call('POST', '/blend/transactions/disperse', { mantle_tx: { ops: 1 }, ops_proofs: [] });
    assert.equal(r.status, 422, r.text);
  });
});
