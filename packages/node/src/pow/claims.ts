/**
 * The PoW reward-claim transaction (F `services/pow/src/service.rs` `build_reward_claim_tx`; ledger.md
 * §9.5): for every group of up to 32 winning tickets, their `ClaimPowReward` ops followed by one
 * Transfer that spends the notes those claims mint and pays their sum, less the group's share of the
 * fee, to the claim address. Each Transfer is signed (ZkSig) by its group's ticket secret keys; the
 * claims carry no proof. The batch is capped by the reward pool (`pool / reward`), by the
 * transaction's 255 ops, and by the body of one Blend payload, the transport every claim is published
 * over (F `MAX_CLAIMS_BY_PAYLOAD_SIZE`).
 */
import { MAX_PAYLOAD_BODY_SIZE } from '../blend/index.ts';
import type { Fr } from '../crypto/field.ts';
import type { GasContext } from '../ledger/gas.ts';
import type { LedgerState } from '../ledger/state.ts';
import { noteId } from '../mantle/note.ts';
import { type ClaimPowRewardOp, type Op, Opcode, opId } from '../mantle/ops.ts';
import type { OpProof, ZkSignature } from '../mantle/proofs.ts';
import { MAX_OPS, type SignedMantleTx, txHash, txHashToFr } from '../mantle/tx.ts';
import { encodeTxGossip } from '../network/index.ts';
import { minimumGasCost, newBuilder } from '../wallet/index.ts';
import { rewardBelowFee, rewardPoolExhausted, rewardsDisabled } from './errors.ts';
import type { PowWinner } from './winners.ts';

/** Inputs of one Transfer: its ZkSig is one multi-signature of at most 32 keys. */
export const MAX_TRANSFER_INPUTS = 32;

/** The largest claim count whose ops (the claims and their ⌈c/32⌉ transfers) fit in one transaction. */
export function maxClaimsByOps(maxOps = MAX_OPS): number {
  let c = 0;
  while (c + 1 + Math.ceil((c + 1) / MAX_TRANSFER_INPUTS) <= maxOps) c++;
  return c;
}

/**
 * The size of the Blend payload body (the transaction as the mempool gossips it) of a claim batch of
 * `claims` winners, measured on a transaction of that shape with zero values and zero signatures: the
 * encoding has fixed-width fields only, so the values do not change its length (F `claim_tx_size`).
 */
export function claimPayloadSize(claims: number): number {
  const op: ClaimPowRewardOp = { epoch_nonce: 0n, block_hash: new Uint8Array(32), public_key: 0n };
  const ops = Array.from({ length: claims }, () => op);
  const sizes = groups(ops).map((g) => g.length);
  const zero: ZkSignature = { pi_a: new Uint8Array(32), pi_b: new Uint8Array(64), pi_c: new Uint8Array(32) };
  const tx: SignedMantleTx = {
    mantle_tx: {
      ops: claimOps(
        ops,
        0n,
        0n,
        sizes.map(() => 0n),
      ),
    },
    ops_proofs: claimProofs(
      sizes,
      sizes.map(() => zero),
    ),
  };
  return encodeTxGossip(tx).length;
}

let payloadCap: number | undefined;

/**
 * The largest claim count whose transaction fits one Blend payload body (F `MAX_CLAIMS_BY_PAYLOAD_SIZE`,
 * found by shrinking a probe batch from the op cap); computed once.
 */
export function maxClaimsByPayload(): number {
  if (payloadCap === undefined) {
    let c = maxClaimsByOps();
    while (c > 1 && claimPayloadSize(c) > MAX_PAYLOAD_BODY_SIZE) c--;
    payloadCap = c;
  }
  return payloadCap;
}

/** The claim op of a winner. */
export function claimOp(w: Pick<PowWinner, 'epochNonce' | 'blockId' | 'publicKey'>): ClaimPowRewardOp {
  return { epoch_nonce: w.epochNonce, block_hash: w.blockId, public_key: w.publicKey };
}

/** The id of the note a claim mints (its op id, output 0, the reward to the ticket's key). */
export function mintedNoteId(op: ClaimPowRewardOp, reward: bigint): Fr {
  return noteId(opId({ opcode: Opcode.ClaimPowReward, payload: op }), 0, {
    value: reward,
    pk: op.public_key,
  });
}

/**
 * The winners a claim can be built of against `state`: those whose block is a recent block of its
 * branch (a claim on another branch's block would fail the whole transaction). The others stay ready: a
 * reorg may bring their block back, and the window prunes them for good.
 */
