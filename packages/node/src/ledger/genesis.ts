/**
 * Genesis: one transaction whose first op mints the initial notes (a transfer without inputs), whose
 * second op inscribes the chain parameters on channel 0 (chain id, genesis time, epoch nonce), and
 * whose remaining ops may only declare SDP services. Proofs are dummies and are not verified; the
 * transaction pays no gas. The genesis block has slot 0, a zero parent, a zero proof of leadership
 * and a zero signature. A deployment may instead give the genesis block whole (the reference's
 * public testnet, src/ledger/genesis-block.ts); its state is then built from that block.
 */
import { type Block, BlockError, bodyRoot, checkGenesisBlock } from '../block/block.ts';
import { type Header, headerId } from '../block/header.ts';
import { txMerkleRoot } from '../block/merkle.ts';
import { bytesEqual } from '../codec/hex.ts';
import {
  type CryptarchiaParameter,
  decodeCryptarchiaParameter,
  encodeCryptarchiaParameter,
} from '../mantle/genesis-parameter.ts';
import { noteId } from '../mantle/note.ts';
import { type Op, Opcode, opId } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import { type SignedMantleTx, txHash } from '../mantle/tx.ts';
import { bigintKeys, PMap, stringKeys } from '../util/pmap.ts';
import { executeTx } from './apply.ts';
import { blendBaseDifficulty, EMPTY_TX_DENSITY } from './blend-difficulty.ts';
import { NO_OCCUPIED_SLOTS } from './block-density.ts';
import type { Deployment } from './deployment-types.ts';
import { Draft, type LedgerContext } from './draft.ts';
import { lotteryFor } from './epoch.ts';
import { LedgerError } from './errors.ts';
import { emptyFeeWindow } from './gas.ts';
import { GENESIS_EXECUTION_GAS_PRICE, GENESIS_STORAGE_GAS_PRICE, type LedgerConfig } from './parameters.ts';
import { initialPowTarget } from './pow-claims.ts';
import { activeDeclarations } from './sdp.ts';
import { epochPoqInputs, newBlendRewards } from './sdp-rewards.ts';
import type { LedgerState, NoteRecord } from './state.ts';
import { UtxoTree } from './trees/utxo-tree.ts';
import { VoucherTree } from './trees/voucher-tree.ts';

const ZERO32 = new Uint8Array(32);
const ZERO_SIG = new Uint8Array(64);
const ZERO_ZK = () => ({ pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) });

/** The genesis transaction of a deployment, with the genesis time fixed. */
export function genesisTransaction(d: Deployment, genesisTime: number): SignedMantleTx {
  const g = d.genesis;
  const transfer: Op = {
    opcode: Opcode.Transfer,
    payload: { inputs: [], outputs: g.notes.map((n) => ({ ...n })) },
  };
  const param: CryptarchiaParameter = {
    chain_id: g.chain_id,
    genesis_time: genesisTime,
    epoch_nonce: g.epoch_nonce,
  };
  const inscribe: Op = {
    opcode: Opcode.ChannelInscribe,
    payload: {
      channel_id: ZERO32,
      inscription: encodeCryptarchiaParameter(param),
      parent: ZERO32,
      signer: ZERO32,
    },
  };
  const transferId = opId(transfer);
  const declares: Op[] = g.declarations.map((decl) => ({
    opcode: Opcode.SDPDeclare,
    payload: {
      service_type: 'BN',
      locators: [...decl.locators],
      provider_id: decl.provider_id,
      zk_id: decl.zk_id,
      service_note_id: noteId(transferId, decl.note_index, g.notes[decl.note_index]!),
    },
  }));
  const ops = [transfer, inscribe, ...declares];
  const proofs: OpProof[] = ops.map((o) =>
    o.opcode === Opcode.Transfer
      ? { type: 'ZkSig', signature: ZERO_ZK() }
      : o.opcode === Opcode.ChannelInscribe
        ? { type: 'Ed25519Sig', signature: ZERO_SIG }
        : { type: 'ZkAndEd25519Sigs', zk_sig: ZERO_ZK(), ed25519_sig: ZERO_SIG },
  );
  return { mantle_tx: { ops }, ops_proofs: proofs };
}

