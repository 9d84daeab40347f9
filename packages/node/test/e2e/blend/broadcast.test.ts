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
import type { Json } from '@logos-ts/shared/json';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { parseDeployment } from '../../../src/ledger/deployment.ts';
import { mantleTx, txHash } from '../../../src/mantle/tx.ts';
import { devnetConfig, fundedDevnetKeys } from '../../../src/node/devnet.ts';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
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

describe('one declared Blend core node is below the minimum network size: Broadcast', () => {
  before(async () => {
    const c = devnetConfig();
    const provider = bytesToHex(
      ed25519PublicKey(hexToBytes(c.kms.backend.keys[c.blend.non_ephemeral_signing_key_id!]!.secret)),
    );
    const yaml = fastDeploymentYaml(100, 2).replace(
      /^genesis:\n/m,
      `genesis:\n  declarations:\n    - { locators: ['/ip4/127.0.0.1/udp/4400/quic-v1'], provider_id: '${provider}', zk_id: '${c.blend.core_zk_secret_key_kms_id}', note_index: 0 }\n`,
    );
    const deployment = parseDeployment(yaml, 'fast-one-core');
    assert.equal(deployment.genesis.declarations.length, 1);
    tn = await startFastNode({ deployment });
    await waitUntil(async () => tn.node.phase === 'Following', 20_000, 'the node to be Online');
  });
  after(async () => tn?.stop());

  test('no core info, and a dispersed transaction is pending in the mempool at once', async () => {
    const r = await call('GET', '/blend/info');
    assert.match(r.text, /^\{"node_id":"12D3KooW[1-9A-HJ-NP-Za-km-z]+","core_info":null\}$/);
    const { tx, hash } = await signedTransfer(KEYS[1]!, KEYS[2]!, 23);
    const d = await call('POST', '/blend/transactions/disperse', tx);
    assert.deepEqual([d.status, d.text], [200, `"${hash}"`]);
    const s = await call('POST', '/mantle/status', [hash]);
    assert.ok(['["Pending"]', '["Unknown"]'].includes(s.text));
    assert.deepEqual((await call('GET', '/blend/transactions/pending')).text, '[]');
    await waitUntil(
      async () => tn.node.chain.transactionLocation(hexToBytes(hash)) !== undefined,
      30_000,
      `transaction ${hash} to be included`,
      100,
    );
  });
});
