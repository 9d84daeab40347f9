/**
 * The Blend service before consensus is Online: what this node sends through Blend waits for it
 * instead of leaving the node in the clear (F: requests wait in the queue of a Blend service that
 * starts only once the chain is Online, `services/blend/src/lib.rs` `run`). Once the first epoch's
 * mode is known (here Broadcast: no Blend membership), the waiting transaction goes to the mempool and
 * the waiting proposal to gossip.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LeadershipWin } from '../../../src/blend/index.ts';
import type { Block } from '../../../src/block/block.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { txHash } from '../../../src/mantle/tx.ts';
import { blendTestChain, startTestBlend } from '../../mocks/blend-chain.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { genesisNotes, KEYS, transfer } from '../../mocks/ledger.ts';
import { FakeMempool } from '../../mocks/mempool.ts';
import { waitUntil } from '../../utils/api-node.ts';

test('Blend requests made before consensus is Online wait for Blend, then go as the first epoch sends them', async () => {
  const chain = blendTestChain('Bootstrapping');
  const mempool = new FakeMempool();
  const added = mempool.added;
  const published: Block[] = [];
  const stop = new AbortController();
  const blend = await startTestBlend({
    chain,
    mempool,
    gossip: { publishBlock: (b) => void published.push(b), relayProposal: () => {} },
    signal: stop.signal,
  });
  try {
    const tx = transfer(
      chain.ledger.state,
      [genesisNotes(chain.ledger.genesis)[0]!],
      [{ value: 5n, pk: KEYS[1]!.publicKey }],
    ).tx;
    const hash = await blend.disperseTransaction(tx);
    assert.equal(bytesToHex(hash), bytesToHex(txHash(tx.mantle_tx)));
    const block = chain.ledger.block([], 1n);
    blend.publishProposal(block, {} as LeadershipWin);
    await new Promise((r) => setTimeout(r, 3 * FAST.slot_duration_ms));
    assert.deepEqual([added.length, published.length], [0, 0], 'nothing leaves this node before Online');
    assert.deepEqual(blend.pendingTransactions().map(bytesToHex), [bytesToHex(hash)]);

    chain.goOnline();
    await waitUntil(() => added.length === 1 && published.length === 1, 5_000, 'sent once Blend is ready');
    assert.equal(blend.mode(), 'broadcast');
    assert.deepEqual(added[0]!.tx, tx);
    assert.equal(published[0], block);
    assert.deepEqual(blend.pendingTransactions(), []);
  } finally {
    stop.abort();
    await blend.close();
  }
});
