/**
 * Feeds a node's chain service valid blocks made here (insecure test proofs of leadership), some with
 * transfers between the funded devnet notes: a real chain with transactions, without a mempool.
 * The node must run a test deployment whose genesis is far enough in the past for the slots used,
 * and no leader of its own (or its blocks compete with these).
 */
import { type Block, bodyRoot } from '../../src/block/block.ts';
import { encodeHeader, type Header } from '../../src/block/header.ts';
import type { ChainService } from '../../src/chain/chain-service.ts';
import { epochStateAt, polPublicInputs } from '../../src/ledger/apply.ts';
import { PROOFS_ALREADY_VERIFIED } from '../../src/ledger/proof-system.ts';
import { type SignedMantleTx, txHash } from '../../src/mantle/tx.ts';
import type { UserConfig } from '../../src/node/config.ts';
import { devnetConfig } from '../../src/node/devnet.ts';
import { insecureTestPolProof } from '../../src/zk/insecure-test-proofs.ts';
import { genesisNotes, type Owned, TEST_LEADER, transfer } from './ledger.ts';

export interface FeedOptions {
  /** Every `txEvery`-th slot's block carries `txPerBlock` transfers (default 4 and 4). */
  readonly txEvery?: number;
  readonly txPerBlock?: number;
}

/** Submits `count` blocks, one per slot after the tip's; returns the transactions it included. */
export async function feedBlocks(
  chain: ChainService,
  count: number,
  opts: FeedOptions = {},
): Promise<SignedMantleTx[]> {
  const txEvery = BigInt(opts.txEvery ?? 4);
  const txPerBlock = opts.txPerBlock ?? 4;
  // Spendable notes: the funded devnet notes, then the change of each transfer (first in, first out).
  const notes: Owned[] = genesisNotes(chain.genesis);
  const included: SignedMantleTx[] = [];
  for (let i = 0; i < count; i++) {
    const tip = chain.tip();
    const state = tip.state;
    const slot = tip.slot + 1n;
    const txs: SignedMantleTx[] = [];
    if (slot % txEvery === 0n) {
      for (let t = 0; t < txPerBlock && notes.length > 0; t++) {
        const input = notes.shift()!;
        const { tx, outputs } = transfer(state, [input], [{ value: 1000n, pk: input.note.pk }], {
          tip: 5000n,
        });
        txs.push(tx);
        notes.push(outputs[outputs.length - 1]!); // the change
      }
    }
    const block = blockOn(chain, tip.id, slot, txs);
    await chain.submit(block);
    included.push(...txs);
  }
  return included;
}

/**
 * A valid block on `parent` (any block of the chain's tree, not only the tip) at `slot` with these
 * transactions, led by the test leader with an insecure test proof of leadership.
 */
export function blockOn(
  chain: ChainService,
  parent: Uint8Array,
  slot: bigint,
  txs: readonly SignedMantleTx[],
): Block {
  const state = chain.stateOf(parent);
  if (!state) throw new Error('blockOn: the parent has no ledger state in the chain');
  const header: Header = {
    parent_block: parent,
    slot,
    body_root: bodyRoot(
      [],
      txs.map((t) => txHash(t.mantle_tx)),
    ),
    proof_of_leadership: {
      proof: new Uint8Array(128),
      entropy_contribution: slot,
      leader_key: TEST_LEADER.publicKey,
      voucher_cm: slot,
    },
  };
  const es = epochStateAt(state, { config: chain.config, proofs: PROOFS_ALREADY_VERIFIED }, slot);
  header.proof_of_leadership.proof = insecureTestPolProof(polPublicInputs(es, state.utxos.root(), header));
  return {
    header,
    signature: TEST_LEADER.sign(encodeHeader(header)),
    uncle_headers: [],
    transactions: [...txs],
  };
}

/** The devnet configuration without wallet keys (the node follows, it does not lead or claim). */
export function followerConfig(): UserConfig {
  const cfg = devnetConfig();
  return {
    ...cfg,
    kms: { backend: { keys: {} } },
    // No keys: no Blend identity either.
    blend: { ...cfg.blend, non_ephemeral_signing_key_id: null, core_zk_secret_key_kms_id: null },
    wallet: { ...cfg.wallet, known_keys: {}, voucher_master_key_id: null },
    // No wallet keys: no PoW auto-claim target either.
    pow: { ...cfg.pow, auto_claim: { ...cfg.pow.auto_claim, targets: [] } },
  };
}
