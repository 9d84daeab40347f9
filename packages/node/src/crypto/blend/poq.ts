/**
 * The proof of quota's statement outside the circuit: its public inputs as the verifier builds them,
 * the private inputs of its three branches (core node, leader, proof of work), the secret selection
 * randomness and key nullifier they commit to, and the circuit's input (zk/circuits/poq.circom)
 * (F: blend/proofs/src/quota/{mod.rs,inputs/**}, zk/proofs/poq/src/*_inputs.rs).
 */
// inferred: F ships the circuit compiled only. Its inputs, their order, the tags and the three branch
// statements are F's (the reference fixtures of every branch satisfy zk/circuits/poq.circom); the
// circuit's range checks (20-bit quotas and index, 64-bit note value), its selector encoding and the
// branches not taken being unconstrained are this node's choices (docs/design/fidelity.md).

import { LogosError } from '@logos-ts/shared/errors';
import { type Fr, frAdd, frFromAscii, frMul, isFr, leBytesToBigint } from '../field.ts';
import { digest, merkleRoot } from '../poseidon2/index.ts';
import { zkPublicKey } from '../zk-keys.ts';
import { CORE_MERKLE_TREE_HEIGHT, type CoreTree, type CoreTreePath, coreTreeRootOf } from './core-tree.ts';
import { powTicket, powTicketSatisfies } from './pow.ts';
import { keyNullifierOf } from './selection.ts';

/** Width of the quotas and key index in the circuit (F: zk/proofs/poq/src/lib.rs QUOTA_BITS). */
export const QUOTA_BITS = 20;
export const MAX_QUOTA = (1n << BigInt(QUOTA_BITS)) - 1n;
/** Height of the aged UTXO tree a leader's note is proved in (F: lb_pol AGED_NOTE_MERKLE_TREE_HEIGHT). */
export const AGED_NOTE_MERKLE_TREE_HEIGHT = 32;
const ED25519_PUBLIC_KEY_SIZE = 32;

/** F: quota/mod.rs DOMAIN_SEPARATION_TAG, "SELECTION_RANDOMNESS_V1" as a little-endian field element. */
export const SELECTION_RANDOMNESS_V1: Fr = frFromAscii('SELECTION_RANDOMNESS_V1');
// The leader branch's tags, as the proof of leadership uses them (src/mantle/note.ts, src/consensus/lottery.ts).
const NOTE_ID_V1: Fr = frFromAscii('NOTE_ID_V1');
const LEAD_V1: Fr = frFromAscii('LEAD_V1');

export class PoqInputError extends LogosError {
  constructor(message: string) {
    super('BLEND_POQ_INPUT_ERROR', message);
  }
}

/** The branch a proof takes (F: PoQSelector). */
export const PoqSelector = { Core: 0, Leader: 1, Pow: 2 } as const;
export type PoqSelector = (typeof PoqSelector)[keyof typeof PoqSelector];

/** Public inputs of a proof of quota, as prover and verifier take them from their context (F: prove::public::Inputs). */
export interface PoqPublicInputs {
  /** The ephemeral Ed25519 signing key the proof is bound to (32 bytes). */
  readonly signing_key: Uint8Array;
  readonly core: { readonly zk_root: Fr; readonly quota: bigint };
  readonly leader: {
    readonly pol_ledger_aged: Fr;
    readonly pol_epoch_nonce: Fr;
    readonly message_quota: bigint;
    readonly lottery_0: Fr;
    readonly lottery_1: Fr;
  };
  readonly pow: { readonly pow_blend_difficulty: Fr; readonly pow_quota: bigint };
}

/** A core node's branch: its zk secret key and its path in the core tree (F: ProofOfCoreQuotaInputs). */
export interface PoqCoreWitness {
  readonly selector: typeof PoqSelector.Core;
  readonly key_index: bigint;
  readonly core_sk: Fr;
  readonly core_path: CoreTreePath;
}

/**
 * A leader's branch: a note of the aged snapshot winning the lottery of `slot`, and its path in the
 * aged UTXO tree (siblings leaf level first, leaf index) (F: ProofOfLeadershipQuotaInputs).
 */
export interface PoqLeaderWitness {
  readonly selector: typeof PoqSelector.Leader;
  readonly key_index: bigint;
  readonly slot: bigint;
  readonly note_value: bigint;
  readonly transaction_hash: Fr;
  readonly output_number: bigint;
  readonly aged_path: readonly Fr[];
  readonly aged_index: number;
  readonly secret_key: Fr;
}

/** The proof-of-work branch: a solution of the epoch's Blend puzzle (F: ProofOfWorkQuotaInputs). */
export interface PoqPowWitness {
  readonly selector: typeof PoqSelector.Pow;
  readonly key_index: bigint;
  readonly pow_nonce: Fr;
}

export type PoqWitness = PoqCoreWitness | PoqLeaderWitness | PoqPowWitness;

