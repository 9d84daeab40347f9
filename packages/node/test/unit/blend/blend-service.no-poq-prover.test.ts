/**
 * A node whose circuits folder cannot prove the proof of quota (the reference's native witness generator
 * only): Blend still serves an epoch without mixing (Broadcast: a dispersed transaction goes to the
 * mempool, which needs no proof), and never asks the prover for a proof of quota.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ProofSystem, ProvingUnavailable } from '../../../src/ledger/proof-system.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { blendTestChain, startTestBlend } from '../../mocks/blend-chain.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { genesisNotes, KEYS, transfer } from '../../mocks/ledger.ts';
import { FakeMempool } from '../../mocks/mempool.ts';
import { waitUntil } from '../../utils/api-node.ts';

test('without a proof-of-quota prover, a Broadcast epoch still disperses and no PoQ is asked for', async () => {
  const chain = blendTestChain('Online');
  const mempool = new FakeMempool();
  let poqAsked = 0;
  const prover: ProofSystem = {
    ...INSECURE_TEST_PROOFS,
    provePoq: () => {
      poqAsked++;
      return Promise.reject(new ProvingUnavailable('poq', 'no witness generator'));
    },
    cannotProve: (c) => (c === 'poq' ? 'no witness generator' : undefined),
  };
  const stop = new AbortController();
  const blend = await startTestBlend({ chain, mempool, prover, signal: stop.signal });
  try {
    await waitUntil(() => blend.mode() === 'broadcast', 5_000, 'the first epoch known');
    const tx = transfer(
      chain.ledger.state,
      [genesisNotes(chain.ledger.genesis)[0]!],
      [{ value: 5n, pk: KEYS[1]!.publicKey }],
    ).tx;
    await blend.disperseTransaction(tx);
    assert.deepEqual(
      mempool.added.map((a) => a.tx),
      [tx],
    );
    await new Promise((r) => setTimeout(r, 2 * FAST.slot_duration_ms));
    assert.equal(poqAsked, 0);
  } finally {
    stop.abort();
    await blend.close();
  }
});
