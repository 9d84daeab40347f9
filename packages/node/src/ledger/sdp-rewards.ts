/**
 * Blend rewards of the Service Declaration Protocol (F: ledger/src/mantle/sdp/rewards/**).
 *
 * Income of epoch E−1 (the "target" epoch) is paid at the change from E to E+1 to the providers of
 * the E−1 active set that proved, during E, that they blended in E−1. The proof is the blending
 * token of one message they processed: a proof of quota and a proof of selection. A token counts
 * only when the Hamming distance between its hash and the hash of epoch E's randomness is within an
 * activity threshold; the providers with the smallest distance (premium) get two shares.
 *
 * The state is either without a target epoch (no activity message is accepted: first epoch, a
 * network below `minimum_network_size`, or right after skipped epochs) or with one.
 */
import { Writer } from '../codec/binary.ts';
import { bytesToHex } from '../codec/hex.ts';
import { blake2b256 } from '../crypto/blake2b.ts';
import { CoreTree } from '../crypto/blend/core-tree.ts';
import type { PoqPublicInputs } from '../crypto/blend/poq.ts';
import { blake2bSized, hammingDistance, keyNullifierOf, selectionIndex } from '../crypto/blend/selection.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';
import type { Note } from '../mantle/note.ts';
import type { BlendActivityProof } from '../mantle/ops.ts';
import { fail } from './errors.ts';
import type { BlendRewardParams } from './parameters.ts';
import type { ProofChecks, ProofSite } from './proof-system.ts';

/** A provider of the target epoch; its index in the membership is its position in the list. */
export interface RewardProvider {
  readonly provider_id: Uint8Array;
  readonly zk_id: Fr;
}

/** An accepted activity proof of the target epoch. */
export interface SubmittedActivity {
  readonly provider_id: Uint8Array;
  readonly zk_id: Fr;
  readonly distance: bigint;
}

/**
 * What an epoch's proofs of quota are checked against from its own state, taken when it starts: the
 * aged UTXO root, the lottery values and the Blend PoW difficulty (its nonce is kept beside)
 * (F: rewards/blend/mod.rs RewardsParameters::leader_inputs, pow_inputs; current_epoch.rs CurrentEpochState).
 */
export interface EpochPoqInputs {
  readonly pol_ledger_aged: Fr;
  readonly lottery_0: Fr;
  readonly lottery_1: Fr;
  readonly pow_blend_difficulty: Fr;
}

/** The inputs of an epoch state (`EpochState` of ./state.ts, which imports this file). */
export function epochPoqInputs(e: {
  readonly utxos: { root(): Fr };
  readonly lottery: { readonly t0: Fr; readonly t1: Fr };
  readonly blend_pow_difficulty: bigint;
}): EpochPoqInputs {
  return {
    pol_ledger_aged: e.utxos.root(),
    lottery_0: e.lottery.t0,
    lottery_1: e.lottery.t1,
    pow_blend_difficulty: e.blend_pow_difficulty,
  };
}

/** A proof of quota's public inputs but the signing key, which each activity proof brings. */
export type PoqInputsMinusSigningKey = Omit<PoqPublicInputs, 'signing_key'>;

export interface TargetEpochRewards {
  readonly epoch: number;
  /** The target epoch's nonce (an input of its proofs of quota). */
  readonly epoch_nonce: Fr;
  /** The public inputs of the target epoch's proofs of quota (F: current_epoch.rs create_proof_verifier). */
  readonly poq: PoqInputsMinusSigningKey;
  /** The target epoch's active Blend providers, sorted by zk id (the membership order). */
  readonly providers: readonly RewardProvider[];
  readonly token_count_byte_len: number;
  readonly activity_threshold: bigint;
  /** Blend income collected during the target epoch. */
  readonly income: bigint;
  /** Accepted activity proofs, in the order they were accepted. */
  readonly submitted: readonly SubmittedActivity[];
}

export interface BlendRewards {
  /** The epoch whose income is being collected (the ledger's current epoch) and its nonce. */
  readonly current_epoch: number;
  /** The current epoch's nonce: the randomness activity tokens are measured against. */
  readonly current_nonce: Fr;
  /** The current epoch's proof-of-quota inputs, for when it becomes the target. */
  readonly current_poq: EpochPoqInputs;
  readonly current_income: bigint;
  /** The epoch whose activity proofs are accepted now, or null (no activity message is accepted). */
  readonly target: TargetEpochRewards | null;
}