export function genesisBlock(tx: SignedMantleTx): Block {
  const header: Header = {
    parent_block: ZERO32,
    slot: 0n,
    body_root: bodyRoot([], [txHash(tx.mantle_tx)]),
    proof_of_leadership: {
      proof: new Uint8Array(128),
      entropy_contribution: 0n,
      leader_key: ZERO32,
      voucher_cm: 0n,
    },
  };
  return { header, signature: ZERO_SIG, uncle_headers: [], transactions: [tx] };
}

/** Reads the chain parameters back from a genesis transaction, checking its shape. */
export function genesisParameter(tx: SignedMantleTx): CryptarchiaParameter {
  const ops = tx.mantle_tx.ops;
  const [first, second] = ops;
  if (!first || first.opcode !== Opcode.Transfer || first.payload.inputs.length !== 0) {
    throw new LedgerError('InvalidGenesis', 'the first genesis op must be a transfer without inputs');
  }
  if (
    !second ||
    second.opcode !== Opcode.ChannelInscribe ||
    !bytesEqual(second.payload.channel_id, ZERO32) ||
    !bytesEqual(second.payload.parent, ZERO32) ||
    !bytesEqual(second.payload.signer, ZERO32)
  ) {
    throw new LedgerError(
      'InvalidGenesis',
      'the second genesis op must inscribe the chain parameters on channel 0',
    );
  }
  if (ops.slice(2).some((o) => o.opcode !== Opcode.SDPDeclare)) {
    throw new LedgerError('InvalidGenesis', 'genesis ops after the inscription may only be SDP declarations');
  }
  try {
    return decodeCryptarchiaParameter(second.payload.inscription);
  } catch (e) {
    throw new LedgerError(
      'InvalidGenesis',
      `the genesis inscription is not a chain parameter: ${(e as Error).message}`,
    );
  }
}

function emptyState(config: LedgerConfig, nonce: bigint): LedgerState {
  const utxos = UtxoTree.empty();
  const notes = PMap.empty<bigint, NoteRecord>(bigintKeys);
  const lottery = lotteryFor(config.consensus, 1n);
  // Epochs 0 and 1 use the base Blend difficulty (F: ledger/src/cryptarchia/mod.rs genesis).
  const blend_pow_difficulty = blendBaseDifficulty(config.blend_pow);
  const epoch0 = { epoch: 0, nonce, utxos, notes, total_stake: 1n, lottery, blend_pow_difficulty };
  const vouchers = VoucherTree.empty();
  return {
    block_number: 0n,
    slot: 0n,
    nonce,
    prev_epoch_nonce: nonce,
    epoch_state: epoch0,
    next_epoch_state: { ...epoch0, epoch: 1 },
    occupied_slots: NO_OCCUPIED_SLOTS,
    notes,
    utxos,
    gas: {
      fee_window: emptyFeeWindow(),
      average_execution_gas: 0n,
      execution_base_gas_price: GENESIS_EXECUTION_GAS_PRICE,
      storage_gas_ema: 0n,
      storage_gas_price: GENESIS_STORAGE_GAS_PRICE,
      storage_gas_consumed_in_epoch: 0n,
    },
    channels: PMap.empty(stringKeys),
    sdp: {
      declarations: PMap.empty(stringKeys),
      snapshot: PMap.empty(stringKeys),
      next_snapshot: PMap.empty(stringKeys),
      rewards: newBlendRewards(0, nonce, epochPoqInputs(epoch0)),
    },
    leader: {
      vouchers,
      // Until the first epoch change the snapshot root is RewardsRoot::default(), 0, not the empty
      // tree's root (F: ledger/src/mantle/leader.rs LeaderState::new).
      snapshot: { root: 0n, count: 0 },
      nullifiers: PMap.empty(bigintKeys),
      pending_rewards: 0n,
      claimable_rewards: 0n,
    },
    pow: {
      pool: config.pow.reward_pool_genesis,
      epoch_reward: config.pow.epoch_reward_genesis,
      target: initialPowTarget(config.pow),
      refill: 0n,
      recent_blocks: [],
      nullifiers: [],
      tx_density: EMPTY_TX_DENSITY,
    },
  };
}