export function claimableOn(state: Pick<LedgerState, 'pow'>, ready: readonly PowWinner[]): PowWinner[] {
  const known = new Set(state.pow.recent_blocks.map((b) => Buffer.from(b.id).toString('hex')));
  return ready.filter((w) => known.has(Buffer.from(w.blockId).toString('hex')));
}

/**
 * What each group's Transfer pays: its rewards less its share of the fee, the fee charged group by
 * group (each absorbs what its rewards allow, the rest spills into the next). Fails only when the fee
 * exceeds the total reward.
 */
export function changeOutputs(groupSizes: readonly number[], reward: bigint, fee: bigint): bigint[] {
  let left = fee;
  const out: bigint[] = [];
  for (const n of groupSizes) {
    const groupReward = BigInt(n) * reward;
    const charged = left < groupReward ? left : groupReward;
    left -= charged;
    out.push(groupReward - charged);
  }
  if (left !== 0n) throw rewardBelowFee();
  return out;
}

function groups<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += MAX_TRANSFER_INPUTS) out.push(xs.slice(i, i + MAX_TRANSFER_INPUTS));
  return out;
}

/** The ops of a claim batch: each group's claims, then its Transfer paying `outputs[g]` to `address`. */
function claimOps(
  ops: readonly ClaimPowRewardOp[],
  reward: bigint,
  address: Fr,
  outputs: readonly bigint[],
): Op[] {
  const out: Op[] = [];
  groups(ops).forEach((group, g) => {
    for (const payload of group) out.push({ opcode: Opcode.ClaimPowReward, payload });
    out.push({
      opcode: Opcode.Transfer,
      payload: {
        inputs: group.map((op) => mintedNoteId(op, reward)),
        outputs: [{ value: outputs[g]!, pk: address }],
      },
    });
  });
  return out;
}

export interface ClaimBatchInput {
  /** The key the rewards are paid to. */
  readonly claimAddress: Fr;
  /** The epoch reward of one claim at the state the transaction applies against. */
  readonly reward: bigint;
  /** The reward pool this batch may spend. */
  readonly pool: bigint;
  /** Gas prices of that state. */
  readonly gas: GasContext;
  /** Winners to claim, in order; a prefix is taken. */
  readonly winners: readonly PowWinner[];
  /** A ZkSig over `msg` by these secret keys (the proof system's `proveZkSign`). */
  readonly signZk: (msg: Fr, secretKeys: readonly Fr[]) => Promise<ZkSignature>;
}

export interface ClaimBatch {
  readonly tx: SignedMantleTx;
  readonly hash: Uint8Array;
  /** The winners the transaction claims (a prefix of the input). */
  readonly claimed: readonly PowWinner[];
  readonly fee: bigint;
}

/**
 * Builds and signs one claim transaction of as many winners as the pool can pay and the op limit
 * allows. Throws `PowError` (rewards disabled, pool exhausted, reward below the fee).
 */
export async function buildClaimBatch(input: ClaimBatchInput): Promise<ClaimBatch> {
  const { reward, pool, claimAddress } = input;
  if (reward === 0n) throw rewardsDisabled();
  const byPool = pool / reward;
  let count = Math.min(input.winners.length, maxClaimsByOps(), maxClaimsByPayload());
  if (BigInt(count) > byPool) count = Number(byPool);
  if (count === 0) throw rewardPoolExhausted();
  const claimed = input.winners.slice(0, count);
  const ops = claimed.map(claimOp);
  const sizes = groups(ops).map((g) => g.length);
  // The change values do not change the gas: priced with zero outputs.
  const fee = minimumGasCost(
    newBuilder(
      claimOps(
        ops,
        reward,
        claimAddress,
        sizes.map(() => 0n),
      ),
    ),
    input.gas,
  );
  const tx = { ops: claimOps(ops, reward, claimAddress, changeOutputs(sizes, reward, fee)) };
  const hash = txHash(tx);
  const msg = txHashToFr(hash);
  const sigs = await Promise.all(
    groups(claimed).map((g) =>
      input.signZk(
        msg,
        g.map((w) => w.secretKey),
      ),
    ),
  );
  return { tx: { mantle_tx: tx, ops_proofs: claimProofs(sizes, sigs) }, hash, claimed, fee };
}

/** The proofs of a claim batch, in op order: `None` per claim of a group, then the group's ZkSig. */
function claimProofs(sizes: readonly number[], sigs: readonly ZkSignature[]): OpProof[] {
  const proofs: OpProof[] = [];
  sigs.forEach((signature, g) => {
    for (let i = 0; i < sizes[g]!; i++) proofs.push({ type: 'None' });
    proofs.push({ type: 'ZkSig', signature });
  });
  return proofs;
}