export function newBlendRewards(epoch: number, nonce: Fr, poq: EpochPoqInputs): BlendRewards {
  return { current_epoch: epoch, current_nonce: nonce, current_poq: poq, current_income: 0n, target: null };
}

export function addBlendIncome(r: BlendRewards, income: bigint): BlendRewards {
  return { ...r, current_income: r.current_income + income };
}

// ---------- token evaluation (F: blend/message/src/reward/{epoch,activity,token}.rs) ----------

/**
 * Core quota `Q_c = ceil(rounds_per_epoch · F_c · β_c / N)`, computed in f64 as the reference does
 * (F: core/src/blend/mod.rs `core_quota`).
 */
export function coreQuota(p: ResolvedBlendRewardParams, membershipSize: number): bigint {
  const messages = Number(p.rounds_per_epoch) * p.message_frequency_per_round;
  return BigInt(Math.ceil((messages * Number(p.num_blend_layers)) / membershipSize));
}

/** The parameters with `rounds_per_epoch` known. */
export interface ResolvedBlendRewardParams extends BlendRewardParams {
  readonly rounds_per_epoch: bigint;
}

export function resolveBlendRewardParams(
  p: BlendRewardParams,
  epochLength: bigint,
): ResolvedBlendRewardParams {
  return { ...p, rounds_per_epoch: p.rounds_per_epoch ?? epochLength };
}

export interface TokenEvaluation {
  readonly token_count_byte_len: number;
  readonly activity_threshold: bigint;
}

/** Bits that can count every blending token of an epoch: `ceil(log2(Q_c · N + 1))`. */
// inferred: JS `Math.log2` may differ from Rust's `f64::log2` in the last bit, which `ceil` can only
// expose at exact powers of two, where both are exact (docs/design/fidelity.md).
export function tokenCountBitLen(coreQuotaValue: bigint, membershipSize: bigint): bigint {
  const total = coreQuotaValue * membershipSize;
  return BigInt(Math.ceil(Math.log2(Number(total) + 1)));
}

/** `token_count_bit_len − ceil(log2(N + 1)) − sensitivity`, each subtraction saturating at 0. */
export function activityThreshold(
  tokenCountBits: bigint,
  membershipSize: bigint,
  sensitivity: bigint,
): bigint {
  const networkBits = BigInt(Math.ceil(Math.log2(Number(membershipSize + 1n))));
  const a = tokenCountBits > networkBits ? tokenCountBits - networkBits : 0n;
  return a > sensitivity ? a - sensitivity : 0n;
}

export function tokenEvaluation(
  coreQuotaValue: bigint,
  membershipSize: bigint,
  sensitivity: bigint,
): TokenEvaluation {
  const bits = tokenCountBitLen(coreQuotaValue, membershipSize);
  return {
    token_count_byte_len: Number((bits + 7n) / 8n),
    activity_threshold: activityThreshold(bits, membershipSize, sensitivity),
  };
}

/**
 * The blending token as the reference hashes it (its bincode form): signing key 32 B ‖ proof of
 * quota (key nullifier Fr ‖ π_a ‖ π_b ‖ π_c) ‖ proof of selection (Fr).
 */
export function blendingTokenBytes(p: BlendActivityProof): Uint8Array {
  const w = new Writer(224);
  w.bytes(p.signing_key);
  w.bytes(frToBytes(p.proof_of_quota.key_nullifier));
  w.bytes(p.proof_of_quota.proof.pi_a);
  w.bytes(p.proof_of_quota.proof.pi_b);
  w.bytes(p.proof_of_quota.proof.pi_c);
  w.bytes(frToBytes(p.proof_of_selection.selection_randomness));
  return w.finish();
}

/** Hamming distance between the token's hash and the epoch randomness' hash, both `byteLen` long. */
export function tokenDistance(token: Uint8Array, byteLen: number, epochRandomness: Fr): bigint {
  return hammingDistance(blake2bSized(token, byteLen), blake2bSized(frToBytes(epochRandomness), byteLen));
}

/** The checks an activity proof's two Blend proofs must pass for a provider at `index` of `size`. */
export interface ActivityProofChecks {
  proofOfQuota(proof: BlendActivityProof, target: TargetEpochRewards): boolean;
  proofOfSelection(
    proof: BlendActivityProof,
    index: bigint,
    membershipSize: bigint,
    target: TargetEpochRewards,
  ): boolean;
}