export interface Genesis {
  readonly block: Block;
  readonly id: Uint8Array;
  readonly state: LedgerState;
  readonly parameter: CryptarchiaParameter;
}

/**
 * The checks a genesis block passes when read (F: core/src/block/genesis.rs): slot 0, no uncles, one
 * transaction, and a header root that matches it.
 * inferred: the root may also be the transaction root alone, the header's `block_root` of F before
 * blocks carried uncle headers (`merkle::calculate_block_root`, replaced by `body_root` in F
 * 977dd3a8a): the reference's testnet genesis is written so, and F would refuse it (docs/design/fidelity.md).
 */
export function checkGenesis(block: Block): void {
  try {
    checkGenesisBlock(block);
  } catch (e) {
    const legacyRoot = () => txMerkleRoot(block.transactions.map((t) => txHash(t.mantle_tx)));
    if (
      e instanceof BlockError &&
      e.code === 'BLOCK_BAD_BODY_ROOT' &&
      bytesEqual(block.header.body_root, legacyRoot())
    )
      return;
    throw new LedgerError('InvalidGenesis', e instanceof Error ? e.message : String(e));
  }
}

/** The state after the genesis block. Total stake = Σ genesis note values except the faucet's (at least 1). */
export function genesisState(block: Block, ctx: LedgerContext): Genesis {
  checkGenesis(block);
  const tx = block.transactions[0]!;
  const parameter = genesisParameter(tx);
  const draft = new Draft(emptyState(ctx.config, parameter.epoch_nonce));
  executeTx(draft, ctx, tx, 0n, { genesis: true, preverified: txHash(tx.mantle_tx) });
  let stake = 0n;
  for (const rec of draft.notes.values()) {
    if (ctx.config.faucet_pk === null || rec.note.pk !== ctx.config.faucet_pk) stake += rec.note.value;
  }
  if (stake < 1n) stake = 1n;
  const epoch0 = {
    epoch: 0,
    nonce: parameter.epoch_nonce,
    utxos: draft.utxos,
    notes: draft.notes,
    total_stake: stake,
    lottery: lotteryFor(ctx.config.consensus, stake),
    blend_pow_difficulty: draft.epoch_state.blend_pow_difficulty,
  };
  draft.epoch_state = epoch0;
  draft.next_epoch_state = { ...epoch0, epoch: 1 };
  // F: ledger/src/cryptarchia/mod.rs `with_genesis_sdp` seeds the active sets of epochs 0 and 1.
  // inferred: the genesis epoch's proof-of-quota inputs are those of its state after the genesis
  // notes (the reference builds its Blend rewards from the genesis epoch state).
  draft.sdp = {
    ...draft.sdp,
    rewards: { ...draft.sdp.rewards, current_poq: epochPoqInputs(epoch0) },
    snapshot: activeDeclarations(draft.sdp.declarations, 0, ctx.config.sdp),
    next_snapshot: activeDeclarations(draft.sdp.declarations, 1, ctx.config.sdp),
  };
  const id = headerId(block.header);
  draft.pow = { ...draft.pow, recent_blocks: [{ id, slot: 0n }] };
  return { block, id, state: draft.state(), parameter };
}

/**
 * Genesis of a deployment: its genesis block when it gives one, else the block built from its genesis
 * contents and its genesis time (the deployment's, or the given one when it has none).
 */
export function buildGenesis(d: Deployment, ctx: LedgerContext, genesisTime?: number): Genesis {
  if (d.genesis.block !== null) return genesisState(d.genesis.block, ctx);
  const time = d.genesis.genesis_time ?? genesisTime;
  if (time === undefined)
    throw new LedgerError('InvalidGenesis', `deployment ${d.name} has no genesis time and none was given`);
  return genesisState(genesisBlock(genesisTransaction(d, time)), ctx);
}
