/**
 * A ledger driver shaped like the reference's cryptarchia ledger tests (ledger/src/cryptarchia/mod.rs):
 * a deployment with their consensus parameters (k = 1, f = 1/10, 3/3/4 phases: 100-slot epochs),
 * blocks applied on any parent, and leader proofs built like their `generate_proof`: the aged root is
 * the epoch's UTXO root only if the leader's note is in it (else 0), likewise the latest root, so a
 * note outside either set yields a proof that does not verify.
 */
import { readFileSync } from 'node:fs';
import { type Block, bodyRoot } from '../../src/block/block.ts';
import { encodeHeader, type Header, type SignedHeader } from '../../src/block/header.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { type Fr, frToBytes } from '../../src/crypto/field.ts';
import { applyBlock, epochStateAt, polPublicInputs } from '../../src/ledger/apply.ts';
import { type Deployment, parseDeployment } from '../../src/ledger/deployment.ts';
import type { LedgerContext } from '../../src/ledger/draft.ts';
import { buildGenesis, type Genesis } from '../../src/ledger/genesis.ts';
import type { PolPublicInputs } from '../../src/ledger/proof-system.ts';
import type { LedgerState } from '../../src/ledger/state.ts';
import type { SignedMantleTx } from '../../src/mantle/tx.ts';
import { txHash } from '../../src/mantle/tx.ts';
import { INSECURE_TEST_CHECKS, insecureTestPolProof } from '../../src/zk/insecure-test-proofs.ts';
import { TEST_LEADER } from '../mocks/ledger.ts';

const DEVNET_YAML = readFileSync(new URL('../../deployments/devnet.yaml', import.meta.url), 'utf8');

/** A devnet variant with the given consensus parameters and genesis notes (value, pk hex). */
export function deploymentWith(opts: {
  k: number;
  f: string;
  notes: readonly { value: bigint; pk: Fr }[];
  learningRate?: string;
}): Deployment {
  const head = DEVNET_YAML.slice(0, DEVNET_YAML.indexOf('  notes:'));
  const yaml =
    head
      .replace('security_param: 10', `security_param: ${opts.k}`)
      .replace(/active_slot_coeff: \S+/, `active_slot_coeff: ${opts.f}`)
      .replace(
        'stake_inference_learning_rate: 1/1',
        `stake_inference_learning_rate: ${opts.learningRate ?? '1/1'}`,
      ) +
    '  notes:\n' +
    opts.notes.map((n) => `    - { value: ${n.value}, pk: ${bytesToHex(frToBytes(n.pk))} }\n`).join('');
  return parseDeployment(yaml, 'spec');
}

export interface Blk {
  readonly id: Uint8Array;
  readonly state: LedgerState;
  readonly block: Block;
}

/** Blocks on any parent: states are kept by block, like the reference's `Ledger`. */
export class SpecLedger {
  readonly ctx: LedgerContext;
  readonly genesis: Genesis;
  readonly root: Blk;

  constructor(d: Deployment) {
    this.ctx = { config: d.ledger, proofs: INSECURE_TEST_CHECKS };
    this.genesis = buildGenesis(d, this.ctx, 1_700_000_000);
    this.root = { id: this.genesis.id, state: this.genesis.state, block: this.genesis.block };
  }

  /** The public inputs a leader of `note` would prove against, as the reference's test proofs do. */
  proofInputs(parent: Blk, slot: bigint, note: Fr, header: Header): PolPublicInputs {
    const es = epochStateAt(parent.state, this.ctx, slot);
    const real = polPublicInputs(es, parent.state.utxos.root(), header);
    return {
      ...real,
      aged_root: es.notes.has(note) ? real.aged_root : 0n,
      latest_root: parent.state.notes.has(note) ? real.latest_root : 0n,
    };
  }

  /** A block on `parent` at `slot` led by `note`; `tweak` may change the proven inputs. */
  block(
    parent: Blk,
    slot: bigint,
    note: Fr,
    opts: {
      txs?: SignedMantleTx[];
      uncles?: SignedHeader[];
      entropy?: Fr;
      tweak?: (i: PolPublicInputs) => PolPublicInputs;
    } = {},
  ): Block {
    const txs = opts.txs ?? [];
    const uncles = opts.uncles ?? [];
    const header: Header = {
      parent_block: parent.id,
      slot,
      body_root: bodyRoot(
        uncles,
        txs.map((t) => txHash(t.mantle_tx)),
      ),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: opts.entropy ?? slot * 7919n + 1n,
        leader_key: TEST_LEADER.publicKey,
        voucher_cm: 7n,
      },
    };
    const inputs = this.proofInputs(parent, slot, note, header);
    header.proof_of_leadership.proof = insecureTestPolProof(opts.tweak ? opts.tweak(inputs) : inputs);
    return {
      header,
      signature: TEST_LEADER.sign(encodeHeader(header)),
      uncle_headers: uncles,
      transactions: txs,
    };
  }

  /** Applies a block built by `block` (throws the ledger's error when refused). */
  apply(parent: Blk, slot: bigint, note: Fr, opts: Parameters<SpecLedger['block']>[3] = {}): Blk {
    const block = this.block(parent, slot, note, opts);
    const r = applyBlock(parent.state, block, this.ctx);
    return { id: r.id, state: r.state, block };
  }
}