/**
 * The checks of the reference (F: blend/message/src/reward ActivityProof::verify_and_build): the
 * proof of quota verifies against the target epoch's inputs with the proof's own signing key (asked of
 * `proofs`, which may defer it), and the proof of selection designates the provider's own index and
 * commits to the proof of quota's key nullifier.
 */
export function blendActivityChecks(proofs: ProofChecks, site?: ProofSite): ActivityProofChecks {
  return {
    proofOfQuota: (proof, target) =>
      proofs.verifyPoq(
        { ...target.poq, signing_key: proof.signing_key },
        proof.proof_of_quota.key_nullifier,
        proof.proof_of_quota.proof,
        site,
      ),
    proofOfSelection(proof, index, membershipSize) {
      if (index >= membershipSize) return false;
      const r = proof.proof_of_selection.selection_randomness;
      if (selectionIndex(r, membershipSize) !== index) return false;
      return keyNullifierOf(r) === proof.proof_of_quota.key_nullifier;
    },
  };
}

// ---------- activity messages and epoch changes (F: rewards/blend/{mod,current_epoch,target_epoch}.rs) ----------

/**
 * An activity message of `providerId` (its declaration's provider) proving `proof`. Throws a
 * LedgerError when the reference rejects the message.
 */
export function applyActivity(
  r: BlendRewards,
  providerId: Uint8Array,
  proof: BlendActivityProof,
  opIndex: number,
  checks: ActivityProofChecks,
): BlendRewards {
  const t = r.target;
  if (t === null) return fail('TargetEpochNotSet', 'no target epoch accepts activity proofs now', opIndex);
  if (proof.epoch !== t.epoch) {
    return fail(
      'InvalidActivityEpoch',
      `activity proof for epoch ${proof.epoch}, expected ${t.epoch}`,
      opIndex,
    );
  }
  const key = bytesToHex(providerId);
  const index = t.providers.findIndex((p) => bytesToHex(p.provider_id) === key);
  if (index < 0) return fail('UnknownProvider', `provider ${key} is not in the target epoch`, opIndex);
  const n = BigInt(t.providers.length);
  if (!checks.proofOfQuota(proof, t) || !checks.proofOfSelection(proof, BigInt(index), n, t)) {
    return fail('InvalidActivityProof', 'the activity proof does not verify', opIndex);
  }
  const distance = tokenDistance(blendingTokenBytes(proof), t.token_count_byte_len, r.current_nonce);
  if (distance > t.activity_threshold) {
    return fail(
      'HammingDistanceTooLarge',
      `token distance ${distance} exceeds the activity threshold ${t.activity_threshold}`,
      opIndex,
    );
  }
  if (t.submitted.some((s) => bytesToHex(s.provider_id) === key)) {
    return fail('DuplicateActiveMessage', `provider ${key} already proved epoch ${t.epoch}`, opIndex);
  }
  const zk_id = t.providers[index]!.zk_id;
  return {
    ...r,
    target: { ...t, submitted: [...t.submitted, { provider_id: providerId, zk_id, distance }] },
  };
}

/** A reward note to create: output `output_index` of the op `op_id`. */
export interface RewardUtxo {
  readonly op_id: Uint8Array;
  readonly output_index: number;
  readonly note: Note;
}

/** Op id of an epoch's reward notes: `Blake2b256(bincode(ServiceType::BlendNetwork) ‖ epoch u32 LE)`. */
export function rewardOpId(epoch: number): Uint8Array {
  const w = new Writer(8);
  w.u32(0); // bincode: the unit variant's u32 index (BlendNetwork = 0)
  w.u32(epoch);
  return blake2b256(w.finish());
}

