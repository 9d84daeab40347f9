/**
 * The node's identity from `network.backend.swarm.node_key`: the key is the Ed25519 secret (seed), as
 * the reference reads it; the operator guide's NetworkSwarm pair (secret → public key) pins it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { nodeIdentity } from '../../../src/network/libp2p-node.ts';

test('node_key is the 32-byte Ed25519 secret: the guide pair and a 12D3KooW peer id', async () => {
  const key = await nodeIdentity(
    hexToBytes('717730f45552486b7fd730b0e7493b2b36211f919e61cf99014c3c33735c7361'),
  );
  assert.equal(
    bytesToHex(key.publicKey.raw),
    'd52cf8d990a9d5d50f08fcddf033c19b7076f8947368c617228984c2daea70fc',
  );
  const id = peerIdFromPrivateKey(key).toString();
  assert.match(id, /^12D3KooW/);
  // the same key gives the same peer id at every start
  assert.equal(
    peerIdFromPrivateKey(
      await nodeIdentity(hexToBytes('717730f45552486b7fd730b0e7493b2b36211f919e61cf99014c3c33735c7361')),
    ).toString(),
    id,
  );
});

test('without node_key the identity is random', async () => {
  const a = peerIdFromPrivateKey(await nodeIdentity(null)).toString();
  const b = peerIdFromPrivateKey(await nodeIdentity(null)).toString();
  assert.notEqual(a, b);
});