/** A core node's witness for key `keyIndex`, or undefined when its key is not in the core tree. */
export function coreQuotaWitness(tree: CoreTree, coreSk: Fr, keyIndex: bigint): PoqCoreWitness | undefined {
  const path = tree.pathOf(zkPublicKey(coreSk));
  return path && { selector: PoqSelector.Core, key_index: keyIndex, core_sk: coreSk, core_path: path };
}

/** A proof-of-work witness for key `keyIndex` of a puzzle solution (src/crypto/blend/pow.ts). */
export function powQuotaWitness(powNonce: Fr, keyIndex: bigint): PoqPowWitness {
  return { selector: PoqSelector.Pow, key_index: keyIndex, pow_nonce: powNonce };
}

/** The 32-byte Ed25519 key as two 16-byte little-endian halves (F: split_ephemeral_signing_key). */
export function splitSigningKey(key: Uint8Array): [Fr, Fr] {
  if (key.length !== ED25519_PUBLIC_KEY_SIZE)
    throw new PoqInputError(`a signing key has ${ED25519_PUBLIC_KEY_SIZE} bytes, got ${key.length}`);
  return [leBytesToBigint(key.subarray(0, 16)), leBytesToBigint(key.subarray(16, 32))];
}

/** The public inputs as the circuit takes them, the key nullifier first (F: PoQVerifierInput::to_inputs). */
export function poqPublicInputList(i: PoqPublicInputs, keyNullifier: Fr): bigint[] {
  const [k1, k2] = splitSigningKey(i.signing_key);
  return [
    keyNullifier,
    i.core.quota,
    i.leader.message_quota,
    i.core.zk_root,
    i.pow.pow_quota,
    i.leader.pol_ledger_aged,
    k1,
    k2,
    i.pow.pow_blend_difficulty,
    i.leader.pol_epoch_nonce,
    i.leader.lottery_0,
    i.leader.lottery_1,
  ];
}

/**
 * The secret selection randomness: digest([SELECTION_RANDOMNESS_V1, secret, key_index, other]) with
 * (secret, other) = (core_sk, epoch nonce), (note secret key, slot) or (pow nonce, epoch nonce)
 * (F: quota/mod.rs generate_secret_selection_randomness, private.rs get_secret_selection_randomness_sk).
 */
export function selectionRandomness(epochNonce: Fr, w: PoqWitness): Fr {
  switch (w.selector) {
    case PoqSelector.Core:
      return digest([SELECTION_RANDOMNESS_V1, w.core_sk, w.key_index, epochNonce]);
    case PoqSelector.Leader:
      return digest([SELECTION_RANDOMNESS_V1, w.secret_key, w.key_index, w.slot]);
    case PoqSelector.Pow:
      return digest([SELECTION_RANDOMNESS_V1, w.pow_nonce, w.key_index, epochNonce]);
  }
}

/** The key nullifier a witness yields (the circuit's output). */
export function poqKeyNullifier(epochNonce: Fr, w: PoqWitness): Fr {
  return keyNullifierOf(selectionRandomness(epochNonce, w));
}

/** The quota of the witness's branch. */
export function branchQuota(i: PoqPublicInputs, selector: PoqSelector): bigint {
  return selector === PoqSelector.Core
    ? i.core.quota
    : selector === PoqSelector.Leader
      ? i.leader.message_quota
      : i.pow.pow_quota;
}

const dec = (x: bigint | number): string => x.toString();
const bitsOf = (index: number, n: number): string[] =>
  Array.from({ length: n }, (_, i) => dec((index >>> i) & 1));

function checkFr(name: string, x: bigint): void {
  if (!isFr(x)) throw new PoqInputError(`${name} is not a field element`);
}

function checkQuota(name: string, x: bigint): void {
  if (x < 0n || x > MAX_QUOTA) throw new PoqInputError(`${name} must fit in ${QUOTA_BITS} bits, got ${x}`);
}

function checkPath(name: string, siblings: readonly Fr[], index: number, height: number): void {
  if (siblings.length !== height) throw new PoqInputError(`${name} must have ${height} siblings`);
  for (const s of siblings) checkFr(`${name} sibling`, s);
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** height)
    throw new PoqInputError(`${name} index out of range`);
}

/**
 * The circuit's input for a proof (zk/circuits/poq.circom signal names; the branches not taken get
 * zeros). Refuses inputs the circuit cannot take (sizes, ranges, index not below the branch's quota).
 */