/** One note per zk id with a positive reward, sorted by zk id; all outputs of one op. */
export function distributeRewards(rewards: ReadonlyMap<Fr, bigint>, epoch: number): RewardUtxo[] {
  const sorted = [...rewards].filter(([, v]) => v > 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const op_id = rewardOpId(epoch);
  return sorted.map(([pk, value], output_index) => ({ op_id, output_index, note: { value, pk } }));
}

/**
 * The target epoch's payout: `base = income / (submitters + premium)`, a premium provider (smallest
 * distance) gets `2 · base`, the others `base`; the remainder and, without submitters, the whole
 * income are not paid.
 */
export function finalizeTarget(t: TargetEpochRewards): RewardUtxo[] {
  if (t.submitted.length === 0) return [];
  let min = -1n;
  for (const s of t.submitted) if (min < 0n || s.distance < min) min = s.distance;
  const premium = t.submitted.filter((s) => s.distance === min).length;
  const base = t.income / BigInt(t.submitted.length + premium);
  const rewards = new Map<Fr, bigint>();
  for (const s of t.submitted) rewards.set(s.zk_id, s.distance === min ? base * 2n : base);
  return distributeRewards(rewards, t.epoch);
}

/** The Blend providers of an active set, sorted by zk id (the membership order of the epoch). */
export function membershipOf(
  activeSet: Iterable<{ readonly provider_id: Uint8Array; readonly zk_id: Fr }>,
): RewardProvider[] {
  return [...activeSet]
    .map((d) => ({ provider_id: d.provider_id, zk_id: d.zk_id }))
    .sort((a, b) => (a.zk_id < b.zk_id ? -1 : a.zk_id > b.zk_id ? 1 : 0));
}

/**
 * Epoch change from `lastEpoch` (whose active Blend set is `lastActiveSet`) to `nextEpoch`: pays the
 * current target epoch, then makes `lastEpoch` the new target unless epochs were skipped or its set
 * is smaller than `minimum_network_size` (then its income is dropped).
 */
export function rewardsEpochChange(
  r: BlendRewards,
  lastEpoch: number,
  lastActiveSet: Iterable<{ readonly provider_id: Uint8Array; readonly zk_id: Fr }>,
  nextEpoch: number,
  nextNonce: Fr,
  nextPoq: EpochPoqInputs,
  p: ResolvedBlendRewardParams,
): { rewards: BlendRewards; utxos: RewardUtxo[] } {
  if (nextEpoch <= lastEpoch) {
    throw new RangeError(`next epoch ${nextEpoch} must be greater than the last epoch ${lastEpoch}`);
  }
  if (r.current_epoch !== lastEpoch) {
    throw new RangeError(
      `the last epoch ${lastEpoch} must match the rewards' current epoch ${r.current_epoch}`,
    );
  }
  const utxos = r.target === null ? [] : finalizeTarget(r.target);
  const fresh = newBlendRewards(nextEpoch, nextNonce, nextPoq);
  if (nextEpoch > lastEpoch + 1) return { rewards: fresh, utxos };
  const providers = membershipOf(lastActiveSet);
  if (BigInt(providers.length) < p.minimum_network_size) return { rewards: fresh, utxos };
  const n = BigInt(providers.length);
  const quota = coreQuota(p, providers.length);
  const ev = tokenEvaluation(quota, n, p.activity_threshold_sensitivity);
  return {
    rewards: {
      ...fresh,
      target: {
        epoch: lastEpoch,
        epoch_nonce: r.current_nonce,
        poq: targetPoqInputs(r, providers, quota, p),
        providers,
        token_count_byte_len: ev.token_count_byte_len,
        activity_threshold: ev.activity_threshold,
        income: r.current_income,
        submitted: [],
      },
    },
    utxos,
  };
}

/**
 * The proof-of-quota inputs of a new target epoch: the core tree root over its providers' zk ids and
 * the core quota; the leader inputs of its state (aged root, nonce, lottery) with the quota
 * `β_c · (1 + data_replication_factor)`; its PoW difficulty with the quota `β_c`
 * (F: current_epoch.rs providers_and_zk_root, create_proof_verifier; mod.rs encapsulations_per_message,
 * pow_inputs).
 */
export function targetPoqInputs(
  r: BlendRewards,
  providers: readonly RewardProvider[],
  coreQuotaValue: bigint,
  p: ResolvedBlendRewardParams,
): PoqInputsMinusSigningKey {
  // inferred: two declarations with one zk id make the reference's tree construction panic (it
  // expects distinct keys); here the epoch change throws the tree's error instead.
  const tree = new CoreTree(providers.map((d) => d.zk_id));
  return {
    core: { zk_root: tree.root, quota: coreQuotaValue },
    leader: {
      pol_ledger_aged: r.current_poq.pol_ledger_aged,
      pol_epoch_nonce: r.current_nonce,
      message_quota: p.num_blend_layers * (1n + p.data_replication_factor),
      lottery_0: r.current_poq.lottery_0,
      lottery_1: r.current_poq.lottery_1,
    },
    pow: { pow_blend_difficulty: r.current_poq.pow_blend_difficulty, pow_quota: p.num_blend_layers },
  };
}