export function poqCircuitInput(i: PoqPublicInputs, w: PoqWitness): Record<string, string | string[]> {
  const [k1, k2] = splitSigningKey(i.signing_key);
  checkQuota('core quota', i.core.quota);
  checkQuota('leader quota', i.leader.message_quota);
  checkQuota('pow quota', i.pow.pow_quota);
  checkQuota('key index', w.key_index);
  for (const [n, x] of [
    ['core root', i.core.zk_root],
    ['aged root', i.leader.pol_ledger_aged],
    ['epoch nonce', i.leader.pol_epoch_nonce],
    ['lottery_0', i.leader.lottery_0],
    ['lottery_1', i.leader.lottery_1],
    ['pow difficulty', i.pow.pow_blend_difficulty],
  ] as const)
    checkFr(n, x);
  if (w.key_index >= branchQuota(i, w.selector))
    throw new PoqInputError(`key index ${w.key_index} is not below the branch's quota`);

  const zeros = (n: number) => Array.from({ length: n }, () => '0');
  const input: Record<string, string | string[]> = {
    core_quota: dec(i.core.quota),
    leader_quota: dec(i.leader.message_quota),
    core_root: dec(i.core.zk_root),
    pow_quota: dec(i.pow.pow_quota),
    pol_ledger_aged: dec(i.leader.pol_ledger_aged),
    k_part_one: dec(k1),
    k_part_two: dec(k2),
    pow_blend_difficulty: dec(i.pow.pow_blend_difficulty),
    pol_epoch_nonce: dec(i.leader.pol_epoch_nonce),
    pol_t0: dec(i.leader.lottery_0),
    pol_t1: dec(i.leader.lottery_1),
    selector: dec(w.selector),
    index: dec(w.key_index),
    core_sk: '0',
    core_path: zeros(CORE_MERKLE_TREE_HEIGHT),
    core_bits: zeros(CORE_MERKLE_TREE_HEIGHT),
    pol_slot: '0',
    pol_secret_key: '0',
    pol_note_value: '0',
    pol_note_tx_hash: '0',
    pol_note_output_number: '0',
    pol_path: zeros(AGED_NOTE_MERKLE_TREE_HEIGHT),
    pol_bits: zeros(AGED_NOTE_MERKLE_TREE_HEIGHT),
    pow_nonce: '0',
  };
  switch (w.selector) {
    case PoqSelector.Core:
      checkFr('core secret key', w.core_sk);
      checkPath('core path', w.core_path.siblings, w.core_path.index, CORE_MERKLE_TREE_HEIGHT);
      input.core_sk = dec(w.core_sk);
      input.core_path = w.core_path.siblings.map(dec);
      input.core_bits = bitsOf(w.core_path.index, CORE_MERKLE_TREE_HEIGHT);
      break;
    case PoqSelector.Leader:
      checkFr('note secret key', w.secret_key);
      checkFr('transaction hash', w.transaction_hash);
      checkPath('aged path', w.aged_path, w.aged_index, AGED_NOTE_MERKLE_TREE_HEIGHT);
      if (w.slot < 0n || w.slot >= 1n << 64n) throw new PoqInputError('slot must be a u64');
      if (w.note_value < 0n || w.note_value >= 1n << 64n) throw new PoqInputError('note value must be a u64');
      if (w.output_number < 0n || w.output_number >= 1n << 64n)
        throw new PoqInputError('output number must be a u64');
      input.pol_slot = dec(w.slot);
      input.pol_secret_key = dec(w.secret_key);
      input.pol_note_value = dec(w.note_value);
      input.pol_note_tx_hash = dec(w.transaction_hash);
      input.pol_note_output_number = dec(w.output_number);
      input.pol_path = w.aged_path.map(dec);
      input.pol_bits = bitsOf(w.aged_index, AGED_NOTE_MERKLE_TREE_HEIGHT);
      break;
    case PoqSelector.Pow:
      checkFr('pow nonce', w.pow_nonce);
      input.pow_nonce = dec(w.pow_nonce);
      break;
  }
  return input;
}

/**
 * Whether a witness satisfies the statement for these public inputs, checked outside the circuit (the
 * circuit's constraints, in TypeScript): the index is below the branch's quota and the branch holds.
 * Inputs the circuit cannot take at all make `poqCircuitInput` throw instead.
 */
export function poqWitnessSatisfies(i: PoqPublicInputs, w: PoqWitness): boolean {
  for (const q of [i.core.quota, i.leader.message_quota, i.pow.pow_quota, w.key_index])
    if (q < 0n || q > MAX_QUOTA) return false;
  if (w.key_index >= branchQuota(i, w.selector)) return false;
  switch (w.selector) {
    case PoqSelector.Core:
      return coreTreeRootOf(zkPublicKey(w.core_sk), w.core_path) === i.core.zk_root;
    case PoqSelector.Leader: {
      if (w.note_value < 0n || w.note_value >= 1n << 64n) return false;
      const id = digest([
        NOTE_ID_V1,
        w.transaction_hash,
        w.output_number,
        w.note_value,
        zkPublicKey(w.secret_key),
      ]);
      if (merkleRoot(id, w.aged_path, BigInt(w.aged_index)) !== i.leader.pol_ledger_aged) return false;
      const v = w.note_value;
      const threshold = frMul(v, frAdd(i.leader.lottery_0, frMul(i.leader.lottery_1, v)));
      return digest([LEAD_V1, i.leader.pol_epoch_nonce, w.slot, id, w.secret_key]) < threshold;
    }
    case PoqSelector.Pow:
      return powTicketSatisfies(powTicket(i.leader.pol_epoch_nonce, w.pow_nonce), i.pow.pow_blend_difficulty);
  }
}
